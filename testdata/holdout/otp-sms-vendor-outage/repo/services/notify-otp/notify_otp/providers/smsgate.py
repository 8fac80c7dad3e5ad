"""SMSGate (primary SMS provider) client."""
import logging
import os

import requests

log = logging.getLogger("notify_otp.providers.smsgate")

BASE_URL = os.environ.get("SMSGATE_BASE_URL", "https://api.smsgate.example")
TIMEOUT = (2.0, 5.0)  # connect, read


class ProviderError(Exception):
    def __init__(self, status, body):
        super().__init__(f"smsgate returned {status}: {body[:200]}")
        self.status = status


class SmsGate:
    def __init__(self, api_key: str, session: requests.Session | None = None):
        self._s = session or requests.Session()
        self._s.headers["Authorization"] = f"Bearer {api_key}"

    def send(self, to: str, body: str, ref: str) -> str:
        r = self._s.post(f"{BASE_URL}/v2/messages", json={"to": to, "body": body, "client_ref": ref, "channel": "sms"}, timeout=TIMEOUT)
        if r.status_code >= 300:
            raise ProviderError(r.status_code, r.text)
        return r.json()["message_id"]
