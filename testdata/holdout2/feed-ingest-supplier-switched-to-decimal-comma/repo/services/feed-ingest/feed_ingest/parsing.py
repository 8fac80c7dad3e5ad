"""Row parsing for supplier offer feeds (CSV)."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation


class RowError(ValueError):
    pass


@dataclass(frozen=True)
class FeedFormat:
    delimiter: str = ","
    encoding: str = "utf-8"
    decimal_separator: str = "."
    thousands_separator: str = ""


@dataclass(frozen=True)
class Offer:
    supplier_sku: str
    ean: str
    price: Decimal
    currency: str
    stock: int


def parse_price(raw: str, fmt: FeedFormat) -> Decimal:
    value = raw.strip()
    if fmt.thousands_separator:
        value = value.replace(fmt.thousands_separator, "")
    if fmt.decimal_separator != ".":
        value = value.replace(fmt.decimal_separator, ".")
    try:
        price = Decimal(value)
    except InvalidOperation as exc:
        raise RowError(f"price {raw!r}: {exc}") from exc
    if price <= 0:
        raise RowError(f"price {raw!r}: must be positive")
    return price.quantize(Decimal("0.01"))


def parse_row(row: dict[str, str], fmt: FeedFormat) -> Offer:
    try:
        stock = int(row["stock"])
    except ValueError as exc:
        raise RowError(f"stock {row['stock']!r}: not an integer") from exc
    return Offer(
        supplier_sku=row["sku"].strip(),
        ean=row["ean"].strip(),
        price=parse_price(row["price"], fmt),
        currency=row.get("currency", "EUR").strip() or "EUR",
        stock=stock,
    )
