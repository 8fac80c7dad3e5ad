import { Router } from "express";
import { logger } from "../logger";
import { requireSession } from "../session";

const BILLING = process.env.BILLING_HISTORY_URL ?? "http://billing-history.voltera.internal:8000";

export const billing = Router();

// The portal's billing history tabs. billing-history errors become 502 so the
// page shows "something went wrong, try again later".
for (const kind of ["invoices", "payments"] as const) {
  billing.get(`/api/billing/${kind}`, requireSession, async (req, res) => {
    const page = Number(req.query.page ?? 1);
    const url = `${BILLING}/v1/accounts/${req.session.accountId}/${kind}?page=${page}&page_size=12`;
    const upstream = await fetch(url, { headers: { authorization: `Bearer ${req.session.serviceToken}` } });
    if (!upstream.ok) {
      logger.error({ route: req.route.path, upstream: "billing-history", status: upstream.status }, `billing-history responded ${upstream.status}`);
      return res.status(502).json({ error: "billing_unavailable" });
    }
    res.json(await upstream.json());
  });
}
