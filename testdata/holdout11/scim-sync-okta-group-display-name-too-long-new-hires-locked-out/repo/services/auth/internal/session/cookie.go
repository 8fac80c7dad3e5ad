package session

import "net/http"

// CookieName moved to the __Host- prefix so the cookie cannot be set by subdomains (SEC-88).
const CookieName = "__Host-tsl_session"

func NewCookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: CookieName, Value: value, Path: "/", MaxAge: maxAge, Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode}
}
