import asyncio
import logging
import os

import redis.asyncio as redis
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute, Route
from starlette.responses import JSONResponse

log = logging.getLogger("visit_signal")
r = redis.from_url(os.environ["REDIS_URL"], max_connections=int(os.environ.get("REDIS_POOL", "200")))
rooms: dict[str, set] = {}


async def health(request):
    return JSONResponse({"ok": True, "rooms": len(rooms), "sockets": sum(len(v) for v in rooms.values())})


async def signal(ws):
    room = ws.path_params["visit_id"]
    await ws.accept()
    rooms.setdefault(room, set()).add(ws)
    pubsub = r.pubsub()
    await pubsub.subscribe(f"visit:{room}")
    try:
        async for msg in ws.iter_text():
            await r.publish(f"visit:{room}", msg)
    finally:
        rooms[room].discard(ws)
        await pubsub.aclose()


app = Starlette(routes=[Route("/healthz", health), WebSocketRoute("/v1/visits/{visit_id}/signal", signal)])
