def to_document(change: dict) -> dict:
    t = change["title"]
    return {
        "title": t["name"],
        "original_title": t.get("original_name"),
        "kind": t["kind"],
        "release_year": t.get("release_year"),
        "genres": t.get("genres", []),
        "cast": [c["name"] for c in t.get("cast", [])][:20],
        "provider": change["provider"],
        "available_from": t.get("available_from"),
    }
