from __future__ import annotations

from .cache import feature_store
from .models import UserProfile


async def load_profile(user_id: str) -> UserProfile:
    raw = await feature_store.hgetall(f"profile:{user_id}")
    return UserProfile.from_redis(user_id, raw)
