import type { FastifyInstance } from 'fastify';
import { errors } from '@elastic/elasticsearch';
import type { ProgressStore } from '../store/progressStore';
import { esRequests } from '../metrics';

export async function progressRoutes(app: FastifyInstance, opts: { store: ProgressStore }) {
  app.put('/v1/progress/:profileId/:titleId', async (req, reply) => {
    const { profileId, titleId } = req.params as { profileId: string; titleId: string };
    const body = req.body as { position_s: number; duration_s: number; device: string; event: string };
    try {
      await opts.store.save({ profileId, titleId, positionS: body.position_s, durationS: body.duration_s, device: body.device });
    } catch (err) {
      if (err instanceof errors.ResponseError) {
        esRequests.inc({ op: 'update', result: String(err.statusCode) });
        req.log.warn({ err: { type: err.name, message: err.message, statusCode: err.statusCode }, profileId, titleId, event: body.event },
          'progress write failed');
        return reply.code(503).header('retry-after', '5').send({ error: 'progress_unavailable' });
      }
      throw err;
    }
    return reply.code(204).send();
  });
}
