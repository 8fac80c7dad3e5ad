import csv
import io
import logging

from .rows import parse_row, RowRejected
from .store import upsert_prices, delist_missing

log = logging.getLogger("catalog_import")


def run(supplier: str, blob: bytes) -> None:
    reader = csv.DictReader(io.StringIO(blob.decode("utf-8-sig")), delimiter=";")
    ok, rejected, seen = [], 0, set()
    for n, raw in enumerate(reader, start=2):
        try:
            row = parse_row(raw)
        except RowRejected as e:
            rejected += 1
            log.warning("supplier=%s line=%d row rejected: %s", supplier, n, e)
            continue
        ok.append(row)
        seen.add(row.gtin)
    upsert_prices(supplier, ok)
    delisted = delist_missing(supplier, seen)
    log.info("supplier=%s imported=%d rejected=%d delisted=%d", supplier, len(ok), rejected, delisted)
