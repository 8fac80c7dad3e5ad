import logging
import time

import boto3
from botocore.exceptions import ClientError

log = logging.getLogger("mailer.ses")

_client = boto3.client("sesv2")


def send(to: str, subject: str, html: str, text: str, attempts: int = 4) -> str:
    """Send one message through SES, backing off on throttling."""
    delay = 1.0
    for attempt in range(1, attempts + 1):
        try:
            resp = _client.send_email(
                FromEmailAddress="Tessellate <no-reply@mail.tessellate.app>",
                Destination={"ToAddresses": [to]},
                Content={"Simple": {"Subject": {"Data": subject},
                                    "Body": {"Html": {"Data": html}, "Text": {"Data": text}}}},
                ConfigurationSetName="transactional",
            )
            return resp["MessageId"]
        except ClientError as e:
            if e.response["Error"]["Code"] != "Throttling" or attempt == attempts:
                raise
            log.warning("SES throttled (%s), retrying in %.1fs", e.response["Error"]["Message"], delay)
            time.sleep(delay)
            delay *= 2
    raise RuntimeError("unreachable")
