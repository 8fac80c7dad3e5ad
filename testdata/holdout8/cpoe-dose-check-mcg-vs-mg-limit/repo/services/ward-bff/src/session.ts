import { Request, Response, NextFunction } from 'express';
import { logger } from './logger';
import { refreshToken, TokenSet } from './oidc';

// Tokens are refreshed a minute before they expire. Kiosk sessions on the
// wards are shared and may sit idle for hours: their refresh token is gone by
// then and the user is sent back to the login page.
export async function ensureFreshToken(req: Request, res: Response, next: NextFunction) {
  const tokens = req.session.tokens as TokenSet | undefined;
  if (!tokens) return next();
  if (tokens.expiresAt - Date.now() > 60_000) return next();
  try {
    req.session.tokens = await refreshToken(tokens.refreshToken);
    next();
  } catch (err) {
    logger.warn({ err, sid: req.sessionID }, 'session refresh failed, redirecting to login');
    req.session.destroy(() => res.redirect('/login'));
  }
}
