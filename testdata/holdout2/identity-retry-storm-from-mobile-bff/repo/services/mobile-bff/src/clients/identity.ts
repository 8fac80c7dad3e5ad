import { Agent, request } from 'undici';
import { logger } from '../logger';

export interface Introspection {
  active: boolean;
  sub?: string;
  scope?: string;
  clientId?: string;
  exp?: number;
}

/** Attempts per introspection (1 + retries). */
const MAX_ATTEMPTS = 5;
const TIMEOUT_MS = 800;

const agent = new Agent({ connections: 64, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });

export class IdentityError extends Error {
  constructor(message: string, readonly status?: number, readonly code?: string) {
    super(message);
    this.name = 'IdentityError';
  }
}

function isTransient(err: unknown): boolean {
  if (err instanceof IdentityError) {
    return err.status === undefined || err.status >= 500;
  }
  return true; // timeouts, resets, DNS
}

export class IdentityClient {
  constructor(private readonly baseUrl: string, private readonly clientSecret: string) {}

  /**
   * RFC 7662 token introspection. Every authenticated mobile request goes
   * through here, so a transient identity error must not log the user out.
   */
  async introspect(token: string): Promise<Introspection> {
    let lastErr: unknown;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      try {
        return await this.post(token);
      } catch (err) {
        lastErr = err;
        if (!isTransient(err) || attempt === MAX_ATTEMPTS) break;
        logger.debug({ attempt, err }, 'introspection failed, retrying');
      }
    }
    throw lastErr;
  }

  private async post(token: string): Promise<Introspection> {
    const res = await request(`${this.baseUrl}/oauth2/introspect`, {
      method: 'POST',
      dispatcher: agent,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`mobile-bff:${this.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
    });
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new IdentityError(`introspection failed with status ${res.statusCode}`, res.statusCode);
    }
    const body = (await res.body.json()) as Record<string, unknown>;
    return {
      active: body.active === true,
      sub: body.sub as string | undefined,
      scope: body.scope as string | undefined,
      clientId: body.client_id as string | undefined,
      exp: body.exp as number | undefined,
    };
  }
}
