"""Nightly/ad-hoc import of customer addresses exported from the CRM (HubSpot -> CSV)."""
import csv

from ..db import upsert_address


def import_file(path, source):
    n = 0
    with open(path, newline="", encoding="utf-8-sig") as f:
        for row in csv.DictReader(f):
            upsert_address(
                customer_id=row["customer_id"],
                line1=row["street"],
                city=row["city"],
                region=row["state"],
                postal_code=row["zip"].strip(),
                country=row["country"] or "US",
                source=source,
            )
            n += 1
    return n
