"""Bearer-token authentication for account-api.

Access tokens are RS256 JWTs minted by Keycloak (realm "harbor"). Keys are
fetched from the realm's JWKS endpoint and cached by PyJWKClient.
"""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass

import jwt
from fastapi import Depends, HTTPException, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from opentelemetry import trace

log = logging.getLogger("account_api.auth")

ISSUER = os.environ.get("OIDC_ISSUER", "https://sso.harbor-mutual.com/realms/harbor")
AUDIENCE = os.environ.get("OIDC_AUDIENCE", "account-api")
_jwks = jwt.PyJWKClient(f"{ISSUER}/protocol/openid-connect/certs", cache_keys=True, lifespan=900)
_bearer = HTTPBearer(auto_error=False)


@dataclass(frozen=True)
class Principal:
    subject: str
    customer_id: str
    scopes: frozenset[str]


def current_principal(creds: HTTPAuthorizationCredentials | None = Depends(_bearer)) -> Principal:
    if creds is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "missing bearer token")
    token = creds.credentials
    try:
        key = _jwks.get_signing_key_from_jwt(token)
        claims = jwt.decode(
            token,
            key.key,
            algorithms=["RS256"],
            audience=AUDIENCE,
            issuer=ISSUER,
            options={"require": ["exp", "iat", "sub"]},
        )
    except jwt.PyJWTError as exc:
        trace.get_current_span().record_exception(exc)
        unverified = jwt.decode(token, options={"verify_signature": False})
        log.warning("jwt rejected: %s: %s", type(exc).__name__, exc,
                    extra={"iat": unverified.get("iat"), "exp": unverified.get("exp"), "sub": unverified.get("sub")})
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "invalid token") from exc
    return Principal(
        subject=claims["sub"],
        customer_id=claims.get("customer_id", ""),
        scopes=frozenset(claims.get("scope", "").split()),
    )
