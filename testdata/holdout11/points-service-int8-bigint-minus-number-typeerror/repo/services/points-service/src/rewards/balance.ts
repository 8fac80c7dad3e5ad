import { pool } from '../db/pool';
import { Hold, sumHolds } from './holds';

export interface Balance {
  userId: string;
  points: number;
  pending: number;
  tier: string;
}

const BALANCE_SQL = `
  SELECT s.balance_points, s.tier, h.holds
    FROM ledger_summary s
    LEFT JOIN LATERAL (
      SELECT json_agg(json_build_object('orderId', order_id, 'points', points, 'expiresAt', expires_at)) AS holds
        FROM point_holds WHERE user_id = s.user_id AND released_at IS NULL
    ) h ON true
   WHERE s.user_id = $1`;

export async function getBalance(userId: string): Promise<Balance> {
  const { rows } = await pool.query(BALANCE_SQL, [userId]);
  if (rows.length === 0) {
    return { userId, points: 0, pending: 0, tier: 'green' };
  }
  const row = rows[0];
  const holds: Hold[] = row.holds ?? [];
  const pending = sumHolds(holds);
  const available = holds.length > 0 ? row.balance_points - pending : row.balance_points;
  return { userId, points: Number(available), pending, tier: row.tier };
}
