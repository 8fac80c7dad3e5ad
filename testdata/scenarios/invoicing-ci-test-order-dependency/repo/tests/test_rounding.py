from decimal import Decimal

from invoicing.money import vat_amount


def test_vat_rounding_half_up():
    # 7% VAT on 1,763.64 = 123.4548 -> 123.45 (half-up at the cent)
    assert vat_amount(Decimal("1763.64"), Decimal("0.07")) == Decimal("123.45")


def test_zero_rate():
    assert vat_amount(Decimal("100.00"), Decimal("0")) == Decimal("0.00")
