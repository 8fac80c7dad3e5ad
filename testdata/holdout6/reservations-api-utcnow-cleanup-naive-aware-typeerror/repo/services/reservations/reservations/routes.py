import logging
from datetime import datetime, timezone

from fastapi import APIRouter, Depends, HTTPException
from sqlalchemy.orm import Session

from .db import get_session
from .models import Booking
from .policy import cancel_decision

router = APIRouter(prefix="/v1/bookings")
log = logging.getLogger("reservations.routes")


@router.post("/{booking_id}/cancel")
def cancel(booking_id: int, s: Session = Depends(get_session)):
    booking = s.get(Booking, booking_id)
    if booking is None:
        raise HTTPException(404)
    decision = cancel_decision(booking)
    if not decision.allowed:
        raise HTTPException(409, decision.reason)
    booking.status = "cancelled"
    s.commit()
    log.info("booking cancelled", extra={"booking_id": booking_id, "fee": decision.fee_credits,
                                          "at": datetime.now(timezone.utc).isoformat()})
    return {"status": "cancelled", "fee_credits": decision.fee_credits}
