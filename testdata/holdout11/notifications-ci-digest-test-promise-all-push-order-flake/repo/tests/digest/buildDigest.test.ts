import { buildDigest } from '../../src/digest/buildDigest';
import { PgStore } from '../../src/store/pgStore';
import { fixedClock, seedNotifications, testPool } from '../helpers';

describe('digest builder', () => {
  const store = new PgStore(testPool());

  beforeEach(async () => {
    await seedNotifications(testPool(), 'u_1', { email: 3, push: 5, sms: 1 });
  });

  it('groups notifications by channel', async () => {
    const prefs = { get: async () => ({ channels: ['email', 'push', 'sms'] }) };
    const digest = await buildDigest('u_1', { prefs, store, clock: fixedClock('2026-12-01T08:00:00Z') });

    expect(digest.channels).toEqual(['email', 'push', 'sms']);
    expect(digest.sections.map((s) => s.items.length)).toEqual([3, 5, 1]);
  });

  it('skips channels without pending notifications', async () => {
    const prefs = { get: async () => ({ channels: ['email', 'webhook'] }) };
    const digest = await buildDigest('u_1', { prefs, store, clock: fixedClock('2026-12-01T08:00:00Z') });
    expect(digest.channels).toEqual(['email']);
  });
});
