import { Agent, fetch } from "undici";
import { logger } from "./logger";

const agent = new Agent({
  connect: { timeout: Number(process.env.PAYMENTS_CONNECT_TIMEOUT_MS ?? "10000"), ca: process.env.INTERNAL_CA },
  keepAliveTimeout: 30_000,
  connections: 64,
});
const base = process.env.PAYMENTS_API_URL ?? "https://payments-api.payments.svc.cluster.local:8443";

export interface PaymentIntent { id: string; status: "requires_action" | "succeeded" | "failed"; }

export async function createPaymentIntent(orderId: string, amountMinor: number, currency: string, idempotencyKey: string): Promise<PaymentIntent> {
  const res = await fetch(`${base}/v1/payment-intents`, {
    method: "POST",
    dispatcher: agent,
    headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
    body: JSON.stringify({ orderId, amountMinor, currency }),
  });
  if (!res.ok) {
    throw new Error(`payments-api ${res.status}`);
  }
  return (await res.json()) as PaymentIntent;
}
