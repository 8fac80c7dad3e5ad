from __future__ import annotations

import time

import structlog
from fastapi import APIRouter, Depends

from ..candidates import candidates
from ..profiles import load_profile
from ..ranking import rank
from ..auth import current_user

router = APIRouter()
log = structlog.get_logger()

SLOW_MS = 1000


@router.get("/v2/feed/home")
async def home_feed(user=Depends(current_user), limit: int = 50):
    t0 = time.perf_counter()
    profile = await load_profile(user.id)
    topics = profile.followed_topics or ["top-stories"]
    items = await candidates(profile, topics)
    ranked = rank(items, profile)[:limit]
    ms = int((time.perf_counter() - t0) * 1000)
    if ms > SLOW_MS:
        log.warning("slow home feed", user_id=user.id, topics=len(topics), candidates=len(items), duration_ms=ms)
    return {"items": [i.to_card() for i in ranked]}
