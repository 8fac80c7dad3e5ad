package redact

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// leaked reports whether out still shows secret, or a prefix of it of 8
// characters or more (what a cut before masking leaves).
func leaked(out, secret string) bool {
	n := min(len(secret), 8)
	return strings.Contains(out, secret[:n])
}

// Fake credentials in the formats the rules know (random, never valid).
const (
	googleKey   = "AIzaPtYgjmUhBel31iEl2hpChYgCfrL1spNxnyV"
	npmToken    = "npm_gJTeKdNnFRIBXuDL7DxtpYlSXpfKtHF4vUCs"
	hfToken     = "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"
	githubPAT   = "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"
	azureKey    = "qg6YYZYn9ZhyiA4uoRgnatmUdjAWtGSU8po+799NksnRH9ucAUsdMlHUvTCQCyEZDz/TddJ8HyS5SUkCnD8zRA=="
	sendgridKey = "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"
	twilioKey   = "SK6813e02ea68ef786e4d3cea27d26934b"
	datadogKey  = "484e73cf575dcad6ba2b0aee0ca92373"
	awsSecret   = "kHIfxIq2HZt+PlJhx2jIclHkCiHp6bR1IqfEouHg"
	keyLine     = "xzNNAL5wIScGebcy8F5n3/YNBDRzrZSgqbjG3uhkWKFLf6xuI5aHUQPFeNBTxaQW"
	jwt         = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)

func TestRedactsCredentials(t *testing.T) {
	r := New(Options{})
	r.Register("s3cr3t-loki-token-value")
	cases := []struct{ name, in, secret string }{
		// Secret-named keys, whatever the value looks like.
		{"password=", "login failed password=correcthorsebattery user=bob", "correcthorsebattery"},
		{"client_secret=", "POST /oauth/token client_secret=SUPERSECRETVALUE99&grant_type=client_credentials", "SUPERSECRETVALUE99"},
		{"api_key=", "calling geo api_key=ABCDEF1234567890XYZ", "ABCDEF1234567890XYZ"},
		{"token=", "GET /export?token=deadbeefcafebabe&format=csv", "deadbeefcafebabe"},
		{"query param after", "GET /cb?state=xyz&access_token=Zq8vLkW2nB5m", "Zq8vLkW2nB5m"},
		{"password with &", "DB_PASSWORD=Tr0ub4dor&3", "Tr0ub4dor&3"},
		{"yaml line", "  password: correct horse battery staple", "correct horse battery"},
		{"json", `{"password":"hunter2hunter2"}`, "hunter2hunter2"},
		{"json spaced", `{"user": "bob", "client_secret": "v3ryS3cr3tV4lue"}`, "v3ryS3cr3tV4lue"},
		{"escaped json", `msg="body {\"apiKey\":\"K9x2mQ7pL4vZ\"}"`, "K9x2mQ7pL4vZ"},
		{"python repr", `{'api_key': 'pyK3yV4lue88', 'region': 'eu'}`, "pyK3yV4lue88"},
		{"go struct", `config {Host:db User:app Password:gOp4ssw0rd Port:5432}`, "gOp4ssw0rd"},
		{"env", "export AWS_SECRET_ACCESS_KEY=" + awsSecret, awsSecret},
		{"env lower secret", "STRIPE_WEBHOOK_SECRET=mysecretvalue", "mysecretvalue"},
		{"pgpassword", "PGPASSWORD=pgS3cret! psql -h db", "pgS3cret!"},
		{"db_pass", "db_pass=letmein42", "letmein42"},
		{"connection string", "Server=tcp:sql.example.net;User ID=sa;Password=P@ssw0rd!;Encrypt=true", "P@ssw0rd!"},
		{"ruby hash", `{:password => "rubyP4ss"}`, "rubyP4ss"},
		{"flag", "exec: mysqldump --password s3cretFlag --all-databases", "s3cretFlag"},
		{"xml", "<credentials><password>xmlS3cret</password></credentials>", "xmlS3cret"},
		{"k8s env yaml", "env:\n- name: PAYMENT_API_TOKEN\n  value: plainTokenValue42\n- name: LOG_LEVEL\n  value: debug", "plainTokenValue42"},
		{"k8s env json", `"env":[{"name":"DB_PASSWORD","value":"jsonEnvPass1"},{"name":"PORT","value":"8080"}]`, "jsonEnvPass1"},
		{"span attribute", `{"key": "db.password", "type": "string", "value": "spanAttrPass9"}`, "spanAttrPass9"},
		{"header x-api-key", "X-Api-Key: 9f8e7d6c5b4a", "9f8e7d6c5b4a"},
		{"header cookie", "Cookie: session=abc123def456; theme=dark", "abc123def456"},
		{"auth bearer header", "Authorization: Bearer abc123def456ghi789", "abc123def456ghi789"},
		{"curl bearer", `curl -H "Authorization: Bearer shortTok1" https://api`, "shortTok1"},
		{"basic header", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="},
		{"basic no padding", "proxy sent Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"},
		{"bearer bare", "Bearer abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz"},
		{"private_key json", `"private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n"`, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"},
		// Token formats.
		{"stripe live", "charge failed: sk_live_51H8xkQ2eZvKYlo2C0aBcDeFgHiJ", "sk_live_51H8xkQ2eZvKYlo2C0aBcDeFgHiJ"},
		{"stripe restricted", "rk_live_51H8xkQ2eZvKYlo2C0aB1234", "rk_live_51H8xkQ2eZvKYlo2C0aB1234"},
		{"stripe test", "sk_test_4eC39HqLyjWDarjtT1zdp7dc", "sk_test_4eC39HqLyjWDarjtT1zdp7dc"},
		{"google", "maps key " + googleKey + " rejected", googleKey},
		{"gitlab", "clone with glpat-Abc123Def456Ghi789Jk", "glpat-Abc123Def456Ghi789Jk"},
		{"npm", "//registry.npmjs.org/:_authToken " + npmToken, npmToken},
		{"huggingface", "HF hub " + hfToken, hfToken},
		{"github pat", "push with " + githubPAT, githubPAT},
		{"github classic", "gh ghp_0123456789abcdefghijklmnopqrstuvwxyz", "ghp_0123456789abcdefghijklmnopqrstuvwxyz"},
		{"github app", "ghs_16C7e42F292c6912E7710c838347Ae178B4a", "ghs_16C7e42F292c6912E7710c838347Ae178B4a"},
		{"slack bot", "token xoxb-1234567890-abcdefghijklmnop here", "xoxb-1234567890-abcdefghijklmnop"},
		{"slack app", "app xapp-1-A012345-6789-abcdef0123456789", "xapp-1-A012345-6789-abcdef0123456789"},
		{"slack webhook", "posting to https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXXXXXXXXXX", "T0000/B0000/XXXXXXXXXXXXXXXXXXXXXXXX"},
		{"openai", "openai sk-proj-abcdefghijklmnopqrstuvwx", "sk-proj-abcdefghijklmnopqrstuvwx"},
		{"anthropic", "anthropic sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"},
		{"aws key id", "AccessKeyId AKIAZ7QRSTUVWXYZ2345 denied", "AKIAZ7QRSTUVWXYZ2345"},
		{"aws sts", "ASIAQ3RSTUVWXYZ23456 expired", "ASIAQ3RSTUVWXYZ23456"},
		{"aws secret bare", "aws_secret_access_key     ****************  " + awsSecret, awsSecret},
		{"aws secret prose", "AWS Secret Access Key [None]: " + awsSecret, awsSecret},
		{"azure connection", "DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=" + azureKey + ";EndpointSuffix=core.windows.net", azureKey},
		{"azure bare key", "storage key " + azureKey, azureKey},
		{"azure sas", "GET https://acme.blob.core.windows.net/c/f.csv?sv=2021-08-06&ss=b&sig=AbCdEf%2BgHiJkLmN%3D&se=2026", "AbCdEf%2BgHiJkLmN%3D"},
		{"azure ad secret", "client secret bP88Q~rcBcYjzzOhg1Hnn76Wm3jGgakZiZ.8vMgR", "bP88Q~rcBcYjzzOhg1Hnn76Wm3jGgakZiZ.8vMgR"},
		{"sendgrid", "mail via " + sendgridKey, sendgridKey},
		{"twilio", "twilio " + twilioKey + " used", twilioKey},
		{"datadog env", "DD_API_KEY=" + datadogKey, datadogKey},
		{"datadog bare", "datadog api key is " + datadogKey, datadogKey},
		{"jwt", "jwt " + jwt, jwt},
		{"pem", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\nabc\n-----END RSA PRIVATE KEY-----\ndone", "MIIEpAIBAAKCAQEA7"},
		{"pem without end", "loaded -----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA", "b3BlbnNzaC1rZXktdjEAAAAA"},
		{"key block line", "  47 |   \"" + keyLine + "\" +", keyLine},
		{"url password", "postgres://orders:p4ssw0rd@db:5432/orders", "p4ssw0rd"},
		{"url password no user", "redis://:s3cretRedisPass@redis:6379/0", "s3cretRedisPass"},
		{"mysql dsn", "dial orders:myDsnPass1@tcp(mysql:3306)/orders failed", "myDsnPass1"},
		{"registered", "loki said s3cr3t-loki-token-value is invalid", "s3cr3t-loki-token-value"},
	}
	for _, c := range cases {
		out := r.String(c.in)
		assert.False(t, leaked(out, c.secret), "%s: %q -> %q", c.name, c.in, out)
		assert.Contains(t, out, Mask, c.name)
		assert.Equal(t, out, r.String(out), "%s: masking is idempotent", c.name)
	}
}

// Words around secrets are evidence: they stay.
func TestKeepsEvidence(t *testing.T) {
	r := New(Options{})
	for _, in := range []string{
		"token bucket exhausted: 0 tokens left, refill in 3s",
		"tokens_used: 123",
		"max_tokens=4096 prompt_tokens=812",
		"token_type: Bearer",
		"NullPointerException at AdService.java:137",
		"secretName: db-credentials",
		"- secretKey: DB_PASSWORD",
		"key: connection-string",
		"password: ${DB_PASSWORD}",
		"token: {{ .Values.token }}",
		`pq: password authentication failed for user "orders"`,
		"invalid token: expired",
		"auth: required",
		"password=null",
		"Basic authentication failed for realm api",
		"Bearer token missing",
		"Authorization: Bearer",
		"PWD=/usr/src/app",
		"pass: 12 fail: 0",
		"image sha256:3f1c5a3b0e4d9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b",
		"trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7",
		"GET /api/v1/password-reset?user=bob",
		"[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a5c2e]",
		"secretKeyRef: {name: db, key: password}",
		"volumes:\n- name: creds\n  secret:\n    secretName: db-credentials",
		"the msg.payload was empty",
		"task-queue-worker-1234567890abcdefgh started",
		"at com.acme.payments.CheckoutServiceImplementationFactory.create(CheckoutServiceImplementationFactory.java:42)",
		"SELECT * FROM users WHERE email = $1 AND password = $2",
		"author: jane",
		"oauth: enabled",
	} {
		assert.Equal(t, in, r.String(in))
	}
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
	v := r.Value(map[string]any{
		"loki_token": "abc123abc123", "query": "x", "nested": []any{"Bearer abcdefghijklmnopqrstuvwxyz"},
		"tokens_used": 123.0, "pin": map[string]any{"password": 987654.0},
		"env":  []any{map[string]any{"name": "DB_PASSWORD", "value": "pairValue1"}, map[string]any{"name": "PORT", "value": "8080"}},
		"tags": []any{map[string]any{"key": "db.password", "type": "string", "value": "tagValue2"}},
		"ref":  map[string]any{"password": "${DB_PASSWORD}"},
	})
	m := v.(map[string]any)
	assert.Equal(t, Mask, m["loki_token"])
	assert.Equal(t, "x", m["query"])
	assert.Equal(t, 123.0, m["tokens_used"], "a counter is not a secret")
	assert.Equal(t, Mask, m["pin"].(map[string]any)["password"], "numbers under secret keys are masked")
	assert.NotContains(t, m["nested"].([]any)[0], "abcdefghijklmnop")
	env := m["env"].([]any)
	assert.Equal(t, Mask, env[0].(map[string]any)["value"])
	assert.Equal(t, "8080", env[1].(map[string]any)["value"])
	assert.Equal(t, Mask, m["tags"].([]any)[0].(map[string]any)["value"])
	assert.Equal(t, "${DB_PASSWORD}", m["ref"].(map[string]any)["password"], "a reference is kept")

	ms := r.Value(map[string]string{"name": "API_TOKEN", "value": "strPairValue", "x-api-key": "k3y"}).(map[string]string)
	assert.Equal(t, Mask, ms["value"])
	assert.Equal(t, Mask, ms["x-api-key"])
}

func TestSecretKey(t *testing.T) {
	for _, k := range []string{"password", "DB_PASSWORD", "PGPASSWORD", "clientSecret", "client_secret", "x-api-key", "apiKey", "api_key",
		"aws_secret_access_key", "SecretAccessKey", "SessionToken", "Authorization", "set-cookie", "db_pass", "SMTP_PWD", "auth",
		"X-Amz-Signature", "AccountKey", "private_key", "JSESSIONID", "DD_APP_KEY", "credentials"} {
		assert.True(t, SecretKey(k), k)
	}
	for _, k := range []string{"tokens_used", "token_type", "max_tokens", "secretName", "password_changed_at", "oauth", "author",
		"pass", "PWD", "existingSecret", "AccessKeyId", "private_key_id", "key", "name", "secretKeyRef", "design"} {
		assert.False(t, SecretKey(k), k)
	}
}

func TestClipMasksBeforeCutting(t *testing.T) {
	r := New(Options{})
	in := strings.Repeat("x", 20) + " token=" + "AbCdEfGhIjKlMnOpQrSt"
	out := r.Clip(in, 36) // the cut falls inside the token's value
	assert.False(t, leaked(out, "AbCdEfGhIjKlMnOpQrSt"), out)
	assert.LessOrEqual(t, len([]rune(out)), 36)
	assert.Equal(t, "short", r.Clip("short", 36))
}

func TestContainsRegistered(t *testing.T) {
	r := New(Options{})
	r.Register("p@ss:w/rd=12345")
	assert.True(t, r.ContainsRegistered("postgres://u:p@ss:w/rd=12345@db/x"))
	assert.False(t, r.ContainsRegistered("nothing here"))
	var nilR *Redactor
	assert.False(t, nilR.ContainsRegistered("x"))
}

func TestNilRedactorMasksShapes(t *testing.T) {
	var r *Redactor
	assert.NotContains(t, r.String("password=hunter2hunter2"), "hunter2")
}
