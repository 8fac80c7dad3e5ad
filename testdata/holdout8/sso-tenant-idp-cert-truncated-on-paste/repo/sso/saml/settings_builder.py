"""Per-tenant python3-saml settings built from the tenant's SSO record."""
from django.conf import settings as django_settings

from sso.models import TenantSsoSettings


def build_saml_settings(tenant: TenantSsoSettings) -> dict:
    acs = f"{django_settings.PUBLIC_BASE_URL}/sso/saml/{tenant.slug}/acs"
    return {
        "strict": True,
        "debug": False,
        "sp": {
            "entityId": f"{django_settings.PUBLIC_BASE_URL}/sso/saml/{tenant.slug}/metadata",
            "assertionConsumerService": {
                "url": acs,
                "binding": "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST",
            },
            "NameIDFormat": "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
        },
        "idp": {
            "entityId": tenant.idp_entity_id,
            "singleSignOnService": {
                "url": tenant.idp_sso_url,
                "binding": "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect",
            },
            # Stored exactly as the tenant admin pasted it in the admin console.
            "x509cert": tenant.idp_x509cert,
        },
        "security": {
            "wantAssertionsSigned": tenant.want_assertions_signed,
            "wantMessagesSigned": False,
            "requestedAuthnContext": False,
        },
    }
