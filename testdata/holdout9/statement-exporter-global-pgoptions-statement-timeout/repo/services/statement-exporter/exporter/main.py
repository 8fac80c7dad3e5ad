"""Hourly export of booked transactions to the partner bank's SFTP drop."""
import csv
import io
import logging
import os
import sys
from datetime import datetime, timedelta, timezone

import psycopg

from exporter.masking import mask_iban
from exporter.sftp import upload

log = logging.getLogger("statement_exporter")

QUERY = """
SELECT t.id, t.booked_at, a.iban, t.amount_minor, t.currency, t.counterparty_iban, t.reference
FROM transactions t
JOIN accounts a ON a.id = t.account_id
WHERE t.booked_at >= %(since)s AND t.booked_at < %(until)s
  AND a.partner_code = 'NORDBANK'
ORDER BY t.booked_at, t.id
"""


def main() -> int:
    until = datetime.now(timezone.utc).replace(minute=0, second=0, microsecond=0)
    since = until - timedelta(hours=1)
    log.info("exporting statements window=%s..%s", since.isoformat(), until.isoformat())
    with psycopg.connect() as conn, conn.cursor(name="statement_export") as cur:
        cur.itersize = 5000
        cur.execute(QUERY, {"since": since, "until": until})
        buf = io.StringIO()
        w = csv.writer(buf, delimiter=";")
        n = 0
        for row in cur:
            w.writerow([row[0], row[1].isoformat(), mask_iban(row[2]), row[3], row[4], mask_iban(row[5]), row[6]])
            n += 1
    name = "NORDBANK_%s.csv" % since.strftime("%Y%m%d%H")
    upload(os.environ["SFTP_TARGET"], name, buf.getvalue().encode())
    log.info("uploaded %s rows=%d", name, n)
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    sys.exit(main())
