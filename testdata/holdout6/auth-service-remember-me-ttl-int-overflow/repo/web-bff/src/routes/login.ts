import { Router } from "express";
import { authClient } from "../clients/auth";

export const login = Router();

login.post("/api/login", async (req, res) => {
  const { tenantId, email, password, rememberMe } = req.body;
  const r = await authClient.post("/v1/sessions", { tenantId, email, password, rememberMe: !!rememberMe });
  res.cookie("sid", r.data.sessionToken, { httpOnly: true, secure: true, sameSite: "lax" });
  if (r.data.rememberMeToken) {
    res.cookie("rm", r.data.rememberMeToken, { httpOnly: true, secure: true, maxAge: 30 * 86400_000 });
  }
  res.json({ ok: true });
});
