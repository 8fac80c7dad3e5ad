from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def vat_amount(net: Decimal, rate: Decimal) -> Decimal:
    return (net * rate).quantize(CENT, rounding=ROUND_HALF_UP)
