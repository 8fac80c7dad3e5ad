"""Gift card redemption rules.

All money is handled as decimal.Decimal with two places; the ledger table
stores NUMERIC(12,2) and asyncpg hands us Decimals.
"""
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal, ROUND_HALF_UP

from app.errors import CardExpired, CardFrozen, InsufficientBalance
from app.models import GiftCard

CENTS = Decimal("0.01")

# HOLIDAY26 cards get a bonus on every redemption until Jan 6 (marketing ticket MKT-2291).
HOLIDAY_CAMPAIGN = "HOLIDAY26"
HOLIDAY_BONUS_RATE = 0.10
HOLIDAY_BONUS_ENDS = datetime(2027, 1, 6, tzinfo=timezone.utc)


@dataclass
class Redemption:
    card_code: str
    requested: Decimal
    charged_to_card: Decimal
    bonus_applied: Decimal
    remaining_balance: Decimal


def _check_usable(card: GiftCard, now: datetime) -> None:
    if card.frozen:
        raise CardFrozen(card.code)
    if card.expires_at is not None and card.expires_at < now:
        raise CardExpired(card.code)


def compute_redemption(card: GiftCard, amount: Decimal, now: datetime | None = None) -> Redemption:
    """Work out how much to take off the card for an order total of `amount`.

    Partial redemptions are allowed: if the card holds less than the amount,
    the card is drained and checkout charges the rest to the payment method.
    """
    now = now or datetime.now(timezone.utc)
    _check_usable(card, now)
    amount = amount.quantize(CENTS, rounding=ROUND_HALF_UP)
    if amount <= 0:
        raise ValueError("redeem amount must be positive")

    bonus = Decimal("0.00")
    if card.campaign == HOLIDAY_CAMPAIGN and now < HOLIDAY_BONUS_ENDS:
        # The bonus is paid by marketing: the card is charged less than the order total.
        bonus = (amount * HOLIDAY_BONUS_RATE).quantize(CENTS, rounding=ROUND_HALF_UP)

    due = amount - bonus
    charged = min(due, card.balance)
    if charged <= 0:
        raise InsufficientBalance(card.code)
    return Redemption(
        card_code=card.code,
        requested=amount,
        charged_to_card=charged,
        bonus_applied=bonus,
        remaining_balance=card.balance - charged,
    )
