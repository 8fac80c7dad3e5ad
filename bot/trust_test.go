package bot

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/remediate"
	"github.com/autoheal/autoheal/sessions"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

// attacker stands in for a host a Slack user points the bot at: it records
// every request and answers 200 {}.
type attacker struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

func newAttacker(t testing.TB) *attacker {
	t.Helper()
	a := &attacker{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.reqs = append(a.reqs, r.Clone(context.Background()))
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("{}"))
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *attacker) requests() []*http.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*http.Request(nil), a.reqs...)
}

// assertNoCredential fails when any request the attacker received carries
// a credential: an Authorization or tenant header, or any of secrets in
// any header or the URL.
func (a *attacker) assertNoCredential(t testing.TB, secrets ...string) {
	t.Helper()
	for _, r := range a.requests() {
		assert.Empty(t, r.Header.Get("Authorization"), "%s %s carried an Authorization header", r.Method, r.URL.Path)
		assert.Empty(t, r.Header.Get("X-Scope-OrgID"), "%s %s carried the tenant", r.Method, r.URL.Path)
		for name, vs := range r.Header {
			for _, v := range vs {
				for _, s := range secrets {
					assert.NotContains(t, v, s, "%s %s: header %s carried a secret", r.Method, r.URL.Path, name)
				}
			}
		}
		for _, s := range secrets {
			assert.NotContains(t, r.URL.String(), s, "%s %s: the URL carried a secret", r.Method, r.URL.Path)
		}
	}
}

// Secrets of the deployment (the environment fallbacks of the settings).
const (
	envJaegerToken = "env-jaeger-token-0123456789abcdef"
	envLokiToken   = "env-loki-token-0123456789abcdef"
	envLokiTenant  = "env-tenant-acme"
	envPromToken   = "env-prom-token-0123456789abcdef"
	envGitHubToken = "ghp_ENVdeploymentTOKEN0123456789abcdefXYZ"
)

// operatorEnv is a deployment's environment: the scenario's backends with
// a credential for each.
func operatorEnv(b *harness.Backends) map[string]string {
	env := b.Config()
	env["jaeger_token"], env["loki_token"], env["loki_org_id"] = envJaegerToken, envLokiToken, envLokiTenant
	env["prometheus_token"], env["github_token"] = envPromToken, envGitHubToken
	return env
}

var envSecrets = []string{envJaegerToken, envLokiToken, envLokiTenant, envPromToken, envGitHubToken}

// A mention that points every backend of its thread at another host gets
// an investigation that sends that host none of the deployment's
// credentials: the thread's URLs come with the thread's credentials, and
// the thread gave none.
func TestThreadURLsNeverReceiveTheDeploymentsCredentials(t *testing.T) {
	e := newEnv(t, envOptions{})
	s, err := loadScenario("checkout-fails-payment-typeerror")
	require.NoError(t, err)
	b := startBackends(t, s)
	evil := newAttacker(t)
	e.startBot(t, func(o *Options) {
		o.Now = func() time.Time { return s.Now }
		o.Env = operatorEnv(b)
	})
	var lines []string
	for _, g := range config.Groups {
		lines = append(lines, g.URL+": "+evil.URL+"/")
	}
	m, err := e.sim.MentionEvent(slacksim.MentionOptions{Channel: incidentChannel, User: oncall,
		Text: strings.Join(lines, "\n") + "\n" + mentionText(t, s)})
	require.NoError(t, err)
	e.waitResult(t, MentionJobID(m.EventID))

	require.NotEmpty(t, evil.requests(), "the thread's URLs were used")
	evil.assertNoCredential(t, envSecrets...)
}

// Approving a fix in a thread whose github_api_url points elsewhere sends
// that host neither the deployment's token nor its GitHub App's JWT.
func TestApprovalNeverSendsTheDeploymentsGitHubCredentialsToAThreadURL(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := testCtx(t)
	s, err := loadScenario("checkout-fails-payment-typeerror")
	require.NoError(t, err)
	b := startBackends(t, s)
	res, err := harness.RunWith(ctx, b, harness.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, investigate.BucketCodeBug, res.RootCause.Bucket)

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	approvers, err := remediate.ParseApprovers(approver)
	require.NoError(t, err)
	svc, err := remediate.New(remediate.Options{
		GitHub:    remediate.GitHubOptions{APIURL: b.URLs["github"] + "/", App: &remediate.AppCredentials{AppID: 4242, InstallationID: 77, PrivateKeyPEM: pemKey}},
		Repo:      s.Config["repo"],
		Store:     e.store,
		Approvers: approvers,
	})
	require.NoError(t, err)

	evil := newAttacker(t)
	const thread = "1700000000.000100"
	require.NoError(t, e.store.Set(ctx, sessions.ThreadScope(incidentChannel, thread), map[string]string{"github_api_url": evil.URL + "/"}))
	resolved, err := e.store.Resolve(ctx, incidentChannel, thread, operatorEnv(b))
	require.NoError(t, err)

	_, _ = RemediatorFromService(svc).Approve(ctx, ApprovalRequest{
		JobID: "j1", IssueKey: "checkout-issue", Channel: incidentChannel, ThreadTS: thread, User: approver,
		Result: res, Settings: resolved.Settings(),
	})
	require.NotEmpty(t, evil.requests(), "the thread's GitHub URL was used")
	evil.assertNoCredential(t, envSecrets...)
	for _, r := range evil.requests() {
		assert.NotContains(t, r.URL.Path, "/app/installations", "no installation token is requested from the thread's host")
	}
}
