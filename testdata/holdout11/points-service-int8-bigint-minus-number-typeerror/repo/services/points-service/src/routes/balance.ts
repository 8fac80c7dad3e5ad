import { FastifyInstance } from 'fastify';
import { getBalance } from '../rewards/balance';

export async function balanceRoutes(app: FastifyInstance) {
  app.get<{ Params: { userId: string } }>('/v1/users/:userId/balance', async (req) => {
    return getBalance(req.params.userId);
  });
}
