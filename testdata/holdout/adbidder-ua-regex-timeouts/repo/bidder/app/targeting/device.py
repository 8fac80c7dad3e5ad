"""Device classification from the bid request's user agent.

Feeds the device_type targeting key (desktop / phone / tablet / ctv); line
items for connected TV only bid on ctv.
"""
from __future__ import annotations

import re
from enum import Enum
from functools import lru_cache


class DeviceType(str, Enum):
    DESKTOP = "desktop"
    PHONE = "phone"
    TABLET = "tablet"
    CTV = "ctv"


# Connected-TV devices announce themselves inside the platform token list,
# e.g. "Mozilla/5.0 (Linux; Android 9; AFTMM Build/PS7633; wv)". Fire TV
# models are AFT + 1-3 letters, which a plain substring check missed.
CTV_RE = re.compile(
    r"\((?:[\w .,/-]+;?\s?)+\)\s.*\b(?:SmartTV|SMART-TV|CrKey|AFT[A-Z]{1,3}|BRAVIA|Roku|Tizen|Web0S)\b",
    re.IGNORECASE,
)
TABLET_TOKENS = ("ipad", "tablet", "sm-t", "kindle", "silk/")
PHONE_TOKENS = ("iphone", "mobile", "android")


@lru_cache(maxsize=4096)
def classify(user_agent: str, devicetype_hint: int | None = None) -> DeviceType:
    # OpenRTB 2.6 devicetype: 3 = connected TV, 7 = set top box
    if devicetype_hint in (3, 7):
        return DeviceType.CTV
    ua = user_agent or ""
    if CTV_RE.search(ua):
        return DeviceType.CTV
    low = ua.lower()
    if any(t in low for t in TABLET_TOKENS):
        return DeviceType.TABLET
    if any(t in low for t in PHONE_TOKENS):
        return DeviceType.PHONE
    return DeviceType.DESKTOP
