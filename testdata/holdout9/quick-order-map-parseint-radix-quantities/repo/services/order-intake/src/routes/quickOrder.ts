import { Router } from "express";
import { z } from "zod";
import { inventory } from "../clients/inventory";
import { pricing } from "../clients/pricing";
import { logger } from "../logger";

export const quickOrder = Router();

// The quick-order form posts one field per column:
//   skus=BRW-IPA-330,BRW-STT-500,BRW-LGR-330&quantities=12,6,24
const QuickOrderBody = z.object({
  customerId: z.string().min(1),
  skus: z.string().min(1),
  quantities: z.string().min(1),
  deliveryDate: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
});

quickOrder.post("/api/quick-order", async (req, res) => {
  const body = QuickOrderBody.parse(req.body);
  const skus = body.skus.split(",").map((s) => s.trim());
  const quantities = body.quantities.split(",").map(parseInt);
  if (skus.length !== quantities.length) {
    return res.status(400).json({ error: "skus and quantities differ in length" });
  }
  const lines = skus.map((sku, i) => ({ sku, quantity: quantities[i] }));
  logger.info({ customerId: body.customerId, lines }, "quick order parsed");

  const prices = await pricing.quote(body.customerId, lines);
  const reservation = await inventory.reserve({
    customerId: body.customerId,
    deliveryDate: body.deliveryDate,
    lines,
  });
  if (!reservation.ok) {
    logger.warn({ customerId: body.customerId, status: reservation.status, detail: reservation.detail }, "reservation failed");
    return res.status(409).json({ error: "could_not_reserve", detail: reservation.detail });
  }
  res.status(201).json({ orderId: reservation.orderId, total: prices.total });
});
