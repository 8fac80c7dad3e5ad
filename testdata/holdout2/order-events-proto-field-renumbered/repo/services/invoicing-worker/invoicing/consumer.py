"""Consumes OrderPlaced events and creates invoice drafts in the billing DB.

Messages that cannot become an invoice go to invoicing.dlq with the reason in
the headers; the consumer never blocks a partition on a bad message.
"""
from __future__ import annotations

import structlog
from confluent_kafka import Consumer, KafkaError, Message, Producer
from pydantic import ValidationError
from tessera.orders.v1 import order_events_pb2

from invoicing import metrics
from invoicing.models import InvoiceDraft
from invoicing.store import DraftStore

log = structlog.get_logger(__name__)

TOPIC = "orders.events.v1"
DLQ_TOPIC = "invoicing.dlq"


class OrderEventConsumer:
    def __init__(self, consumer: Consumer, dlq: Producer, store: DraftStore) -> None:
        self._consumer = consumer
        self._dlq = dlq
        self._store = store

    def run(self) -> None:
        self._consumer.subscribe([TOPIC])
        while True:
            msg = self._consumer.poll(1.0)
            if msg is None:
                continue
            if msg.error():
                if msg.error().code() != KafkaError._PARTITION_EOF:
                    log.warning("consumer error", error=str(msg.error()))
                continue
            self.handle(msg)
            self._consumer.commit(message=msg, asynchronous=True)

    def handle(self, msg: Message) -> None:
        event = order_events_pb2.OrderPlaced()
        event.ParseFromString(msg.value())
        try:
            draft = InvoiceDraft.from_event(event)
        except ValidationError as exc:
            self._dead_letter(msg, event.order_id, exc)
            return
        self._store.upsert(draft)
        metrics.EVENTS.labels(outcome="invoiced").inc()
        log.info("invoice draft created", order_id=draft.order_id, total_minor=draft.total_minor,
                 currency=draft.currency)

    def _dead_letter(self, msg: Message, order_id: str, exc: ValidationError) -> None:
        metrics.EVENTS.labels(outcome="dead_lettered").inc()
        log.error("order event rejected, sent to DLQ", order_id=order_id, partition=msg.partition(),
                  offset=msg.offset(), error=str(exc).splitlines()[0], exc_info=exc)
        self._dlq.produce(DLQ_TOPIC, key=msg.key(), value=msg.value(),
                          headers={"x-dlq-reason": str(exc).splitlines()[0], "x-source-topic": TOPIC})
        self._dlq.poll(0)
