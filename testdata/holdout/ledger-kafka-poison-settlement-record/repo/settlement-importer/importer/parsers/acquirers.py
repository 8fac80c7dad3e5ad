"""Acquirer settlement file parsers. Each returns dicts ready to publish."""
import csv
from decimal import Decimal


def parse_nordpay(fh):
    for row in csv.DictReader(fh, delimiter=";"):
        yield {"settlementId": row["id"], "acquirer": "nordpay", "merchantId": row["mid"], "currency": row["ccy"],
               "grossAmount": str(Decimal(row["gross"])), "feeAmount": str(Decimal(row["fee"])), "settledAt": row["settled_at"]}


def parse_rheinpay(fh):
    # Rheinpay joined in January 2026; files are semicolon-separated.
    for row in csv.DictReader(fh, delimiter=";"):
        yield {"settlementId": row["Referenz"], "acquirer": "rheinpay", "merchantId": row["Haendler"], "currency": row["Waehrung"],
               "grossAmount": row["Brutto"], "feeAmount": row["Gebuehr"], "settledAt": row["Valuta"]}
