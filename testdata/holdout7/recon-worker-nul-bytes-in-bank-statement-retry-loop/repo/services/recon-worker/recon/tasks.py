import logging

from celery import shared_task
from sqlalchemy.exc import OperationalError

from recon import camt, matching, storage
from recon.db import session_scope

log = logging.getLogger(__name__)


@shared_task(bind=True, acks_late=True, max_retries=None, default_retry_delay=300)
def import_statement(self, bucket: str, key: str):
    """Import one camt.052/053 file and reconcile the payouts it settles.

    A statement is imported atomically: either every entry is stored or none,
    so a retry never double-books. Intraday camt.052 files are cumulative.
    """
    raw = storage.fetch(bucket, key)
    statement = camt.parse(raw)
    log.info("parsed statement %s account=%s entries=%d", key, statement.account_iban, len(statement.entries))
    try:
        with session_scope() as s:
            stored = storage.upsert_entries(s, statement)
            settled = matching.settle_payouts(s, statement.account_iban, stored)
    except OperationalError as exc:
        raise self.retry(exc=exc)
    except Exception as exc:
        log.warning("statement %s not imported, will retry: %r", key, exc)
        raise self.retry(exc=exc)
    log.info("statement %s imported: %d new entries, %d payouts settled", key, len(stored), settled)
