"""One-off: import reviews from the Bazaarvoice export (bv_export_2026-12.jsonl) into MongoDB."""
import json
import sys

from pymongo import MongoClient


def main(path, mongo_url):
    coll = MongoClient(mongo_url).reviews.reviews
    batch = []
    with open(path) as f:
        for line in f:
            bv = json.loads(line)
            batch.append({
                "sku": bv["ProductId"],
                "rating": bv["Rating"],
                "title": bv.get("Title"),
                "body": bv.get("ReviewText"),
                "authorDisplayName": bv.get("UserNickname") or "Customer",
                "createdAt": bv["SubmissionTime"],
                "status": "published",
                "source": "bv-legacy",
                "helpfulVotes": bv.get("TotalPositiveFeedbackCount", 0),
            })
            if len(batch) == 1000:
                coll.insert_many(batch)
                batch = []
    if batch:
        coll.insert_many(batch)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
