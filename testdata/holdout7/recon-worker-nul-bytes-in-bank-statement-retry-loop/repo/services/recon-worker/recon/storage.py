import boto3
from sqlalchemy import text

_s3 = boto3.client("s3")


def fetch(bucket: str, key: str) -> bytes:
    return _s3.get_object(Bucket=bucket, Key=key)["Body"].read()


def upsert_entries(session, statement):
    stored = []
    for e in statement.entries:
        row = session.execute(text("""
            INSERT INTO bank_transactions (account_iban, entry_ref, end_to_end_id, amount, currency, credit,
                                           booking_date, remittance, counterparty)
            VALUES (:iban, :ref, :e2e, :amount, :ccy, :credit, :bdate, :rmt, :cpty)
            ON CONFLICT (account_iban, entry_ref) DO NOTHING
            RETURNING id
        """), {"iban": statement.account_iban, "ref": e.entry_ref, "e2e": e.end_to_end_id, "amount": e.amount,
                 "ccy": e.currency, "credit": e.credit, "bdate": e.booking_date, "rmt": e.remittance,
                 "cpty": e.counterparty}).first()
        if row:
            stored.append((row.id, e))
    return stored
