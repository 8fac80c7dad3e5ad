import { Router } from "express";
import { exportCsv } from "./exportCsv";
import { exportXlsx } from "./exportXlsx";
import { getReport, listReports } from "./handlers";

export const reports = Router();

reports.get("/v1/reports", listReports);
reports.get("/v1/reports/:id", getReport);
reports.get("/v1/reports/:id/export.csv", exportCsv);
reports.get("/v1/reports/:id/export.xlsx", exportXlsx);
