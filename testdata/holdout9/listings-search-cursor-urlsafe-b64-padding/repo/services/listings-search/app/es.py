import os
from functools import lru_cache

from elasticsearch import AsyncElasticsearch


@lru_cache(maxsize=1)
def es_client() -> AsyncElasticsearch:
    return AsyncElasticsearch(os.environ["ES_URL"], request_timeout=5, max_retries=1)


def build_query(q: str, category=None, region=None) -> dict:
    must = [{"multi_match": {"query": q, "fields": ["title^3", "description"]}}] if q else [{"match_all": {}}]
    filt = [{"term": {"status": "active"}}]
    if category:
        filt.append({"term": {"category": category}})
    if region:
        filt.append({"term": {"region": region}})
    return {"query": {"bool": {"must": must, "filter": filt}}}
