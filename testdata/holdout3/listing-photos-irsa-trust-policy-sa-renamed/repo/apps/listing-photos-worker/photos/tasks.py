import logging

from celery import shared_task

from photos import imaging, storage
from photos.status import mark_failed, mark_ready

log = logging.getLogger(__name__)

VARIANTS = {
    "thumb": (320, 240),
    "card": (640, 480),
    "full": (1920, 1440),
}


@shared_task(bind=True, max_retries=5, default_retry_delay=60, acks_late=True)
def generate_variants(self, listing_id: str, photo_id: str) -> None:
    """Render every variant of one uploaded photo (JPEG and AVIF) and mark it ready."""
    try:
        original = storage.download(listing_id, photo_id)
        for name, size in VARIANTS.items():
            img = imaging.resize(original, size)
            storage.upload_variant(listing_id, photo_id, f"{name}.jpg", imaging.to_jpeg(img), "image/jpeg")
            storage.upload_variant(listing_id, photo_id, f"{name}.avif", imaging.to_avif(img), "image/avif")
    except imaging.UnsupportedImage as exc:
        mark_failed(listing_id, photo_id, reason=str(exc))
        return
    except Exception as exc:
        if self.request.retries >= self.max_retries:
            mark_failed(listing_id, photo_id, reason="processing error")
        raise self.retry(exc=exc)
    mark_ready(listing_id, photo_id)
