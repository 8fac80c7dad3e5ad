import { request } from "undici";
import { logger } from "./logger";

const BASE = process.env.DHL_API_BASE ?? "https://api-eu.dhl.com/parcel/de/shipping/v2";

export interface Quote {
  carrier: "dhl";
  service: string;
  priceCents: number;
  etaDays: number;
}

export async function quoteDhl(weightGrams: number, from: string, to: string): Promise<Quote | null> {
  const res = await request(`${BASE}/rates`, {
    method: "POST",
    headers: { "content-type": "application/json", "dhl-api-key": process.env.DHL_API_KEY ?? "" },
    body: JSON.stringify({ weight: { value: weightGrams, unit: "g" }, origin: from, destination: to }),
    headersTimeout: 2500,
  });
  if (res.statusCode === 429) {
    // DHL rate limits bursts; the caller falls back to the cached table.
    logger.warn({ status: 429, retryAfter: res.headers["retry-after"] }, "dhl rate limited, using cached rate table");
    await res.body.dump();
    return null;
  }
  if (res.statusCode >= 400) {
    throw new Error(`dhl rates: HTTP ${res.statusCode}`);
  }
  const body: any = await res.body.json();
  return { carrier: "dhl", service: body.product, priceCents: Math.round(body.price.amount * 100), etaDays: body.transitDays };
}
