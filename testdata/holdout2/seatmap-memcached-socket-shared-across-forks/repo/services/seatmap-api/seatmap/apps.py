import logging
import time

from django.apps import AppConfig

log = logging.getLogger(__name__)


class SeatmapConfig(AppConfig):
    name = "seatmap"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Open the memcached connection at boot so the first seat-map request
        # after a deploy does not pay the connect (~40 ms through the mesh).
        from seatmap import cache

        started = time.monotonic()
        cache.client.get("seatmap:warmup")
        log.info("memcached warm-up done in %.1f ms", (time.monotonic() - started) * 1000)
