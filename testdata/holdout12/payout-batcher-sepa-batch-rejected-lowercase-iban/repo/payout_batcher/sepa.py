"""Builds the daily pain.001.001.03 credit-transfer file for merchant payouts."""
from decimal import Decimal

from lxml import etree

NS = "urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"
SCHEMA = etree.XMLSchema(etree.parse("schemas/pain.001.001.03.xsd"))


def build_batch(batch_id, debtor, payouts):
    root = etree.Element("{%s}Document" % NS, nsmap={None: NS})
    cct = etree.SubElement(root, "{%s}CstmrCdtTrfInitn" % NS)
    _group_header(cct, batch_id, payouts)
    pmt = _payment_info(cct, batch_id, debtor)
    for p in payouts:
        tx = etree.SubElement(pmt, "{%s}CdtTrfTxInf" % NS)
        _e(tx, "PmtId/EndToEndId", p.reference)
        _e(tx, "Amt/InstdAmt", str(p.amount.quantize(Decimal("0.01"))), Ccy="EUR")
        _e(tx, "Cdtr/Nm", p.account_holder[:70])
        _e(tx, "CdtrAcct/Id/IBAN", p.iban)
        _e(tx, "RmtInf/Ustrd", f"Caravel payout {p.period}")
    SCHEMA.assertValid(root)  # the bank rejects the whole file if any element is invalid
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")
