import fp from 'fastify-plugin';
import { IdentityClient, IdentityError } from '../clients/identity';

declare module 'fastify' {
  interface FastifyRequest {
    subject?: string;
  }
}

export default fp(async (app) => {
  const identity = new IdentityClient(process.env.IDENTITY_URL ?? 'http://identity.auth.svc.cluster.local:8080',
    process.env.IDENTITY_CLIENT_SECRET ?? '');

  app.addHook('onRequest', async (req, reply) => {
    if (req.routeOptions.config?.public) return;
    const token = req.headers.authorization?.replace(/^Bearer /i, '');
    if (!token) return reply.code(401).send({ error: 'missing_token' });
    try {
      const info = await identity.introspect(token);
      if (!info.active) return reply.code(401).send({ error: 'invalid_token' });
      req.subject = info.sub;
    } catch (err) {
      req.log.error({ err }, 'token introspection failed');
      const status = err instanceof IdentityError && err.status === 401 ? 401 : 503;
      return reply.code(status).send({ error: 'auth_unavailable' });
    }
  });
});
