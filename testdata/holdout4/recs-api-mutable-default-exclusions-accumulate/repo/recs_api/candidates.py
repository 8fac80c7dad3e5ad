"""Candidate generation for the home feed."""
from __future__ import annotations

from sqlalchemy import select

from .db import session_scope
from .models import Item, UserProfile

MAX_CANDIDATES = 400


def exclusion_ids(profile: UserProfile, seen: list[str] = []) -> list[str]:
    """Items the user must not see again: muted topics' items and hidden items."""
    seen.extend(profile.muted_item_ids)
    seen.extend(profile.hidden_item_ids)
    return seen


async def candidates(profile: UserProfile, topics: list[str]) -> list[Item]:
    excluded = exclusion_ids(profile)
    stmt = (
        select(Item)
        .where(Item.topic.in_(topics))
        .where(Item.id.not_in(excluded))
        .order_by(Item.score.desc())
        .limit(MAX_CANDIDATES)
    )
    async with session_scope() as session:
        result = await session.execute(stmt)
        return list(result.scalars())
