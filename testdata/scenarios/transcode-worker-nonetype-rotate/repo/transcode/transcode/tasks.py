import logging

from celery import shared_task

from transcode import ladder, probe, storage

log = logging.getLogger(__name__)


@shared_task(bind=True, max_retries=3, default_retry_delay=30, acks_late=True)
def transcode_video(self, upload_id: str, source_key: str):
    local = storage.download(source_key)
    info = probe.probe(local)
    stream = probe.video_stream(info)
    rotation = probe.video_rotation(stream)
    renditions = ladder.plan(int(stream["width"]), int(stream["height"]), rotation)
    for r in renditions:
        out = ladder.encode(local, r)
        storage.upload(out, f"renditions/{upload_id}/{r.name}.mp4")
    log.info("transcoded upload_id=%s renditions=%d", upload_id, len(renditions))
    return [r.name for r in renditions]
