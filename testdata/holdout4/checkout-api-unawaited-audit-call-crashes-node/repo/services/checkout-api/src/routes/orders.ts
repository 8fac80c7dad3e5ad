import type { FastifyInstance } from 'fastify';
import { placeOrder, type PlaceOrderInput } from '../orders/placeOrder';
import { audit } from '../clients/audit';

export async function orderRoutes(app: FastifyInstance) {
  app.post('/v1/orders', async (req, reply) => {
    const order = await placeOrder(req.body as PlaceOrderInput, req.log);
    for (const promo of order.appliedPromotions) {
      audit.record({ type: 'promotion.redeemed', orderId: order.id, promotionId: promo.id, code: promo.code });
    }
    return reply.code(201).send(order);
  });

  app.get('/v1/orders/:id', async (req, reply) => {
    const { id } = req.params as { id: string };
    const order = await app.orders.find(id);
    return order ? reply.send(order) : reply.code(404).send({ error: 'not_found' });
  });
}
