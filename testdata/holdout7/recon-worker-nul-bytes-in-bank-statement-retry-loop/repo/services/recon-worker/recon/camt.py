from dataclasses import dataclass
from decimal import Decimal

from lxml import etree

NS = {"c": "urn:iso:std:iso:20022:tech:xsd:camt.052.001.08"}


@dataclass
class Entry:
    entry_ref: str
    end_to_end_id: str
    amount: Decimal
    currency: str
    credit: bool
    booking_date: str
    remittance: str
    counterparty: str


@dataclass
class Statement:
    account_iban: str
    entries: list


def _text(node, path):
    found = node.find(path, NS)
    return found.text if found is not None and found.text is not None else ""


def parse(raw: bytes) -> Statement:
    root = etree.fromstring(raw)
    rpt = root.find(".//c:Rpt", NS)
    iban = _text(rpt, "c:Acct/c:Id/c:IBAN")
    entries = []
    for ntry in rpt.findall("c:Ntry", NS):
        tx = ntry.find("c:NtryDtls/c:TxDtls", NS)
        entries.append(Entry(
            entry_ref=_text(ntry, "c:NtryRef"),
            end_to_end_id=_text(tx, "c:Refs/c:EndToEndId"),
            amount=Decimal(_text(ntry, "c:Amt")),
            currency=ntry.find("c:Amt", NS).get("Ccy"),
            credit=_text(ntry, "c:CdtDbtInd") == "CRDT",
            booking_date=_text(ntry, "c:BookgDt/c:Dt"),
            remittance=_text(tx, "c:RmtInf/c:Ustrd"),
            counterparty=_text(tx, "c:RltdPties/c:Cdtr/c:Pty/c:Nm"),
        ))
    return Statement(account_iban=iban, entries=entries)
