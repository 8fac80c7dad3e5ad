import { request } from 'undici';
import type { SearchRequest } from '../schemas';

const FARE_URL = process.env.FARE_SERVICE_URL ?? 'http://fare-service.flights.svc:8080';

export async function searchFares(req: SearchRequest, signal?: AbortSignal) {
  const res = await request(`${FARE_URL}/v2/fares/search`, {
    method: 'POST',
    body: JSON.stringify(req),
    headers: { 'content-type': 'application/json' },
    // multi-city searches fan out to 3-4 legs; 2.5s cut the slowest leg too often
    headersTimeout: 4000,
    signal,
  });
  if (res.statusCode !== 200) {
    throw new FareServiceError(res.statusCode, await res.body.text());
  }
  return res.body.json();
}

export class FareServiceError extends Error {
  constructor(readonly status: number, readonly body: string) {
    super(`fare-service responded ${status}`);
  }
}
