import type { Request, Response } from "express";
import { stringify } from "csv-stringify";
import { streamReportLines } from "./repository";

export async function exportCsv(req: Request, res: Response) {
  res.setHeader("Content-Type", "text/csv");
  const rows = streamReportLines(req.tenant.id, req.params.id);
  rows.pipe(stringify({ header: true })).pipe(res);
}
