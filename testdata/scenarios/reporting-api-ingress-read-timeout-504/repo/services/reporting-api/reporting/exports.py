import csv
import io

from flask import Blueprint, Response, request

from reporting.warehouse import run_query

bp = Blueprint("exports", __name__)


@bp.get("/api/exports/<report_id>.csv")
def export_csv(report_id: str):
    rows = run_query(report_id, quarter=request.args.get("quarter"))
    buf = io.StringIO()
    w = csv.writer(buf)
    for row in rows:
        w.writerow(row)
    return Response(buf.getvalue(), mimetype="text/csv")
