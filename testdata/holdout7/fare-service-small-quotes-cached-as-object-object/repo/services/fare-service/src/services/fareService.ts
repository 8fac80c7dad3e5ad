import { cacheKey, FareCache } from '../cache/fareCache';
import type { GdsClient } from '../clients/gdsClient';
import { logger } from '../logger';
import type { FareQuote, SearchKey } from '../types';

export class FareService {
  constructor(private readonly cache: FareCache, private readonly gds: GdsClient) {}

  /**
   * Cached fare search. A miss asks gds-gateway (which fans out to the
   * suppliers) and stores the merged quote for FARE_CACHE_TTL_SECONDS.
   */
  async search(k: SearchKey): Promise<FareQuote> {
    const key = cacheKey(k);
    const cached = await this.cache.getQuote(key);
    if (cached) {
      return { ...cached, source: 'cache' };
    }
    const quote = await this.gds.search(k);
    if (quote.offers.length === 0) {
      logger.info({ key }, 'no offers, not caching');
      return quote;
    }
    await this.cache.setQuote(key, quote);
    return { ...quote, source: 'live' };
  }
}
