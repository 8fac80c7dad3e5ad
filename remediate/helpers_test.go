package remediate

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/internal/redistest"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/redact"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sessions"
	"github.com/autoheal/autoheal/sim"
	ghsim "github.com/autoheal/autoheal/sim/github"
)

const (
	testToken = "ghp_remediateTestToken0123456789abcdefgh"
	approver  = "U0APPROVER"
	outsider  = "U0OUTSIDER"

	paymentScenario = "checkout-fails-payment-typeerror"
	cartScenario    = "cart-oomkilled-low-limit"
	paymentFile     = "src/payment/charge.js"
	cartManifest    = "deploy/k8s/cart.yaml"
)

func ctxT(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func quietLogger() *slog.Logger {
	if os.Getenv("REMEDIATE_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// newRedis connects to the test Redis (REDIS_URL or 127.0.0.1:6379) and
// fails, never skips, when it is unreachable.
func newRedis(t testing.TB) *redis.Client { return redistest.Client(t) }

// newStore returns a sessions store under a unique key prefix, cleaned up
// when the test ends.
func newStore(t testing.TB) (*sessions.Store, *redis.Client) {
	t.Helper()
	stores, rdb := newStores(t, 1)
	return stores[0], rdb
}

// newStores returns n stores (replicas) sharing one unique key prefix.
func newStores(t testing.TB, n int) ([]*sessions.Store, *redis.Client) {
	t.Helper()
	rdb := newRedis(t)
	prefix := redistest.Prefix(t, rdb, "autoheal-remediate-test-")
	var out []*sessions.Store
	for i := 0; i < n; i++ {
		st, err := sessions.New(rdb, sessions.Options{Prefix: prefix, Logger: quietLogger()})
		require.NoError(t, err)
		out = append(out, st)
	}
	return out, rdb
}

func loadScenario(t testing.TB, name string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Load(filepath.Join(examplesDir, name))
	require.NoError(t, err)
	return sc
}

// ghEnv is a GitHub simulator seeded from a scenario, served over HTTP.
type ghEnv struct {
	sc         *scenario.Scenario
	sim        *ghsim.Server
	http       *httptest.Server
	transcript *sim.Transcript
	owner      string
	name       string
}

func newGHEnv(t testing.TB, scenarioName string, opts ghsim.Options) *ghEnv {
	t.Helper()
	sc := loadScenario(t, scenarioName)
	opts.Transcript = sim.NewTranscript(nil)
	if opts.Tokens == nil && opts.AppID == 0 {
		opts.Tokens = []string{testToken}
	}
	srv, err := ghsim.NewFromScenario(sc, opts)
	require.NoError(t, err)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	owner, name, err := splitRepo(sc.Config["repo"])
	require.NoError(t, err)
	return &ghEnv{sc: sc, sim: srv, http: hs, transcript: opts.Transcript, owner: owner, name: name}
}

// apiURL is the simulator in the GitHub Enterprise layout.
func (e *ghEnv) apiURL() string { return e.http.URL + "/api/v3/" }

// count returns how many requests matched method and path suffix.
func (e *ghEnv) count(method, pathSuffix string) int {
	n := 0
	for _, en := range e.transcript.Filter("github") {
		m, p, _ := strings.Cut(en.Method, " ")
		if m == method && strings.HasSuffix(p, pathSuffix) {
			n++
		}
	}
	return n
}

func (e *ghEnv) pulls(t testing.TB) []ghsim.PullRequest {
	t.Helper()
	prs, err := e.sim.PullRequests(e.owner, e.name)
	require.NoError(t, err)
	return prs
}

func (e *ghEnv) autohealBranches(t testing.TB) []string {
	t.Helper()
	bs, err := e.sim.Branches(e.owner, e.name)
	require.NoError(t, err)
	var out []string
	for _, b := range bs {
		if strings.HasPrefix(b, DefaultBranchPrefix) {
			out = append(out, b)
		}
	}
	return out
}

func (e *ghEnv) file(t testing.TB, ref, path string) string {
	t.Helper()
	b, err := e.sim.FileAt(e.owner, e.name, ref, path)
	require.NoError(t, err)
	return string(b)
}

type svcConfig struct {
	store     ApprovalStore
	redactor  *redact.Redactor
	approvers string
	groups    GroupResolver
	github    *GitHubOptions
	now       func() time.Time
	logger    *slog.Logger
}

func newService(t testing.TB, e *ghEnv, c svcConfig) *Service {
	t.Helper()
	if c.approvers == "" {
		c.approvers = approver
	}
	ap, err := ParseApprovers(c.approvers)
	require.NoError(t, err)
	if c.redactor == nil {
		c.redactor = redact.New(redact.Options{})
	}
	gopts := GitHubOptions{APIURL: e.apiURL(), Token: testToken}
	if c.github != nil {
		gopts = *c.github
	}
	if c.logger == nil {
		c.logger = quietLogger()
	}
	s, err := New(Options{GitHub: gopts, Store: c.store, Approvers: ap, Groups: c.groups, Redactor: c.redactor, Logger: c.logger, Now: c.now})
	require.NoError(t, err)
	return s
}

// scenarioLines returns a scenario file's lines (without the final newline).
func scenarioLines(t testing.TB, sc *scenario.Scenario, file string) []string {
	t.Helper()
	b, ok := sc.Repo.Files[file]
	require.True(t, ok, "scenario has no %s", file)
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// paymentResult is a code-bug result for the payment TypeError, shaped like
// the engine's: the statement at charge.js:58 guarded (or, with
// optionalChaining, rewritten with ?.).
func paymentResult(t testing.TB, sc *scenario.Scenario, key string, optionalChaining bool) *investigate.HealResult {
	t.Helper()
	lines := scenarioLines(t, sc, paymentFile)
	src := lines[57]
	require.Contains(t, src, "request.shippingCost.units")
	repl := []string{"  if (request.shippingCost) {", "  " + src, "  }"}
	if optionalChaining {
		repl = []string{strings.ReplaceAll(src, "request.shippingCost.", "request.shippingCost?.")}
	}
	return &investigate.HealResult{
		Summary: "payment throws TypeError at charge.js:58 for orders without shipping cost",
		RootCause: investigate.RootCause{
			Description: "JavaScript undefined dereference in payment at src/payment/charge.js:58 (buildLineItems).",
			Service:     "payment", File: paymentFile, Line: 58, Function: "buildLineItems",
			ErrorType: investigate.ErrNullPointer, Bucket: investigate.BucketCodeBug,
			RawConfidence: 0.95, ClaimedBand: investigate.BandHigh, Band: investigate.BandHigh,
		},
		Evidence: []investigate.Finding{
			{Kind: investigate.KindException, Family: investigate.FamilyTraces, Service: "payment", File: paymentFile, Line: 58, Count: 7,
				Quote: "TypeError: Cannot read properties of undefined (reading 'units')"},
			{Kind: investigate.KindLogPattern, Family: investigate.FamilyLogs, Service: "payment", Count: 31,
				Quote: "Cannot read properties of undefined (reading 'units')"},
			{Kind: investigate.KindChangeCorrelation, Family: investigate.FamilyChanges, Service: "payment",
				Quote: "0cb5b9c payment: send Level 2 line items with each charge (#1897)"},
		},
		Fix: investigate.Fix{
			Summary:        "`request.shippingCost` is undefined for some requests; guard it.",
			Patch:          &investigate.Patch{File: paymentFile, Diff: investigate.UnifiedDiff(paymentFile, lines, 58, 58, repl), Explanation: "request.shippingCost is optional."},
			RegressionTest: "Add a unit test for buildLineItems (charge.js) with an order that has no shipping cost.",
		},
		ConfidenceNote: "HIGH: error type known, file anchored, source read, traces and logs corroborate.",
		Mode:           investigate.ModeDeterministic,
		IssueKey:       key,
		Repo:           sc.Config["repo"],
		Ref:            sc.Config["ref"],
	}
}

// cartResult is an infrastructure result: cart's memory limit at
// deploy/k8s/cart.yaml:58 raised to newValue.
func cartResult(sc *scenario.Scenario, key, newValue string) *investigate.HealResult {
	return &investigate.HealResult{
		Summary: "cart is OOM-killed at its 128Mi memory limit under evening load",
		RootCause: investigate.RootCause{
			Description: "cart's working set reaches the 128Mi memory limit and the container is OOM-killed.",
			Service:     "cart", File: cartManifest, Line: 58, ErrorType: investigate.ErrOOM,
			Bucket: investigate.BucketInfrastructure, Band: investigate.BandHigh, ClaimedBand: investigate.BandHigh,
		},
		Evidence: []investigate.Finding{
			{Kind: investigate.KindK8sEvent, Family: investigate.FamilyK8s, Service: "cart", Count: 6, Quote: "OOMKilled (exit 137)"},
		},
		Fix: investigate.Fix{
			Summary: "Raise the memory limit of cart.",
			ManifestEdit: &investigate.ManifestEdit{File: cartManifest, Line: 58,
				Path: "spec.template.spec.containers[cart].resources.limits.memory", OldValue: "128Mi", NewValue: newValue,
				Reason: "cart is OOM-killed: its working set reaches the 128Mi memory limit"},
		},
		IssueKey: key,
		Repo:     sc.Config["repo"],
		Ref:      sc.Config["ref"],
	}
}

// flakeResult is a flake: intermittent UNAVAILABLE from cart.
func flakeResult(sc *scenario.Scenario, key string) *investigate.HealResult {
	return &investigate.HealResult{
		Summary: "Intermittent UNAVAILABLE from cart",
		RootCause: investigate.RootCause{
			Description: "Connection refused by the callee in cart.", Service: "cart",
			ErrorType: investigate.ErrNetwork, Bucket: investigate.BucketFlake, Band: investigate.BandLow,
		},
		Evidence: []investigate.Finding{{Kind: investigate.KindException, Family: investigate.FamilyTraces, Service: "cart",
			Quote: "Error: 14 UNAVAILABLE: No connection established"}},
		Fix: investigate.Fix{
			Summary: "Intermittent network errors in cart: a flake, not a regression.",
			Steps:   []string{"Record the flake", "Add a retry with backoff"},
			Flake: &investigate.FlakeReport{Frequency: "10 failures between 18:02 and 18:35", Conditions: "network failures in cart",
				FirstSeen: time.Date(2026, 11, 27, 18, 2, 3, 0, time.UTC), LastSeen: time.Date(2026, 11, 27, 18, 35, 28, 0, time.UTC)},
		},
		ConfidenceNote: "LOW: one family only.",
		IssueKey:       key,
		Repo:           sc.Config["repo"],
		Ref:            sc.Config["ref"],
	}
}
