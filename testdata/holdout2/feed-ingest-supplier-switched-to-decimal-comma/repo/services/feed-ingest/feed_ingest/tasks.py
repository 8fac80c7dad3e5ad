"""Celery tasks: one import per supplier feed, scheduled by beat every 30 min."""
from __future__ import annotations

import csv
import io

import httpx
import structlog
from celery import shared_task

from feed_ingest import metrics
from feed_ingest.config import supplier_config
from feed_ingest.db import upsert_offers
from feed_ingest.errors import FeedRejected
from feed_ingest.parsing import RowError, parse_row

log = structlog.get_logger(__name__)

MAX_REJECTED_RATIO = 0.5
# Large feeds (100k+ rows) are written in chunks to keep worker memory flat.
CHUNK_ROWS = 5_000


@shared_task(name="feeds.import_supplier_feed", bind=True, acks_late=True)
def import_supplier_feed(self, supplier_id: int) -> dict:
    cfg = supplier_config(supplier_id)
    resp = httpx.get(cfg.url, timeout=60, headers=cfg.headers)
    resp.raise_for_status()
    reader = csv.DictReader(io.StringIO(resp.content.decode(cfg.format.encoding)), delimiter=cfg.format.delimiter)

    offers, rejected, first_error, total = [], 0, None, 0
    for line_no, row in enumerate(reader, start=2):
        try:
            offers.append(parse_row(row, cfg.format))
        except RowError as exc:
            rejected += 1
            first_error = first_error or f"line {line_no}: {exc}"
        total += 1
        if len(offers) >= CHUNK_ROWS:
            upsert_offers(supplier_id, offers)
            offers.clear()
    metrics.ROWS.labels(supplier=str(supplier_id), outcome="accepted").inc(total - rejected)
    metrics.ROWS.labels(supplier=str(supplier_id), outcome="rejected").inc(rejected)
    if total and rejected / total > MAX_REJECTED_RATIO:
        raise FeedRejected(f"supplier {supplier_id}: {rejected} of {total} rows rejected (first error at {first_error})")
    upsert_offers(supplier_id, offers)
    metrics.LAST_SUCCESS.labels(supplier=str(supplier_id)).set_to_current_time()
    log.info("feed imported", supplier=supplier_id, accepted=total - rejected, rejected=rejected)
    return {"accepted": total - rejected, "rejected": rejected}
