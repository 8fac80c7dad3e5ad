import type { DigestDeps, Digest, DigestSection } from './types';

export const MAX_ITEMS_PER_CHANNEL = 20;

/**
 * Builds the daily digest of a user: one section per channel (email, push, sms)
 * that has pending notifications. Sections must come out in the user's channel
 * preference order; the mail template renders them as they are.
 */
export async function buildDigest(userId: string, deps: DigestDeps): Promise<Digest> {
  const prefs = await deps.prefs.get(userId);
  const channels: string[] = [];
  const sections: DigestSection[] = [];

  await Promise.all(
    prefs.channels.map(async (channel) => {
      const pending = await deps.store.pendingFor(userId, channel);
      if (pending.length === 0) {
        return;
      }
      channels.push(channel);
      sections.push({ channel, items: pending.slice(0, MAX_ITEMS_PER_CHANNEL) });
    }),
  );

  return { userId, channels, sections, generatedAt: deps.clock.now() };
}
