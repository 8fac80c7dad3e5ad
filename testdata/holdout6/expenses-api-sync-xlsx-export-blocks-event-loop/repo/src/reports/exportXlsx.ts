import type { Request, Response } from "express";
import * as XLSX from "xlsx";
import { loadReportLines } from "./repository";
import { logger } from "../logger";

const COLUMNS = ["date", "merchant", "category", "amount", "currency", "vatAmount", "employee", "costCenter", "status"];

export async function exportXlsx(req: Request, res: Response) {
  const reportId = req.params.id;
  const started = Date.now();
  const lines = await loadReportLines(req.tenant.id, reportId);
  const sheet = XLSX.utils.json_to_sheet(lines, { header: COLUMNS });
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, sheet, "Expenses");
  const buf: Buffer = XLSX.write(wb, { type: "buffer", bookType: "xlsx", compression: true });
  logger.info({ reportId, rows: lines.length, ms: Date.now() - started }, "xlsx export built");
  res.setHeader("Content-Type", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
  res.setHeader("Content-Disposition", `attachment; filename="report-${reportId}.xlsx"`);
  res.send(buf);
}
