import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

GTIN_RE = re.compile(r"^\d{8}$|^\d{12,14}$")


@dataclass
class PriceRow:
    gtin: str
    supplier_sku: str
    name: str
    price: Decimal
    stock: int


class RowRejected(ValueError):
    pass


def parse_row(raw: dict) -> PriceRow:
    gtin = (raw.get("EAN") or "").strip()
    if not GTIN_RE.match(gtin):
        raise RowRejected(f"invalid gtin {gtin!r}")
    try:
        price = Decimal(raw["Verkaufspreis"].replace(",", "."))
    except (InvalidOperation, KeyError) as e:
        raise RowRejected(f"invalid price {raw.get('Verkaufspreis')!r}") from e
    return PriceRow(gtin=gtin.zfill(14), supplier_sku=raw["Artikelnummer"].strip(), name=raw["Bezeichnung"].strip(),
                    price=price, stock=int(raw.get("Bestand") or 0))
