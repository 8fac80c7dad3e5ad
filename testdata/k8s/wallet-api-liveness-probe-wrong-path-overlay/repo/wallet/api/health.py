from fastapi import APIRouter, Response

from wallet.db import pool
from wallet.cache import redis

router = APIRouter(prefix="/health", tags=["health"])


@router.get("/live")
async def live() -> dict:
    # Process is up and the event loop answers; no dependency checks here.
    return {"status": "ok"}


@router.get("/ready")
async def ready(response: Response) -> dict:
    checks = {"postgres": await pool.ping(), "redis": await redis.ping()}
    if not all(checks.values()):
        response.status_code = 503
    return {"status": "ok" if all(checks.values()) else "degraded", "checks": checks}
