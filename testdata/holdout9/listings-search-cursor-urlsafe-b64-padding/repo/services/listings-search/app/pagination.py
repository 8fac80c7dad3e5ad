"""Opaque keyset cursors for search result pages.

A cursor carries the sort values and id of the last hit on the previous page,
so page N+1 is an Elasticsearch search_after query instead of a deep from/size.
"""
import base64
import json
from dataclasses import dataclass
from typing import Any, Optional

from fastapi import HTTPException

CURSOR_VERSION = 2


@dataclass(frozen=True)
class Cursor:
    sort: list[Any]
    last_id: str
    version: int = CURSOR_VERSION


def encode_cursor(sort: list[Any], last_id: str) -> str:
    payload = json.dumps({"v": CURSOR_VERSION, "s": sort, "id": last_id}, separators=(",", ":"))
    # URL-safe alphabet, no padding: the apps pass the cursor back in a query string
    return base64.urlsafe_b64encode(payload.encode()).rstrip(b"=").decode()


def decode_cursor(cursor: Optional[str]) -> Optional[Cursor]:
    if not cursor:
        return None
    raw = base64.b64decode(cursor)
    data = json.loads(raw)
    if data.get("v") != CURSOR_VERSION:
        raise HTTPException(status_code=400, detail="stale cursor, restart the search")
    return Cursor(sort=data["s"], last_id=data["id"], version=data["v"])
