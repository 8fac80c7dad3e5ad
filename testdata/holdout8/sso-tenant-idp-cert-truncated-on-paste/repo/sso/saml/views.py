import logging

from django.http import HttpResponseRedirect, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from onelogin.saml2.auth import OneLogin_Saml2_Auth
from prometheus_client import Counter

from sso.models import TenantSsoSettings
from sso.saml.cookies import pop_relay_state
from sso.saml.request import prepare_django_request
from sso.saml.settings_builder import build_saml_settings
from sso.sessions import start_session

log = logging.getLogger("sso.saml")

LOGINS = Counter("sso_saml_logins_total", "SAML logins by result", ["result"])
FAILURES = Counter("sso_login_failures_total", "Rejected SAML responses", ["tenant", "reason"])


@csrf_exempt
def acs(request, tenant_slug: str):
    tenant = TenantSsoSettings.objects.get(slug=tenant_slug, enabled=True)
    auth = OneLogin_Saml2_Auth(prepare_django_request(request), build_saml_settings(tenant))
    auth.process_response()

    errors = auth.get_errors()
    if errors:
        reason = auth.get_last_error_reason()
        LOGINS.labels("rejected").inc()
        FAILURES.labels(tenant_slug, errors[0]).inc()
        log.warning("SAML response rejected tenant=%s errors=%s reason=%r", tenant_slug, errors, reason)
        return JsonResponse({"error": "authentication_failed"}, status=401)

    LOGINS.labels("ok").inc()
    session = start_session(tenant, auth.get_nameid(), auth.get_attributes())
    log.info("SAML login ok tenant=%s user=%s", tenant_slug, session.user_id)
    return HttpResponseRedirect(pop_relay_state(request) or "/")
