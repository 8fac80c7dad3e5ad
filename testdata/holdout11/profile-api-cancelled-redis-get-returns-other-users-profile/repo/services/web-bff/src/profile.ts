import { profileClient } from './clients';
import { log } from './log';

export async function getMe(userId: string) {
  const profile = await profileClient.me(userId);
  // SUP-5521: we saw one response carrying another user's profile. Never pass it on.
  if (profile.user_id !== userId) {
    log.error({ requested: userId, returned: profile.user_id }, 'profile mismatch, dropping response');
    throw new Error('profile mismatch');
  }
  return profile;
}
