import logging
import smtplib
import time

log = logging.getLogger("notification_worker.mailer")

MAX_ATTEMPTS = 5


def send_with_backoff(client: smtplib.SMTP, msg) -> None:
    """The relay throttles bursts with 421; back off and retry."""
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            client.send_message(msg)
            return
        except smtplib.SMTPResponseException as e:
            if e.smtp_code != 421 or attempt == MAX_ATTEMPTS:
                raise
            log.warning("smtp throttled, retrying", extra={"attempt": attempt, "code": e.smtp_code})
            time.sleep(2 ** attempt)
