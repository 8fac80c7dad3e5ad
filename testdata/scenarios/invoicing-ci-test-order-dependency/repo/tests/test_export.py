import decimal
from decimal import Decimal

from invoicing.export import legacy_csv_total


def test_large_totals():
    # The legacy exporter ran with 6 significant digits; reproduce its output.
    decimal.getcontext().prec = 6
    assert legacy_csv_total([Decimal("999999.5"), Decimal("0.7")]) == Decimal("1.00000E+6")


def test_empty_export():
    assert legacy_csv_total([]) == Decimal("0")
