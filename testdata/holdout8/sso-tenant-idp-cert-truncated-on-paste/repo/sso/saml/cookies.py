"""RelayState is kept in a short-lived cookie between the redirect to the IdP
and the POST back to the ACS."""
from django.core import signing

COOKIE = "qm_relay"
MAX_AGE = 600


def set_relay_state(response, target: str) -> None:
    # The ACS POST comes from the IdP's origin: Safari drops Lax cookies on
    # cross-site POSTs, so this cookie must be SameSite=None (and Secure).
    response.set_cookie(COOKIE, signing.dumps(target), max_age=MAX_AGE, secure=True, httponly=True, samesite="None")


def pop_relay_state(request) -> str | None:
    raw = request.COOKIES.get(COOKIE)
    if not raw:
        return None
    try:
        return signing.loads(raw, max_age=MAX_AGE)
    except signing.BadSignature:
        return None
