import type { Pool } from 'pg';
import type { PendingNotification } from '../digest/types';

export class PgStore {
  constructor(private readonly pool: Pool) {}

  async pendingFor(userId: string, channel: string): Promise<PendingNotification[]> {
    const { rows } = await this.pool.query(
      `SELECT id, title, created_at FROM notifications
        WHERE user_id = $1 AND channel = $2 AND digested_at IS NULL
        ORDER BY created_at DESC`,
      [userId, channel],
    );
    return rows;
  }
}
