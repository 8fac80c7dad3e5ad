import type { FastifyInstance } from 'fastify';
import type { FareService } from '../services/fareService';
import { parseSearchKey } from '../types';

export async function searchRoutes(app: FastifyInstance, opts: { fares: FareService }) {
  app.post('/v2/fares/search', async (req, reply) => {
    const key = parseSearchKey(req.body);
    const quote = await opts.fares.search(key);
    return reply.send(quote);
  });
}
