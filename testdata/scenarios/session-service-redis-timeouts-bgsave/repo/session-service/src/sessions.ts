import { redis } from './redis';

export async function getSession(id: string) {
  const raw = await redis.get(`sess:${id}`);
  return raw ? JSON.parse(raw) : null;
}
