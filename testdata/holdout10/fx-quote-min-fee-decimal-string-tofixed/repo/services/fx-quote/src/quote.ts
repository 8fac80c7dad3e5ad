import { Pool } from 'pg';
import { RateCache } from './rates';
import { logger } from './logger';

export interface QuoteRequest { corridor: string; sendAmount: number; sendCurrency: string; receiveCurrency: string }
export interface Quote { rate: string; fee: string; receiveAmount: string; expiresAt: string }

interface CorridorPricing { margin_bps: number; fee_pct: number; min_fee: number }

async function pricing(db: Pool, corridor: string): Promise<CorridorPricing> {
  const { rows } = await db.query<CorridorPricing>(
    'SELECT margin_bps, fee_pct, min_fee FROM corridor_pricing WHERE corridor = $1 AND active',
    [corridor],
  );
  if (rows.length === 0) throw new Error(`no active pricing for corridor ${corridor}`);
  return rows[0];
}

export async function quote(db: Pool, rates: RateCache, req: QuoteRequest): Promise<Quote> {
  const p = await pricing(db, req.corridor);
  const mid = await rates.mid(req.sendCurrency, req.receiveCurrency);
  const rate = mid * (1 - p.margin_bps / 10000);
  const pct = req.sendAmount * p.fee_pct;
  const fee = pct < p.min_fee ? p.min_fee : pct;
  const receive = (req.sendAmount - fee) * rate;
  logger.debug({ corridor: req.corridor, margin_bps: p.margin_bps, fee }, 'priced quote');
  return {
    rate: rate.toFixed(6),
    fee: fee.toFixed(2),
    receiveAmount: receive.toFixed(2),
    expiresAt: new Date(Date.now() + 30_000).toISOString(),
  };
}
