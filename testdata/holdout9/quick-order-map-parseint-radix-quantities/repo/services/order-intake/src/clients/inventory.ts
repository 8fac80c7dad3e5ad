import { request } from "undici";

const BASE = process.env.INVENTORY_URL ?? "http://inventory-api:8080";

export const inventory = {
  async reserve(body: unknown): Promise<{ ok: boolean; status: number; orderId?: string; detail?: string }> {
    const r = await request(`${BASE}/v1/reservations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json: any = await r.body.json();
    if (r.statusCode >= 400) return { ok: false, status: r.statusCode, detail: json.error };
    return { ok: true, status: r.statusCode, orderId: json.order_id };
  },
};
