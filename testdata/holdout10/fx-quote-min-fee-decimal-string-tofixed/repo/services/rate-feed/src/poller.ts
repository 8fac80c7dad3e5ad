import { fetchRates } from './provider';
import { publish } from './bus';
import { logger } from './logger';

const INTERVAL_MS = Number(process.env.POLL_INTERVAL_MS ?? 15_000);

export function start() {
  setInterval(async () => {
    try {
      const rates = await fetchRates();
      await publish('fx.rates.mid', rates);
    } catch (err) {
      logger.error({ err }, 'rate poll failed');
    }
  }, INTERVAL_MS);
}
