import { gunzipSync, gzipSync } from 'node:zlib';
import type { Redis } from 'ioredis';
import { logger } from '../logger';
import { cacheRequests } from '../metrics';
import type { FareQuote, SearchKey } from '../types';

const TTL_SECONDS = Number(process.env.FARE_CACHE_TTL_SECONDS ?? 300);
// Round trips with many carriers produce 300-900 KB quotes; compress those so the
// cache fits in the 6 GB node again. Small quotes are stored as plain JSON.
const COMPRESS_THRESHOLD_BYTES = Number(process.env.FARE_CACHE_COMPRESS_THRESHOLD ?? 16384);
const GZ_PREFIX = 'gz:';

export function cacheKey(k: SearchKey): string {
  const pax = `${k.adults}a${k.children}c${k.infants}i`;
  return `fq:v4:${k.origin}:${k.destination}:${k.departDate}:${k.returnDate ?? '-'}:${k.cabin}:${pax}:${k.currency}`;
}

export class FareCache {
  constructor(private readonly redis: Redis) {}

  async getQuote(key: string): Promise<FareQuote | undefined> {
    const raw = await this.redis.get(key);
    if (raw === null) {
      cacheRequests.inc({ result: 'miss' });
      return undefined;
    }
    cacheRequests.inc({ result: 'hit' });
    const json = raw.startsWith(GZ_PREFIX)
      ? gunzipSync(Buffer.from(raw.slice(GZ_PREFIX.length), 'base64')).toString('utf8')
      : raw;
    return JSON.parse(json) as FareQuote;
  }

  async setQuote(key: string, quote: any): Promise<void> {
    try {
      const json = JSON.stringify(quote);
      const payload =
        json.length > COMPRESS_THRESHOLD_BYTES ? GZ_PREFIX + gzipSync(json).toString('base64') : quote;
      await this.redis.set(key, payload, 'EX', TTL_SECONDS);
    } catch (err) {
      logger.warn({ err, key }, 'fare cache write failed');
    }
  }
}
