import type { FastifyInstance } from 'fastify';
import { refundOrder } from '../orders/refund';
import { audit } from '../clients/audit';

export async function refundRoutes(app: FastifyInstance) {
  app.post('/v1/orders/:id/refunds', async (req, reply) => {
    const { id } = req.params as { id: string };
    const refund = await refundOrder(id, req.body as { lines: string[] }, req.log);
    await audit
      .record({ type: 'order.refunded', orderId: id, refundId: refund.id })
      .catch((err) => req.log.warn({ err }, 'audit event not recorded'));
    return reply.code(201).send(refund);
  });
}
