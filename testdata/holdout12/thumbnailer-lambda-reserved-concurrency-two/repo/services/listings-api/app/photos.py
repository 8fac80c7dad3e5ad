from .storage import thumbs_exist, signed_url

PLACEHOLDER = "https://static.homestead.ie/img/photo-processing.svg"


def photo_urls(listing):
    out = []
    for photo in listing.photos:
        if thumbs_exist(listing.id, photo.key):
            out.append(signed_url(f"{listing.id}/md/{photo.key.split('/')[-1]}.webp"))
        else:
            log.warning("thumbnail not ready, serving placeholder", extra={"listing_id": listing.id, "key": photo.key})
            out.append(PLACEHOLDER)
    return out
