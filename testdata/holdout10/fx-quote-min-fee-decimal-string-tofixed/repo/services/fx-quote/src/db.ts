import { Pool } from 'pg';

// CockroachDB speaks the Postgres wire protocol; DECIMAL columns arrive as strings (node-postgres default).
export const db = new Pool({
  connectionString: process.env.DATABASE_URL,
  max: 20,
  idleTimeoutMillis: 30_000,
  application_name: 'fx-quote',
});
