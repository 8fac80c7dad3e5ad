import hashlib
import hmac
import time


class FjordSigner:
    """Fjord Bank API v2: hex HMAC-SHA256 over "<unix seconds>.<raw body>".

    Fjord rejects a request whose X-Fjord-Timestamp differs from the signed
    timestamp, or is more than 300s away from their clock.
    """

    def __init__(self, key_id: str, secret: bytes):
        self.key_id = key_id
        self._secret = secret

    def sign(self, body: str) -> str:
        ts = int(time.time())
        msg = f"{ts}.{body}".encode()
        return hmac.new(self._secret, msg, hashlib.sha256).hexdigest()
