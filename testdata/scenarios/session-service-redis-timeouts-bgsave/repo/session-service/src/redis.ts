import Redis from 'ioredis';

export const redis = new Redis({
  host: process.env.REDIS_HOST ?? 'sessions-redis.edge.svc',
  port: 6379,
  commandTimeout: 50,
  maxRetriesPerRequest: 0,
  enableOfflineQueue: false,
});
