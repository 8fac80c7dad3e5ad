import type { FastifyInstance } from 'fastify';
import { createComment } from '../comments/createComment';

export default async function routes(app: FastifyInstance) {
  app.post<{ Params: { threadId: string }; Body: { body: string } }>('/threads/:threadId/comments', async (req, reply) => {
    const body = req.body.body?.trim();
    if (!body || body.length > 5000) {
      return reply.code(400).send({ error: 'invalid_body' });
    }
    const comment = await createComment(app.pg, { threadId: req.params.threadId, authorId: req.user.id, body });
    return reply.code(201).send(comment);
  });
}
