"""Re-publish movements from a legacy WMS export onto inventory.movements.

Usage: replay.py EXPORT.csv --topic inventory.movements --source legacy-wms-replay
Rows are sent as they are in the export; the export must follow the
movement.v2 column layout (see docs/runbooks/replay-movements.md).
"""
import argparse
import csv
import json

from confluent_kafka import Producer


def rows(path):
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            yield {
                "movement_id": r["movement_id"],
                "sku": r["sku"],
                "location": r["location"],
                "kind": r["kind"],
                "quantity": int(r["quantity"]) if r["quantity"] else None,
                "occurred_at": r["occurred_at"],
            }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("export")
    ap.add_argument("--topic", default="inventory.movements")
    ap.add_argument("--source", default="legacy-wms-replay")
    ap.add_argument("--bootstrap", default="kafka-bootstrap.kafka.svc:9092")
    args = ap.parse_args()
    p = Producer({"bootstrap.servers": args.bootstrap, "enable.idempotence": True})
    n = 0
    for m in rows(args.export):
        m["source"] = args.source
        p.produce(args.topic, key=m["sku"], value=json.dumps(m))
        n += 1
        p.poll(0)
    p.flush()
    print(f"replayed {n} movements from {args.export}")


if __name__ == "__main__":
    main()
