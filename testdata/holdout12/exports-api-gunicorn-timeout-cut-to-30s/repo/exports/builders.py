import csv
import io

from django.db import connection


def build_ledger_csv(tenant, period):
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["date", "account", "description", "debit", "credit", "balance"])
    with connection.cursor() as cur:
        cur.execute("SELECT id, code FROM accounts WHERE tenant_id = %s ORDER BY code", [tenant.id])
        for account_id, code in cur.fetchall():
            cur.execute(
                "SELECT booked_on, description, debit, credit, running_balance FROM ledger_lines "
                "WHERE tenant_id = %s AND account_id = %s AND period = %s ORDER BY booked_on, id",
                [tenant.id, account_id, period],
            )
            for booked_on, desc, debit, credit, bal in cur.fetchall():
                w.writerow([booked_on.isoformat(), code, desc, debit, credit, bal])
    return buf.getvalue()


def build_vat_xlsx(tenant, quarter):
    from .xlsx import render_vat_return
    return render_vat_return(tenant, quarter)
