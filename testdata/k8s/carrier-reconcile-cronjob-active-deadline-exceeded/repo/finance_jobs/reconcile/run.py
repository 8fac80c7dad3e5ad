import logging
import signal
import sys
import time

from finance_jobs import carriers, db, fx
from finance_jobs.reconcile.matching import match_batch

log = logging.getLogger("finance_jobs.reconcile")


def run(period, batch_size):
    started = time.monotonic()
    stop = {"flag": False}

    def on_term(signum, frame):
        stop["flag"] = True

    signal.signal(signal.SIGTERM, on_term)
    log.info("starting carrier invoice reconciliation period=%s batch_size=%d", period.label, batch_size)
    invoices = carriers.load_invoices(period)
    log.info("loaded carrier invoices carriers=%d invoices=%d lines=%d", len(invoices.carriers), invoices.count, invoices.lines)
    shipments = db.shipments_for(period)
    log.info("loaded shipments count=%d", len(shipments))
    rates = fx.rates_for(period)  # falls back to the previous business day if the source has no fix yet
    batches = list(invoices.batches(batch_size))
    for i, batch in enumerate(batches, 1):
        if stop["flag"]:
            log.warning("received SIGTERM, aborting: %d/%d batches committed", i - 1, len(batches))
            sys.exit(143)
        res = match_batch(batch, shipments, rates)
        db.commit_results(res)
        log.info("reconciled batch %d/%d carrier=%s matched=%d mismatched=%d overbilled_eur=%.2f",
                 i, len(batches), batch.carrier, res.matched, res.mismatched, res.overbilled_eur)
        for inv in res.flagged:
            log.debug("flagged invoice id=%s reason=%s", inv.id, inv.reason)
    log.info("reconciliation finished batches=%d duration_s=%d", len(batches), time.monotonic() - started)
