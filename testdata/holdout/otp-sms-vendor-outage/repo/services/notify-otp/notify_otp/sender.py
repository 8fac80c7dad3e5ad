import logging
import os

from notify_otp.providers.smsgate import SmsGate, ProviderError
from notify_otp.providers.backup import BackupSms

log = logging.getLogger("notify_otp.sender")

# Operators switch providers with SMS_PROVIDER (smsgate | backup) in the
# notify-otp ConfigMap; the backup provider costs 4x and has lower throughput.
PROVIDER = os.environ.get("SMS_PROVIDER", "smsgate")


def provider():
    if PROVIDER == "backup":
        return BackupSms(os.environ["BACKUP_SMS_API_KEY"])
    return SmsGate(os.environ["SMSGATE_API_KEY"])


def send_otp(phone: str, code: str, ref: str) -> str:
    msg = f"Your Kestrel code is {code}. It expires in 5 minutes. Never share it."
    try:
        return provider().send(phone, msg, ref)
    except ProviderError as e:
        log.error("sms provider rejected message", extra={"provider": PROVIDER, "status": e.status, "ref": ref})
        raise
