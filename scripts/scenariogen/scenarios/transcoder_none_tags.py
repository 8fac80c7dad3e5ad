"""Media transcoder (Python/Celery): ffprobe streams without tags -> AttributeError on None. Logs only, job label."""
import datetime as dt

from sg import *

NAME = "transcode-worker-nonetype-rotate"


def build():
    sc = Scenario(NAME, "2026-05-18T10:52:00Z", """
        The rotation fix merged at 08:05 (transcode-worker rolled out 08:21) reads
        stream.get("tags").get("rotate") in probe.video_rotation; ffprobe omits the tags object for streams
        without metadata (screen recordings, OBS and most desktop encoders), so those transcode tasks fail with
        AttributeError: 'NoneType' object has no attribute 'get' and are retried until they give up. Phone
        uploads (which carry tags) still work. No traces are collected for the workers. The worker pod OOM-killed
        at 09:40 on an 8K upload and the thumbnailer's S3 SlowDown warnings are unrelated.""",
                  repo="clipforge/media-pipeline")
    ns = "media"
    w = sc.svc("transcode-worker", ns, "python", npods=3)
    thumbs = sc.svc("thumbnailer", ns, "python", npods=1)
    upl = sc.svc("upload-api", ns, "go", npods=2)
    rollout = sc.at("08:21:30")

    probe = "transcode/transcode/probe.py"
    sc.file(probe, """
        \"\"\"ffprobe helpers.\"\"\"
        from __future__ import annotations

        import json
        import subprocess

        FFPROBE = "/usr/bin/ffprobe"


        def probe(path: str) -> dict:
            out = subprocess.run(
                [FFPROBE, "-v", "error", "-print_format", "json", "-show_streams", "-show_format", path],
                check=True, capture_output=True, timeout=60,
            )
            return json.loads(out.stdout)


        def video_stream(info: dict) -> dict:
            for s in info.get("streams", []):
                if s.get("codec_type") == "video":
                    return s
            raise ValueError("no video stream")


        def video_rotation(stream: dict) -> int:
            \"\"\"Rotation in degrees as recorded by the camera (0, 90, 180, 270).\"\"\"
            rotate = stream.get("tags").get("rotate", "0")
            for sd in stream.get("side_data_list", []):
                if sd.get("side_data_type") == "Display Matrix" and "rotation" in sd:
                    return (-int(sd["rotation"])) % 360
            return int(rotate) % 360
        """)
    tasks = "transcode/transcode/tasks.py"
    sc.file(tasks, """
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
        """)
    sc.file("thumbnailer/thumbnailer/s3.py", """
        import boto3
        from botocore.config import Config

        s3 = boto3.client("s3", config=Config(retries={"max_attempts": 8, "mode": "adaptive"}))
        """)
    L = sc.line(probe, 'rotate = stream.get("tags").get("rotate", "0")')
    L_task = sc.line(tasks, "rotation = probe.video_rotation(stream)")
    sc.commit("2026-05-18T08:05:12Z", ("Élodie Martin", "elodie@clipforge.tv", "elodiem"),
              """transcode: honour the rotate tag on portrait phone videos (#712)

              iPhone portrait clips came out sideways: read the rotate tag (and the
              display matrix when present) before planning the ladder.""",
              [(probe, '''def video_rotation(stream: dict) -> int:
    """Rotation in degrees as recorded by the camera (0, 90, 180, 270)."""
    for sd in stream.get("side_data_list", []):
        if sd.get("side_data_type") == "Display Matrix" and "rotation" in sd:
            return (-int(sd["rotation"])) % 360
    return 0''', '''def video_rotation(stream: dict) -> int:
    """Rotation in degrees as recorded by the camera (0, 90, 180, 270)."""
    rotate = stream.get("tags").get("rotate", "0")
    for sd in stream.get("side_data_list", []):
        if sd.get("side_data_type") == "Display Matrix" and "rotation" in sd:
            return (-int(sd["rotation"])) % 360
    return int(rotate) % 360''')], merged_by_github=True)
    sc.commit("2026-05-15T13:30:00Z", ("Sam Ortiz", "sam@clipforge.tv", "sortiz"),
              "thumbnailer: adaptive S3 retries",
              [("thumbnailer/thumbnailer/s3.py", 'Config(retries={"max_attempts": 3})',
                'Config(retries={"max_attempts": 8, "mode": "adaptive"})')])

    tb = ("Traceback (most recent call last):\n"
          '  File "/usr/local/lib/python3.11/site-packages/celery/app/trace.py", line 453, in trace_task\n'
          "    R = retval = fun(*args, **kwargs)\n"
          '  File "/usr/local/lib/python3.11/site-packages/celery/app/trace.py", line 736, in __protected_call__\n'
          "    return self.run(*args, **kwargs)\n"
          f'  File "/srv/transcode/transcode/tasks.py", line {L_task}, in transcode_video\n'
          "    rotation = probe.video_rotation(stream)\n"
          f'  File "/srv/transcode/transcode/probe.py", line {L}, in video_rotation\n'
          '    rotate = stream.get("tags").get("rotate", "0")\n'
          "AttributeError: 'NoneType' object has no attribute 'get'")
    t0, t1 = sc.at("07:50"), sc.at("10:50")
    lab = lambda job, pod, extra=None: {"job": f"{ns}/{job}", "namespace": ns, "instance": pod, **(extra or {})}
    sources = ["ios", "ios", "android", "android", "obs", "screen", "premiere", "davinci"]
    tagless = {"obs", "screen", "davinci"}
    for t in sc.times(t0, t1, 150):
        p = w.pod()
        src = sc.rng.choice(sources)
        task = sc.uuid()
        up = "up_" + sc.hex(14)
        worker = f"ForkPoolWorker-{sc.rng.randint(1, 4)}"
        sc.log(lab("transcode-worker", p), t,
               f"[{t.strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]}: INFO/MainProcess] Task transcode.tasks.transcode_video[{task}] received")
        fin = t + dt.timedelta(seconds=sc.rng.uniform(1.2, 3.5))
        if t >= rollout and src in tagless:
            for attempt in range(2 if sc.rng.random() < 0.5 else 1):
                ft = fin + dt.timedelta(seconds=31 * attempt)
                if ft > sc.now - dt.timedelta(seconds=5):
                    break
                sc.log(lab("transcode-worker", p), ft,
                       f"[{ft.strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]}: ERROR/{worker}] Task transcode.tasks.transcode_video[{task}] "
                       f"raised unexpected: AttributeError(\"'NoneType' object has no attribute 'get'\")\n{tb}")
            if sc.rng.random() < 0.3 and fin + dt.timedelta(seconds=95) < sc.now:
                gt = fin + dt.timedelta(seconds=95)
                sc.log(lab("upload-api", upl.pod()), gt,
                       f'level=error ts={iso(gt, 3)} msg="transcode gave up" upload_id={up} source={src} retries=3')
        else:
            ft = fin + dt.timedelta(seconds=sc.rng.uniform(20, 90))
            if ft < sc.now:
                sc.log(lab("transcode-worker", p), ft,
                       f"[{ft.strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]}: INFO/{worker}] transcoded upload_id={up} renditions={sc.rng.choice([4, 5, 6])}")
                sc.log(lab("transcode-worker", p), ft + dt.timedelta(milliseconds=3),
                       f"[{ft.strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]}: INFO/{worker}] Task transcode.tasks.transcode_video[{task}] succeeded in {sc.rng.uniform(20, 90):.3f}s: ['240p', '480p', '720p', '1080p']")
    for t in sc.times(t0, t1, 40):
        sc.log(lab("thumbnailer", thumbs.pods[0]), t,
               f"{t.strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]} WARNING botocore.retryhandler: Retry needed, retrying request after delay of {sc.rng.uniform(0.1, 2):.3f} "
               f"(SlowDown: Please reduce your request rate.)")
    for i, p in enumerate(w.pods):
        t = rollout + dt.timedelta(seconds=8 * i + 4)
        sc.log(lab("transcode-worker", p), t, f"[{t.strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]}: INFO/MainProcess] celery@{p} ready.")
    yt = sc.at("09:40:02")
    sc.log(lab("transcode-worker", w.pods[1]), yt - dt.timedelta(seconds=40),
           f"[{(yt - dt.timedelta(seconds=40)).strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]}: WARNING/ForkPoolWorker-2] large source upload_id=up_8k{sc.hex(11)} 7680x4320, decoding in memory")

    m0, m1 = sc.at("07:30"), sc.at("10:51")
    on = lambda t: t >= rollout + dt.timedelta(seconds=30)
    sc.counter({"__name__": "celery_task_failed_total", "job": "celery-exporter", "name": "transcode.tasks.transcode_video", "queue_name": "transcode"},
               m0, m1, lambda t: 0.42 if on(t) else 0.002, initial=1_830)
    sc.counter({"__name__": "celery_task_succeeded_total", "job": "celery-exporter", "name": "transcode.tasks.transcode_video", "queue_name": "transcode"},
               m0, m1, lambda t: 0.55 if on(t) else 0.93, initial=412_932)
    sc.gauge({"__name__": "celery_queue_length", "job": "celery-exporter", "queue_name": "transcode"}, m0, m1,
             lambda t: ramp(t, rollout, sc.at("10:00"), 4, 180) + sc.rng.randint(0, 12))
    for p in w.pods:
        sc.gauge({"__name__": "container_memory_working_set_bytes", "namespace": ns, "pod": p, "container": "transcode-worker"}, m0, m1,
                 lambda t: sc.rng.uniform(0.6e9, 1.9e9))

    k = sc.k8s = K8s(sc)
    nodes = ["gke-media-prod-transcode-7c1e3b2a-x9k2", "gke-media-prod-transcode-7c1e3b2a-m3p8"]
    ctr = container_spec("transcode-worker", "europe-docker.pkg.dev/clipforge/media/transcode-worker:2026.05.18-2", None,
                         command=["celery", "-A", "transcode", "worker", "-Q", "transcode", "--concurrency=4"],
                         env={"CELERY_BROKER_URL": "redis://celery-broker.media.svc:6379/0"},
                         requests={"cpu": "2", "memory": "2Gi"}, limits={"memory": "4Gi"})
    workload(k, w, ctr, nodes, ts("2025-01-20T10:00:00Z"), rollout, 58, labels={"app": "transcode-worker"},
             pod_states={1: {"restarts": 1, "created": rollout + dt.timedelta(seconds=9), "state": running(yt + dt.timedelta(seconds=14)),
                             "last": terminated("OOMKilled", 137, rollout + dt.timedelta(seconds=15), yt, sc)}})
    k.event(ns, "HorizontalPodAutoscaler", "transcode-worker", "SuccessfulRescale",
            "New size: 3; reason: external metric celery_queue_length(&LabelSelector{MatchLabels:map[string]string{queue_name: transcode,},}) above target",
            sc.at("09:12:40"), component="horizontal-pod-autoscaler", api_version="autoscaling/v2")

    sc.trigger = {"mention": "transcodes failing for a bunch of uploads since this morning, creators complaining in support. transcode-worker? queue is growing"}
    sc.config = {"repo": "clipforge/media-pipeline", "log_service_label": "job", "namespace": ns}
    sc.truth = {"bucket": "code_bug", "service": "transcode-worker", "error_type": "null_pointer", "file": probe, "line": L,
                "line_tolerance": 3, "fix_keywords": ["tags", "or {}", "None", ".get(\"tags\", {})"]}
    return sc
