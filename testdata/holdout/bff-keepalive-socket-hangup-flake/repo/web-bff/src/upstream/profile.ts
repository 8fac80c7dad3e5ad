import { request } from 'undici';
import { upstreamAgent } from './agent';

const BASE = process.env.PROFILE_API_URL ?? 'http://profile-api.web.svc:8080';

export async function getProfile(userId: string, traceHeaders: Record<string, string>) {
  const res = await request(`${BASE}/v1/profiles/${userId}`, {
    method: 'GET',
    dispatcher: upstreamAgent,
    headers: { accept: 'application/json', ...traceHeaders },
  });
  if (res.statusCode !== 200) {
    throw new Error(`profile-api ${res.statusCode}`);
  }
  return res.body.json();
}
