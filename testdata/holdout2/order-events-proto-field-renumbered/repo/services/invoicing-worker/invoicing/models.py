from __future__ import annotations

from datetime import datetime, timezone
from typing import Annotated

from pydantic import BaseModel, Field
from tessera.orders.v1 import order_events_pb2

Currency = Annotated[str, Field(pattern=r"^[A-Z]{3}$")]


class InvoiceLine(BaseModel):
    sku: str
    quantity: Annotated[int, Field(gt=0)]
    unit_price_minor: Annotated[int, Field(ge=0)]
    description: str


class InvoiceDraft(BaseModel):
    order_id: str
    customer_id: str
    issued_for: datetime
    currency: Currency
    total_minor: Annotated[int, Field(gt=0)]
    lines: Annotated[list[InvoiceLine], Field(min_length=1)]

    @classmethod
    def from_event(cls, event: order_events_pb2.OrderPlaced) -> "InvoiceDraft":
        lines = [
            InvoiceLine(
                sku=item.sku,
                quantity=item.quantity,
                unit_price_minor=item.unit_price_minor,
                description=item.kit_name,
            )
            for item in event.items
        ]
        return cls(
            order_id=event.order_id,
            customer_id=event.customer_id,
            issued_for=datetime.fromtimestamp(event.placed_at.seconds, tz=timezone.utc),
            currency=event.currency,
            total_minor=event.total_minor,
            lines=lines,
        )
