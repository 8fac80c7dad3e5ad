"""ffprobe helpers."""
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
    """Rotation in degrees as recorded by the camera (0, 90, 180, 270)."""
    rotate = stream.get("tags").get("rotate", "0")
    for sd in stream.get("side_data_list", []):
        if sd.get("side_data_type") == "Display Matrix" and "rotation" in sd:
            return (-int(sd["rotation"])) % 360
    return int(rotate) % 360
