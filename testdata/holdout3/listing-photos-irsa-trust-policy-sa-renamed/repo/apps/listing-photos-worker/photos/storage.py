"""S3 access for photo originals and their variants (IRSA credentials via the pod's service account)."""
import functools
import io

import boto3
from botocore.config import Config

ORIGINALS = "nestfinder-listing-photos-originals"
VARIANTS = "nestfinder-listing-photos-variants"


@functools.cache
def _s3():
    return boto3.client("s3", config=Config(retries={"max_attempts": 5, "mode": "standard"}))


def download(listing_id: str, photo_id: str) -> bytes:
    key = f"{listing_id}/{photo_id}"
    obj = _s3().get_object(Bucket=ORIGINALS, Key=key)
    return obj["Body"].read()


def upload_variant(listing_id: str, photo_id: str, variant: str, data: bytes, content_type: str) -> None:
    key = f"{listing_id}/{photo_id}/{variant}"
    _s3().upload_fileobj(io.BytesIO(data), VARIANTS, key, ExtraArgs={"ContentType": content_type, "CacheControl": "public, max-age=31536000"})
