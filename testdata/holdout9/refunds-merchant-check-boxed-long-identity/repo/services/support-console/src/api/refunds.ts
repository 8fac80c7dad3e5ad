import { Router } from "express";
import { requireRole } from "../auth";
import { logger } from "../logger";

const REFUNDS_URL = process.env.REFUNDS_URL ?? "http://refunds-service:8080";
export const refunds = Router();

refunds.post("/api/refunds", requireRole("refunds:create"), async (req, res) => {
  const r = await fetch(`${REFUNDS_URL}/v1/refunds`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-agent-id": req.user.sub },
    body: JSON.stringify({ ...req.body, agentId: req.user.sub }),
  });
  if (!r.ok) {
    const body = await r.text();
    logger.error({ status: r.status, orderId: req.body.orderId, body }, "refund request failed");
    return res.status(r.status).json({ error: "refund_failed", status: r.status });
  }
  res.status(201).json(await r.json());
});
