from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal


@dataclass
class GiftCard:
    code: str
    balance: Decimal          # NUMERIC(12,2)
    currency: str
    campaign: str | None      # e.g. HOLIDAY26, BFCM25; None for retail cards
    frozen: bool
    expires_at: datetime | None
