import { Router } from "express";
import { holdsClient, HoldExpiredError } from "./clients/holds";
import { payments } from "./clients/payments";
import { logger } from "./logger";

export const orders = Router();

orders.post("/api/orders", async (req, res) => {
  const { cartId, holdId, paymentMethod, note } = req.body;
  const order = await createDraftOrder(cartId, { note: note?.slice(0, 500) });
  try {
    await holdsClient.confirm(holdId, order.id);
  } catch (err) {
    if (err instanceof HoldExpiredError) {
      logger.error({ orderId: order.id, holdId, err: err.message }, "place order failed: stock hold expired");
      await cancelDraftOrder(order.id, "hold_expired");
      return res.status(409).json({ error: "ITEMS_NO_LONGER_RESERVED" });
    }
    throw err;
  }
  const auth = await payments.authorise(order, paymentMethod);
  if (!auth.ok) {
    await holdsClient.release(holdId);
    return res.status(402).json({ error: "PAYMENT_DECLINED" });
  }
  res.status(201).json({ orderId: order.id });
});

async function createDraftOrder(cartId: string, opts: { note?: string }) {
  return db.orders.insert({ cartId, status: "draft", note: opts.note ?? null });
}

async function cancelDraftOrder(id: string, reason: string) {
  return db.orders.update(id, { status: "cancelled", cancelReason: reason });
}
