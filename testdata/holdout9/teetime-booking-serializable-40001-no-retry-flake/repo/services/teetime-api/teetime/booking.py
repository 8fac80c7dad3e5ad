from sqlalchemy import select, func
from sqlalchemy.orm import Session

from teetime.db import engine
from teetime.models import Booking, Slot
from teetime.errors import SlotFull


def book_slot(slot_id: int, member_id: int, players: int) -> Booking:
    # SERIALIZABLE so two members can never both take the last places of a flight.
    with Session(engine.execution_options(isolation_level="SERIALIZABLE")) as session, session.begin():
        slot = session.get(Slot, slot_id)
        taken = session.scalar(
            select(func.coalesce(func.sum(Booking.players), 0)).where(Booking.slot_id == slot_id, Booking.cancelled.is_(False))
        )
        if taken + players > slot.capacity:
            raise SlotFull(slot_id)
        booking = Booking(slot_id=slot_id, member_id=member_id, players=players)
        session.add(booking)
    return booking
