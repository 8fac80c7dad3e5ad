import csv
import io
import logging

log = logging.getLogger("seller_import.csv")

RESERVED = {"sku", "title", "description", "price", "currency", "stock", "category", "image_url"}


def parse_rows(data: bytes, seller_id: int):
    """Seller catalog CSV: fixed columns plus one column per attribute (header = attribute name)."""
    reader = csv.DictReader(io.StringIO(data.decode("utf-8-sig")))
    for row in reader:
        attrs = [{"name": k, "value": v} for k, v in row.items() if k and k.lower() not in RESERVED and v]
        yield {
            "seller_id": seller_id,
            "sku": row["sku"],
            "title": row["title"],
            "description": row.get("description", ""),
            "price_cents": int(round(float(row["price"]) * 100)),
            "currency": row.get("currency", "EUR"),
            "stock": int(row.get("stock") or 0),
            "category_path": row["category"],
            "attributes": attrs,
        }
