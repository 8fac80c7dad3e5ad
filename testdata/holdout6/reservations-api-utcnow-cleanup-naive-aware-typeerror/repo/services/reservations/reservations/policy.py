from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from .models import Booking

CANCEL_WINDOW = timedelta(hours=2)
LATE_CANCEL_FEE_CREDITS = 1


@dataclass
class CancelDecision:
    allowed: bool
    fee_credits: int
    reason: str | None = None


def cancel_decision(booking: Booking) -> CancelDecision:
    """Free cancellation until two hours before the start; later cancellations cost one credit."""
    if booking.status != "confirmed":
        return CancelDecision(False, 0, "not_cancellable")
    now = datetime.now(timezone.utc)
    if booking.starts_at - now < CANCEL_WINDOW:
        return CancelDecision(True, LATE_CANCEL_FEE_CREDITS, "late_cancel")
    return CancelDecision(True, 0)


def booking_expires_at(created_at: datetime) -> datetime:
    """Unpaid holds expire after 15 minutes."""
    return created_at + timedelta(minutes=15)
