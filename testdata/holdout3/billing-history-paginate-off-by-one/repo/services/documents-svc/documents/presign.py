import boto3
from botocore.config import Config

_s3 = boto3.client("s3", config=Config(retries={"max_attempts": 4, "mode": "adaptive"}, connect_timeout=2, read_timeout=4))

BUCKET = "voltera-prod-invoice-pdfs"


def invoice_pdf_url(invoice_number: str, expires: int = 300) -> str:
    """Pre-signed link to the invoice PDF rendered by the nightly job."""
    key = f"invoices/{invoice_number[:4]}/{invoice_number}.pdf"
    return _s3.generate_presigned_url("get_object", Params={"Bucket": BUCKET, "Key": key}, ExpiresIn=expires)
