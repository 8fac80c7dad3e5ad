"""Seat map cache on memcached.

Rendering a seat map from Postgres costs ~120 ms for a stadium; the rendered
JSON is cached per (event, section) and invalidated on every hold/sale.
"""
from __future__ import annotations

import json

from django.conf import settings
from pymemcache.client.base import Client

# One client per process; pymemcache keeps a single socket per client.
client = Client(
    settings.SEATMAP_MEMCACHED,
    connect_timeout=0.2,
    timeout=0.3,
    no_delay=True,
    default_noreply=False,
)

TTL = 30


def key(event_id: str, section: str) -> str:
    return f"seatmap:{event_id}:{section}"


def get_section(event_id: str, section: str) -> dict | None:
    raw = client.get(key(event_id, section))
    return json.loads(raw) if raw is not None else None


def put_section(event_id: str, section: str, doc: dict) -> None:
    client.set(key(event_id, section), json.dumps(doc, separators=(",", ":")), expire=TTL)


def invalidate(event_id: str, section: str) -> None:
    client.delete(key(event_id, section))
