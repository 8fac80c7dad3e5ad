from fastapi import APIRouter, Depends

from app.auth import current_user
from app.cache import get_cached_profile, put_cached_profile
from app.db import load_profile

router = APIRouter()


@router.get("/v1/me")
async def me(user=Depends(current_user)) -> dict:
    profile = await get_cached_profile(user.id)
    if profile is None:
        profile = await load_profile(user.id)
        await put_cached_profile(profile)
    return profile
