import { Router } from "express";
import { request } from "undici";
import { logger } from "../logger";

const SEARCH_URL = process.env.LISTINGS_SEARCH_URL ?? "http://listings-search:8000";
export const searchRouter = Router();

searchRouter.get("/v2/search", async (req, res) => {
  const qs = new URLSearchParams(req.query as Record<string, string>).toString();
  const upstream = await request(`${SEARCH_URL}/search?${qs}`, { headersTimeout: 4000, bodyTimeout: 4000 });
  if (upstream.statusCode >= 500) {
    const body = await upstream.body.text();
    logger.error({ status: upstream.statusCode, path: "/search", body: body.slice(0, 200) }, "upstream listings-search error");
    return res.status(502).json({ error: "search_unavailable" });
  }
  res.status(upstream.statusCode).json(await upstream.body.json());
});
