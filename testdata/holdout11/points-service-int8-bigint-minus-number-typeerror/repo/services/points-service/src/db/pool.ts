import { Pool, types } from 'pg';

// int8 (bigint) columns come back as strings by default. Ledger entry ids are
// int8 and overflow Number, so parse them as native BigInt (PLAT-412, 2025-03).
types.setTypeParser(20, (value: string) => BigInt(value));

export const pool = new Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.PG_POOL_MAX ?? 20),
  statement_timeout: 2000,
});
