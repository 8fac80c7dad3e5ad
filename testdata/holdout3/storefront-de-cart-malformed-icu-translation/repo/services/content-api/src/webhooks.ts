import type { FastifyInstance } from "fastify";
import { bundles } from "./bundles";

/** Contentful publish/unpublish webhooks: drop the cached bundle of the entry's locales. */
export async function webhooks(app: FastifyInstance) {
  app.post("/webhooks/contentful", async (req, reply) => {
    const topic = String(req.headers["x-contentful-topic"] ?? "");
    const entry = req.body as { sys: { id: string; contentType?: { sys: { id: string } }; updatedBy?: { sys: { id: string } } }; fields?: Record<string, Record<string, unknown>> };
    if (entry.sys.contentType?.sys.id === "translation") {
      const locales = Object.keys(entry.fields?.value ?? {});
      locales.forEach((l) => bundles.invalidate(l));
      req.log.info({ topic, entryId: entry.sys.id, key: entry.fields?.key?.["en-GB"], locales }, "translation entry changed, bundles invalidated");
    }
    return reply.code(204).send();
  });
}
