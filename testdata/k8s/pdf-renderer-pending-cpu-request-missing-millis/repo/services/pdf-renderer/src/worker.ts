import { Worker, Job } from "bullmq";
import IORedis from "ioredis";
import pino from "pino";
import { launchBrowser, renderPdf } from "./render";
import { uploadPdf } from "./storage";
import { templates } from "./templates";
import { metrics, startMetricsServer } from "./metrics";

const log = pino({ level: process.env.LOG_LEVEL ?? "info" });
const connection = new IORedis(process.env.REDIS_URL ?? "redis://localhost:6379", { maxRetriesPerRequest: null });
const concurrency = Number(process.env.WORKER_CONCURRENCY ?? "2");

export interface RenderJob {
  tenantId: string;
  documentId: string;
  template: keyof typeof templates;
  period?: string;
}

async function main() {
  const browser = await launchBrowser();
  startMetricsServer(9464);

  const worker = new Worker<RenderJob>(
    process.env.QUEUE_NAME ?? "pdf-render",
    async (job: Job<RenderJob>) => {
      const started = Date.now();
      const tpl = templates[job.data.template];
      const html = await tpl.render(job.data);
      const pdf = await renderPdf(browser, html);
      const key = await uploadPdf(job.data.tenantId, job.data.documentId, pdf.buffer);
      const ms = Date.now() - started;
      metrics.renderSeconds.observe({ template: job.data.template }, ms / 1000);
      log.info({ jobId: job.id, template: job.data.template, pages: pdf.pages, ms, key }, "render complete");
      return { key };
    },
    { connection, concurrency, lockDuration: 120_000 },
  );

  worker.on("failed", (job, err) => {
    log.error({ jobId: job?.id, err }, "render failed");
  });
  log.info({ concurrency }, "pdf-renderer worker started");
}

main().catch((err) => {
  log.fatal({ err }, "worker crashed");
  process.exit(1);
});
