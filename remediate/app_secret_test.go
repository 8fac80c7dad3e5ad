package remediate

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/redact"
	ghsim "github.com/autoheal/autoheal/sim/github"
)

// fakeClock is a settable clock shared by the service and the simulator.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func rsaKey(t *testing.T) (*rsa.PrivateKey, []byte) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	return k, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
}

func TestAppJWTClaims(t *testing.T) {
	key, _ := rsaKey(t)
	now := time.Date(2026, 12, 1, 16, 0, 0, 0, time.UTC)
	tok, err := appJWT(key, 4242, now)
	require.NoError(t, err)
	parts := strings.Split(tok, ".")
	require.Len(t, parts, 3)
	var header map[string]string
	hb, err := base64.RawURLEncoding.DecodeString(parts[0])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(hb, &header))
	assert.Equal(t, map[string]string{"alg": "RS256", "typ": "JWT"}, header)
	var claims map[string]int64
	cb, err := base64.RawURLEncoding.DecodeString(parts[1])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(cb, &claims))
	assert.Equal(t, map[string]int64{"iss": 4242, "iat": now.Unix() - 60, "exp": now.Add(9 * time.Minute).Unix()}, claims)
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	require.NoError(t, err)
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	assert.NoError(t, rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, digest[:], sig))
}

func TestParseAppKey(t *testing.T) {
	key, pkcs1 := rsaKey(t)
	_, err := parseAppKey(pkcs1)
	require.NoError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	_, err = parseAppKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	require.NoError(t, err)
	for _, bad := range [][]byte{nil, []byte("not a key"), pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: []byte("garbage")})} {
		_, err := parseAppKey(bad)
		assert.ErrorIs(t, err, ErrBadAppKey)
	}
	_, err = New(Options{GitHub: GitHubOptions{App: &AppCredentials{AppID: 1, InstallationID: 2, PrivateKeyPEM: []byte("-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n")}}})
	require.ErrorIs(t, err, ErrBadAppKey)
	assert.NotContains(t, err.Error(), "AAAA", "errors never echo key material")
}

func TestGitHubAppInstallationTokenFlow(t *testing.T) {
	key, pemBytes := rsaKey(t)
	clock := &fakeClock{t: time.Now().UTC().Truncate(time.Second)}
	e := newGHEnv(t, paymentScenario, ghsim.Options{AppID: 4242, AppPublicKey: &key.PublicKey, AppInstallationID: 77, Now: clock.Now})
	store, _ := newStore(t)
	app := &GitHubOptions{APIURL: e.apiURL(), App: &AppCredentials{AppID: 4242, InstallationID: 77, PrivateKeyPEM: pemBytes}}
	s := newService(t, e, svcConfig{store: store, github: app, now: clock.Now})
	ctx := ctxT(t)
	key1 := "app-key"
	exchanges := func() int { return e.count("POST", "/app/installations/77/access_tokens") }

	out, err := s.Approve(ctx, ApproveRequest{IssueKey: key1, User: approver, Result: paymentResult(t, e.sc, key1, false), ThreadURL: threadURL})
	require.NoError(t, err)
	require.Equal(t, StatusCreated, out.Status)
	prs := e.pulls(t)
	require.Len(t, prs, 1)
	assert.Equal(t, "autoheal[bot]", prs[0].User, "the PR is opened as the app's bot")
	assert.Equal(t, 1, exchanges(), "one token for the whole flow")

	// Still valid: the cached token is reused.
	clock.Advance(30 * time.Minute)
	_, err = s.Refire(ctx, RefireRequest{IssueKey: key1, Reinvestigated: true, Result: paymentResult(t, e.sc, key1, false), FireCount: 2})
	require.NoError(t, err)
	assert.Equal(t, 1, exchanges())

	// Shortly before it expires (one hour), a new token is exchanged.
	clock.Advance(26 * time.Minute)
	ref, err := s.Refire(ctx, RefireRequest{IssueKey: key1, Reinvestigated: true, Result: paymentResult(t, e.sc, key1, false), FireCount: 3})
	require.NoError(t, err)
	assert.Equal(t, ConvergedCommented, ref.Converged)
	assert.Equal(t, 2, exchanges())
	cs, err := e.sim.Comments(e.owner, e.name, prs[0].Number)
	require.NoError(t, err)
	require.Len(t, cs, 2)
	assert.Equal(t, "autoheal[bot]", cs[1].User)

	// The wrong app id: the simulator rejects the JWT.
	wrong := newService(t, e, svcConfig{store: store, now: clock.Now,
		github: &GitHubOptions{APIURL: e.apiURL(), App: &AppCredentials{AppID: 9999, InstallationID: 77, PrivateKeyPEM: pemBytes}}})
	_, err = wrong.Propose(ctx, paymentResult(t, e.sc, "other", false))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "GitHub refused the GitHub App credentials (401)")
	assert.Contains(t, err.Error(), "Integration not found")
}

func TestPlantedSecretIsNeverPublished(t *testing.T) {
	const secret = "Sup3r-S3cret-Passw0rd-4711"
	red := redact.New(redact.Options{})
	red.Register(secret)
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	store, _ := newStore(t)
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := newService(t, e, svcConfig{store: store, redactor: red, logger: logger})
	ctx := ctxT(t)
	key := "secret-key"
	thread := threadURL + "?ref=" + secret

	plant := func(res *investigate.HealResult) *investigate.HealResult {
		res.Summary += " (db login " + secret + ")"
		res.RootCause.Description += " The DSN was postgres://app:" + secret + "@db:5432/pay."
		res.RootCause.Function = "buildLineItems_" + secret
		res.Evidence = append(res.Evidence, investigate.Finding{Kind: investigate.KindLogPattern, Family: investigate.FamilyLogs,
			Service: "payment", Quote: "connect failed: password authentication failed for " + secret})
		res.Evidence[0].Quote += " " + secret
		res.Fix.Summary += " " + secret
		res.Fix.RegressionTest += " Use the credential " + secret + "."
		res.Fix.Patch.Explanation += " " + secret
		res.ConfidenceNote += " " + secret
		return res
	}

	out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: plant(paymentResult(t, e.sc, key, false)), ThreadURL: thread})
	require.NoError(t, err)
	require.Equal(t, StatusCreated, out.Status)
	same, err := s.Refire(ctx, RefireRequest{IssueKey: key, Reinvestigated: true, Result: plant(paymentResult(t, e.sc, key, false)), ThreadURL: thread, FireCount: 2})
	require.NoError(t, err)
	require.Equal(t, ConvergedCommented, same.Converged)
	offer, err := s.Refire(ctx, RefireRequest{IssueKey: key, Reinvestigated: true, Result: plant(paymentResult(t, e.sc, key, true)), ThreadURL: thread, FireCount: 3})
	require.NoError(t, err)
	require.Equal(t, StatusUpdateOffered, offer.Status)
	diff, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, ProposalID: "ai-3", Result: plant(paymentResult(t, e.sc, key, true)), ThreadURL: thread})
	require.NoError(t, err)
	require.Equal(t, ConvergedCommitted, diff.Converged)
	flake := flakeResult(e.sc, key)
	flake.Evidence[0].Quote += " " + secret
	flake.Fix.Flake.Conditions += " " + secret
	iss, err := s.CreateIssue(ctx, IssueRequest{IssueKey: key, User: approver, Result: flake, ThreadURL: thread})
	require.NoError(t, err)
	require.Equal(t, StatusCreated, iss.Status)

	// Scan everything the simulator stored, and every request it received.
	var stored []string
	for _, pr := range e.pulls(t) {
		stored = append(stored, pr.Title, pr.Body, pr.Head)
		for _, c := range pr.Comments {
			stored = append(stored, c.Body)
		}
		for _, sha := range pr.Commits {
			m, err := e.sim.CommitMessage(e.owner, e.name, sha)
			require.NoError(t, err)
			stored = append(stored, m)
		}
		assert.Contains(t, pr.Body, redact.Mask, "the evidence is there, masked")
	}
	issues, err := e.sim.Issues(e.owner, e.name)
	require.NoError(t, err)
	for _, i := range issues {
		stored = append(stored, i.Title, i.Body)
		for _, c := range i.Comments {
			stored = append(stored, c.Body)
		}
	}
	refs, err := e.sim.Refs(e.owner, e.name)
	require.NoError(t, err)
	for _, r := range refs {
		stored = append(stored, r.Name)
	}
	tr, err := json.Marshal(e.transcript.Entries())
	require.NoError(t, err)
	stored = append(stored, string(tr), out.Message, same.Message, offer.Message, diff.Message, iss.Message)
	a, err := store.GetApproval(ctx, key)
	require.NoError(t, err)
	audit, err := store.AuditLog(ctx, key)
	require.NoError(t, err)
	stored = append(stored, fmt.Sprintf("%+v %+v", a, audit))
	require.Greater(t, len(stored), 10)
	for _, text := range stored {
		assert.NotContains(t, text, secret)
	}

	t.Run("a patch that adds the secret is refused before any write", func(t *testing.T) {
		e := newGHEnv(t, paymentScenario, ghsim.Options{})
		s := newService(t, e, svcConfig{store: store, redactor: red, logger: logger})
		res := paymentResult(t, e.sc, "secret-in-code", false)
		lines := scenarioLines(t, e.sc, paymentFile)
		res.Fix.Patch.Diff = investigate.UnifiedDiff(paymentFile, lines, 58, 58, []string{lines[57], "  const dsn = 'postgres://app:" + secret + "@db/pay';"})
		prop, err := s.Propose(ctx, res)
		require.NoError(t, err)
		require.True(t, prop.Eligible())
		assert.NotContains(t, s.ViewPatch(prop), secret)
		out, err := s.Approve(ctx, ApproveRequest{IssueKey: "secret-in-code", User: approver, Result: res, Proposal: prop})
		require.ErrorIs(t, err, ErrSecretInOutput)
		assert.Equal(t, StatusFailed, out.Status)
		assert.Equal(t, "Refused to commit the change to src/payment/charge.js: it would add a secret to the repository. Nothing was written to GitHub.", out.Message)
		assert.Zero(t, e.count("POST", ""))
	})
	t.Run("an issue key holding a secret never reaches the branch name", func(t *testing.T) {
		e := newGHEnv(t, paymentScenario, ghsim.Options{})
		s := newService(t, e, svcConfig{store: store, redactor: red, logger: logger})
		k := "alert-" + secret
		out, err := s.Approve(ctx, ApproveRequest{IssueKey: k, User: approver, Result: paymentResult(t, e.sc, k, false)})
		require.NoError(t, err)
		require.Equal(t, StatusCreated, out.Status)
		assert.Regexp(t, `^autoheal/issue-[0-9a-f]{10}$`, out.Branch)
		pr := e.pulls(t)[0]
		assert.NotContains(t, pr.Body, secret)
		assert.Contains(t, pr.Body, Marker("alert-"+redact.Mask))
		tr, err := json.Marshal(e.transcript.Entries())
		require.NoError(t, err)
		assert.NotContains(t, string(tr), secret)
	})
	assert.NotEmpty(t, logs.String())
	assert.NotContains(t, logs.String(), secret, "log lines never carry the secret")
}

// syncWriter serializes writes to a buffer shared by goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func TestGitHubOptionsFromEnv(t *testing.T) {
	_, pemBytes := rsaKey(t)
	dir := t.TempDir()
	keyFile := dir + "/app.pem"
	require.NoError(t, os.WriteFile(keyFile, pemBytes, 0o600))
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

	o, err := GitHubOptionsFromEnv(env(map[string]string{"GITHUB_API_URL": "https://ghe.acme.dev/api/v3/", "GITHUB_TOKEN": testToken}))
	require.NoError(t, err)
	assert.Equal(t, GitHubOptions{APIURL: "https://ghe.acme.dev/api/v3/", Token: testToken}, o)

	o, err = GitHubOptionsFromEnv(env(map[string]string{"GITHUB_TOKEN": testToken, "GITHUB_APP_ID": "12", "GITHUB_APP_INSTALLATION_ID": "34", "GITHUB_APP_PRIVATE_KEY_FILE": keyFile}))
	require.NoError(t, err)
	require.NotNil(t, o.App)
	assert.Equal(t, int64(12), o.App.AppID)
	assert.Equal(t, int64(34), o.App.InstallationID)
	assert.Empty(t, o.Token, "the app wins over a token")

	for name, m := range map[string]map[string]string{
		"bad app id":       {"GITHUB_APP_ID": "x"},
		"no installation":  {"GITHUB_APP_ID": "12", "GITHUB_APP_PRIVATE_KEY": string(pemBytes)},
		"no key":           {"GITHUB_APP_ID": "12", "GITHUB_APP_INSTALLATION_ID": "34"},
		"key not PEM":      {"GITHUB_APP_ID": "12", "GITHUB_APP_INSTALLATION_ID": "34", "GITHUB_APP_PRIVATE_KEY": "s3cr3t-not-a-key"},
		"missing key file": {"GITHUB_APP_ID": "12", "GITHUB_APP_INSTALLATION_ID": "34", "GITHUB_APP_PRIVATE_KEY_FILE": dir + "/nope.pem"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := GitHubOptionsFromEnv(env(m))
			require.Error(t, err)
			assert.NotContains(t, err.Error(), "s3cr3t")
		})
	}
}
