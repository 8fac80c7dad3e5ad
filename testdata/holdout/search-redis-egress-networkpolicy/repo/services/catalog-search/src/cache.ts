import Redis from 'ioredis';
import { logger } from './logger';

// search-cache is a single-primary Redis StatefulSet in this namespace.
export const redis = new Redis({
  host: process.env.SEARCH_CACHE_HOST ?? 'search-cache.discovery.svc',
  port: 6379,
  connectTimeout: 2000,
  maxRetriesPerRequest: 3,
  enableOfflineQueue: true,
});

redis.on('error', (err) => logger.warn({ err }, 'search-cache connection error'));

const TTL_SECONDS = 120;

export async function cached<T>(key: string, load: () => Promise<T>): Promise<T> {
  const hit = await redis.get(key);
  if (hit) {
    return JSON.parse(hit) as T;
  }
  const value = await load();
  await redis.set(key, JSON.stringify(value), 'EX', TTL_SECONDS);
  return value;
}
