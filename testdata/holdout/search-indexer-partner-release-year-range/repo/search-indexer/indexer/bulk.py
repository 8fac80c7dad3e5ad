"""Pushes catalog changes to OpenSearch in bulk, in change-feed order.

The cursor only advances when a whole batch is indexed, so a batch is
retried as a unit (titles reference their series, order matters).
"""
import logging

from opensearchpy import OpenSearch, helpers
from opentelemetry import trace

from indexer.cursor import Cursor
from indexer.docs import to_document

log = logging.getLogger("indexer.bulk")
tracer = trace.get_tracer(__name__)

BATCH = 200
INDEX = "titles-v7"


class BatchFailed(Exception):
    pass


def index_batch(client: OpenSearch, changes: list[dict], cursor: Cursor) -> None:
    with tracer.start_as_current_span("index_batch") as span:
        span.set_attribute("batch.size", len(changes))
        span.set_attribute("batch.first_seq", changes[0]["seq"])
        actions = [{"_index": INDEX, "_id": c["title_id"], "_source": to_document(c)} for c in changes]
        ok, errors = helpers.bulk(client, actions, raise_on_error=False, max_retries=0)
        if errors:
            first = errors[0]["index"]
            log.error("bulk indexing failed", extra={"failed": len(errors), "indexed": ok, "first_id": first["_id"],
                                                       "reason": first["error"]["reason"], "type": first["error"]["type"]})
            raise BatchFailed(f"{len(errors)} of {len(actions)} documents rejected")
        cursor.advance(changes[-1]["seq"])
