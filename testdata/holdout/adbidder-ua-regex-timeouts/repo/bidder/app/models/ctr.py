import os

import httpx

CTR_URL = os.environ.get("CTR_MODEL_URL", "http://ctr-model:8501/v1/models/ctr:predict")
MODEL_TIMEOUT = float(os.environ.get("CTR_MODEL_TIMEOUT_S", "0.025"))


class CtrClient:
    _instance = None

    def __init__(self):
        self._http = httpx.AsyncClient(timeout=MODEL_TIMEOUT)

    @classmethod
    def get(cls):
        if cls._instance is None:
            cls._instance = CtrClient()
        return cls._instance

    async def score(self, br, items):
        payload = {"instances": [{"line_item": li.id, "site": br.get("site", {}).get("domain"), "hour": br.get("ext", {}).get("hour")} for li in items]}
        r = await self._http.post(CTR_URL, json=payload)
        r.raise_for_status()
        return [p[0] for p in r.json()["predictions"]]
