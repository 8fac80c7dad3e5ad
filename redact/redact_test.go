package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRedactsCredentials(t *testing.T) {
	r := New(Options{})
	r.Register("s3cr3t-loki-token-value")
	cases := map[string]string{
		"token xoxb-1234567890-abcdefghijklmnop here":                       "xoxb-1234567890",
		"app xapp-1-A012345-6789-abcdef0123456789":                          "xapp-1-A012345",
		"gh ghp_0123456789abcdefghijklmnopqrstuvwxyz":                       "ghp_0123456789",
		"openai sk-proj-abcdefghijklmnopqrstuvwx":                           "sk-proj-abcdef",
		"Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123":              "abcdefghijklmnopqrstuvwxyz0123",
		`{"password":"hunter2hunter2"}`:                                     "hunter2hunter2",
		"postgres://orders:p4ssw0rd@db:5432/orders":                         "p4ssw0rd",
		"loki said s3cr3t-loki-token-value is invalid":                      "s3cr3t-loki-token-value",
		"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3": "eyJhbGciOiJIUzI1NiJ9",
	}
	for in, secret := range cases {
		out := r.String(in)
		assert.NotContains(t, out, secret, in)
		assert.Contains(t, out, Mask, in)
	}
	assert.Equal(t, "NullPointerException at AdService.java:137", r.String("NullPointerException at AdService.java:137"))
}

func TestPIIOptions(t *testing.T) {
	r := New(Options{Emails: true, Cards: true, IPs: true})
	out := r.String("user jane.doe@example.com paid with 4111 1111 1111 1111 from 10.42.1.7, order 1234567890123")
	assert.NotContains(t, out, "jane.doe@example.com")
	assert.NotContains(t, out, "4111 1111 1111 1111")
	assert.NotContains(t, out, "10.42.1.7")
	assert.Contains(t, out, "1234567890123", "a number that fails the Luhn check is not a card")
	assert.Contains(t, New(Options{}).String("mail jane@example.com"), "jane@example.com", "PII masking is opt-in")
}

func TestValueRedactsNestedSecrets(t *testing.T) {
	r := New(Options{})
	v := r.Value(map[string]any{"loki_token": "abc123abc123", "query": "x", "nested": []any{"Bearer abcdefghijklmnopqrstuvwxyz"}})
	m := v.(map[string]any)
	assert.Equal(t, Mask, m["loki_token"])
	assert.Equal(t, "x", m["query"])
	assert.NotContains(t, m["nested"].([]any)[0], "abcdefghijklmnop")
}

func TestContainsRegistered(t *testing.T) {
	r := New(Options{})
	r.Register("p@ss:w/rd=12345")
	assert.True(t, r.ContainsRegistered("postgres://u:p@ss:w/rd=12345@db/x"))
	assert.False(t, r.ContainsRegistered("nothing here"))
	var nilR *Redactor
	assert.False(t, nilR.ContainsRegistered("x"))
}

func TestKeyNamesAreNotSecrets(t *testing.T) {
	r := New(Options{})
	for _, in := range []string{"- secretKey: DB_PASSWORD", "key: connection-string", `password: ${DB_PASSWORD}`, "token: {{ .Values.token }}"} {
		assert.Equal(t, in, r.String(in))
	}
	assert.NotContains(t, r.String("password: Xk9#mq2!zz"), "Xk9#mq2!zz")
	assert.NotContains(t, r.String("api_key=AbC123xyz789"), "AbC123xyz789")
}
