import CircuitBreaker from 'opossum';
import { request } from 'undici';

/**
 * web-bff's introspection: one attempt per request behind a circuit breaker,
 * so an identity outage degrades the web app instead of piling onto identity.
 */
async function introspectOnce(baseUrl: string, token: string): Promise<{ active: boolean; sub?: string }> {
  const res = await request(`${baseUrl}/oauth2/introspect`, {
    method: 'POST',
    headersTimeout: 1000,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new Error(`introspection status ${res.statusCode}`);
  }
  return (await res.body.json()) as { active: boolean; sub?: string };
}

export const introspect = new CircuitBreaker(introspectOnce, {
  timeout: 1200,
  errorThresholdPercentage: 25,
  resetTimeout: 10_000,
  volumeThreshold: 20,
});
