import logging
import sys

from .db import due_payouts, mark_submitted
from .sepa import build_batch
from .sftp import upload

log = logging.getLogger("payout_batcher")


def main(run_date):
    payouts = due_payouts(run_date)
    batch_id = f"CRV-{run_date:%Y%m%d}-01"
    log.info("building batch %s with %d payouts, total EUR %s", batch_id, len(payouts), sum(p.amount for p in payouts))
    try:
        xml = build_batch(batch_id, DEBTOR, payouts)
    except Exception:
        log.exception("batch %s failed validation; nothing submitted", batch_id)
        sys.exit(2)
    upload(f"/outbound/{batch_id}.xml", xml)
    mark_submitted(payouts, batch_id)
