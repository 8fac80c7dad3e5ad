"""Parsing of carrier status feeds (CSV, one row per shipment event)."""
from __future__ import annotations

import csv
import datetime as dt
from dataclasses import dataclass


@dataclass
class StatusRow:
    shipment_id: str
    carrier: str
    status: str
    weight_kg: float
    event_time: dt.datetime


def parse_row(raw: dict, carrier: str) -> StatusRow:
    return StatusRow(
        shipment_id=raw["shipment_id"].strip(),
        carrier=carrier,
        status=raw["status"].strip().upper(),
        weight_kg=float(raw["weight_kg"]),
        event_time=dt.datetime.fromisoformat(raw["event_time"]),
    )


def parse_feed(fp, carrier: str):
    for lineno, raw in enumerate(csv.DictReader(fp, delimiter=";"), start=2):
        yield lineno, raw
