import json
import time

import httpx
import structlog

from payout_gateway.idempotency import IdempotencyStore
from payout_gateway.models import Payout, PartnerResult
from payout_gateway.partners.fjord.signer import FjordSigner

log = structlog.get_logger(__name__)

FJORD_URL = "https://api.fjordbank.no/v2/payments"


class FjordClient:
    def __init__(self, http: httpx.AsyncClient, signer: FjordSigner, idempotency: IdempotencyStore):
        self._http = http
        self._signer = signer
        self._idempotency = idempotency

    async def send(self, payout: Payout) -> PartnerResult:
        body = json.dumps(payout.to_fjord(), separators=(",", ":"))
        signature = self._signer.sign(body)
        # Reserve only once the request is fully built, so a serialisation error
        # does not burn the idempotency key for 24h.
        if not await self._idempotency.reserve(payout.id, ttl=86400):
            return PartnerResult.duplicate(payout.id)
        headers = {
            "Content-Type": "application/json",
            "Idempotency-Key": payout.id,
            "X-Fjord-Key-Id": self._signer.key_id,
            "X-Fjord-Timestamp": str(int(time.time())),
            "X-Fjord-Signature": signature,
        }
        resp = await self._http.post(FJORD_URL, content=body, headers=headers)
        result = PartnerResult.from_fjord(payout.id, resp)
        if resp.status_code == 401:
            log.warning("fjord rejected payout", payout_id=payout.id, status=401, body=resp.text,
                        timestamp=headers["X-Fjord-Timestamp"])
        return result
