import logging
import time
from typing import Optional

from fastapi import APIRouter, Query, Request

from app.es import es_client, build_query
from app.pagination import decode_cursor, encode_cursor

log = logging.getLogger("listings_search.search")
router = APIRouter()

PAGE_SIZE = 24
SLOW_QUERY_MS = 1500


@router.get("/search")
async def search_listings(
    request: Request,
    q: str = Query("", max_length=200),
    category: Optional[str] = None,
    region: Optional[str] = None,
    cursor: Optional[str] = None,
):
    cur = decode_cursor(cursor)
    body = build_query(q=q, category=category, region=region)
    body["size"] = PAGE_SIZE
    body["sort"] = [{"_score": "desc"}, {"published_at": "desc"}, {"listing_id": "asc"}]
    if cur is not None:
        body["search_after"] = cur.sort

    started = time.monotonic()
    res = await es_client().search(index="listings-v7", body=body)
    took_ms = int((time.monotonic() - started) * 1000)
    if took_ms > SLOW_QUERY_MS:
        log.warning("slow search query took_ms=%d q=%r category=%s", took_ms, q, category)

    hits = res["hits"]["hits"]
    next_cursor = None
    if len(hits) == PAGE_SIZE:
        last = hits[-1]
        next_cursor = encode_cursor(last["sort"], last["_id"])
    return {"items": [h["_source"] for h in hits], "next_cursor": next_cursor, "total": res["hits"]["total"]["value"]}
