package remediate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/investigate"
	ghsim "github.com/autoheal/autoheal/sim/github"
)

// mapReader serves files from a map; unknown paths are not found.
type mapReader map[string]string

func (m mapReader) ReadFile(_ context.Context, repo, ref, path string) ([]byte, error) {
	if ref == "broken" {
		return nil, errors.New("GitHub is down")
	}
	b, ok := m[path]
	if !ok {
		return nil, fmt.Errorf("%s: %w", path, ErrFileNotFound)
	}
	return []byte(b), nil
}

func TestProposeByBucket(t *testing.T) {
	sc := loadScenario(t, paymentScenario)
	cart := loadScenario(t, cartScenario)
	files := mapReader{paymentFile: string(sc.Repo.Files[paymentFile]), cartManifest: string(cart.Repo.Files[cartManifest])}
	code := func() *investigate.HealResult { return paymentResult(t, sc, "k", false) }
	infra := func() *investigate.HealResult {
		r := cartResult(cart, "k", "256Mi")
		r.Repo = "acme/astronomy-shop"
		return r
	}

	tests := []struct {
		name       string
		res        *investigate.HealResult
		kind       Kind
		ineligible string // exact reason, "" when eligible
		contains   string // reason substring when not exact
		report     bool
	}{
		{name: "code bug gets a code patch", res: code(), kind: KindCodePatch},
		{name: "infrastructure gets a manifest edit", res: infra(), kind: KindManifestEdit},
		{
			name:       "flake gets a report, never a PR",
			res:        func() *investigate.HealResult { r := code(); r.RootCause.Bucket = investigate.BucketFlake; return r }(),
			kind:       KindNone,
			ineligible: "Flakes get a report, not a PR.", report: true,
		},
		{
			name:       "bad data gets a report, never a PR, even with a patch",
			res:        func() *investigate.HealResult { r := code(); r.RootCause.Bucket = investigate.BucketBadData; return r }(),
			kind:       KindNone,
			ineligible: ReasonBadData, report: true,
		},
		{
			name:       "a result that needs a human: nothing proposed",
			res:        func() *investigate.HealResult { r := code(); r.NeedsHuman = true; return r }(),
			kind:       KindNone,
			ineligible: ReasonNeedsHuman,
		},
		{
			name:       "unknown bucket",
			res:        func() *investigate.HealResult { r := code(); r.RootCause.Bucket = investigate.BucketUnknown; return r }(),
			kind:       KindNone,
			ineligible: ReasonUnknown,
		},
		{
			name:       "code bug with only a manifest edit: no code patch, no edit",
			res:        func() *investigate.HealResult { r := infra(); r.RootCause.Bucket = investigate.BucketCodeBug; return r }(),
			kind:       KindNone,
			ineligible: "A code bug gets a code patch, never a manifest edit, and no patch was produced.",
		},
		{
			name: "infrastructure with only a code patch: refused",
			res: func() *investigate.HealResult {
				r := code()
				r.RootCause.Bucket = investigate.BucketInfrastructure
				return r
			}(),
			kind:       KindNone,
			ineligible: "Infrastructure gets a manifest or configuration edit, never a code patch, and no edit was proposed.",
		},
		{
			name: "code bug patch touching a deployment manifest",
			res: func() *investigate.HealResult {
				r := code()
				lines := strings.Split(strings.TrimSuffix(string(cart.Repo.Files[cartManifest]), "\n"), "\n")
				r.Fix.Patch = &investigate.Patch{File: cartManifest, Diff: investigate.UnifiedDiff(cartManifest, lines, 58, 58, []string{"              memory: 256Mi"})}
				return r
			}(),
			kind:       KindNone,
			ineligible: "A code bug's patch may not change the deployment manifest deploy/k8s/cart.yaml.",
		},
		{
			name:       "code bug without a patch",
			res:        func() *investigate.HealResult { r := code(); r.Fix.Patch = nil; return r }(),
			kind:       KindNone,
			ineligible: "No mechanical patch was produced for this code bug; apply the fix described above by hand.",
		},
		{
			name:       "no repository configured",
			res:        func() *investigate.HealResult { r := code(); r.Repo = ""; return r }(),
			kind:       KindNone,
			ineligible: ReasonNoRepo,
		},
		{
			name: "file missing at the ref",
			res: func() *investigate.HealResult {
				r := code()
				r.Fix.Patch.Diff = strings.ReplaceAll(r.Fix.Patch.Diff, "charge.js", "nope.js")
				r.Fix.Patch.File = "src/payment/nope.js"
				return r
			}(),
			kind:       KindNone,
			ineligible: "src/payment/nope.js does not exist in acme/astronomy-shop at main.",
		},
		{
			name:     "patch naming another file",
			res:      func() *investigate.HealResult { r := code(); r.Fix.Patch.File = "src/payment/index.js"; return r }(),
			kind:     KindNone,
			contains: "is for src/payment/index.js but names src/payment/charge.js",
		},
		{
			name:     "malformed diff",
			res:      func() *investigate.HealResult { r := code(); r.Fix.Patch.Diff = "@@ -1,3 +1,3 @@\n a\n"; return r }(),
			kind:     KindNone,
			contains: "is not a valid unified diff",
		},
		{
			name: "manifest edit of a non-YAML file",
			res: func() *investigate.HealResult {
				r := infra()
				r.Fix.ManifestEdit.File = "deploy/cart.json"
				return r
			}(),
			kind:       KindNone,
			ineligible: "Only YAML manifests and Helm values files are edited, not deploy/cart.json.",
		},
		{
			name: "manifest edit whose old value is not there",
			res: func() *investigate.HealResult {
				r := infra()
				r.Fix.ManifestEdit.OldValue = "96Mi"
				return r
			}(),
			kind:     KindNone,
			contains: `The manifest edit does not apply to deploy/k8s/cart.yaml:58 at main: line 58 (spec.template.spec.containers[cart].resources.limits.memory) is "128Mi", not "96Mi"`,
		},
		{name: "nil result", res: nil, kind: KindNone, ineligible: ReasonNilResult},
		{
			name: "patch creating a new file",
			res: func() *investigate.HealResult {
				r := code()
				r.Fix.Patch = &investigate.Patch{File: "src/payment/guard.js", Diff: "--- /dev/null\n+++ b/src/payment/guard.js\n@@ -0,0 +1,1 @@\n+module.exports = (v) => v ?? {};\n"}
				return r
			}(),
			kind: KindCodePatch,
		},
		{
			name: "patch creating a file that exists",
			res: func() *investigate.HealResult {
				r := code()
				r.Fix.Patch = &investigate.Patch{File: paymentFile, Diff: "--- /dev/null\n+++ b/" + paymentFile + "\n@@ -0,0 +1,1 @@\n+x\n"}
				return r
			}(),
			kind:       KindNone,
			ineligible: "The suggested patch creates src/payment/charge.js, which already exists at main.",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Propose(ctxT(t), tc.res, files, ProposeOptions{})
			require.NoError(t, err)
			assert.Equal(t, tc.kind, p.Kind)
			switch {
			case tc.ineligible != "":
				assert.Equal(t, tc.ineligible, p.Ineligible)
			case tc.contains != "":
				assert.Contains(t, p.Ineligible, tc.contains)
			default:
				assert.Empty(t, p.Ineligible)
			}
			assert.Equal(t, p.Ineligible == "", p.Eligible())
			if p.Eligible() {
				require.Len(t, p.Files, 1)
				assert.NotEmpty(t, p.Diff)
				assert.NotEmpty(t, p.Title)
				assert.Equal(t, blobSHA([]byte(files[p.Files[0].Path])), p.Files[0].BaseSHA, "the blob id of the original (empty for a new file)")
			} else {
				assert.Empty(t, p.Files, "an ineligible proposal carries no change")
			}
			if tc.report {
				assert.Contains(t, p.Report, "### Why no pull request")
				assert.NotEmpty(t, p.ReportTitle)
			}
		})
	}
}

func TestProposeReadFailureIsAnError(t *testing.T) {
	sc := loadScenario(t, paymentScenario)
	res := paymentResult(t, sc, "k", false)
	res.Ref = "broken"
	_, err := Propose(ctxT(t), res, mapReader{}, ProposeOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "GitHub is down")
}

func TestProposalSurvivesJSON(t *testing.T) {
	sc := loadScenario(t, paymentScenario)
	p, err := Propose(ctxT(t), paymentResult(t, sc, "k", false), mapReader{paymentFile: string(sc.Repo.Files[paymentFile])}, ProposeOptions{})
	require.NoError(t, err)
	b, err := json.Marshal(p)
	require.NoError(t, err)
	var back Proposal
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, *p, back)
}

func TestIssueReport(t *testing.T) {
	sc := loadScenario(t, cartScenario)
	res := flakeResult(sc, "kubepodcrashlooping-cart-eccb937875")
	res.Evidence = append(res.Evidence, investigate.Finding{Kind: investigate.KindLogPattern, Quote: "weird `backticks` and <!-- comment --> @team"})
	title, body := IssueReport(res)
	assert.Equal(t, "Flake in cart: Intermittent UNAVAILABLE from cart", title)
	for _, want := range []string{
		"## Flake report: cart", "| Bucket | flake |", "| Confidence | **LOW** |",
		"| Frequency | 10 failures between 18:02 and 18:35 |", "| Seen | 2026-11-27T18:02:03Z – 2026-11-27T18:35:28Z |",
		"1. Record the flake", "### Why no pull request", "``weird `backticks` and <!-- comment --> @team``",
		Marker("kubepodcrashlooping-cart-eccb937875"),
	} {
		assert.Contains(t, body, want)
	}
	assert.Equal(t, 1, strings.Count(body, "<!--")-strings.Count(body, "``weird"), "user text inside code spans cannot open a comment outside them")

	bad := paymentResult(t, loadScenario(t, paymentScenario), "k", false)
	bad.RootCause.Bucket = investigate.BucketBadData
	bad.Fix.Remediation = "Backfill shipping_cost for the affected orders."
	for i := 0; i < 60; i++ {
		bad.Fix.AffectedRecords = append(bad.Fix.AffectedRecords, fmt.Sprintf("order-%03d", i))
	}
	_, body = IssueReport(bad)
	assert.Contains(t, body, "### Affected records (60)")
	assert.Contains(t, body, "`order-049`")
	assert.NotContains(t, body, "order-050")
	assert.Contains(t, body, "… and 10 more")
	assert.Contains(t, body, "Backfill shipping_cost")
}

func TestMarkerCannotEndTheComment(t *testing.T) {
	m := Marker("a-->b--c")
	assert.True(t, strings.HasPrefix(m, "<!-- autoheal:issue-key="))
	assert.Equal(t, 1, strings.Count(m, "-->"))
	assert.True(t, strings.HasSuffix(m, " -->"))
}

func TestSlug(t *testing.T) {
	tests := map[string]string{
		"kubepodcrashlooping-cart-eccb937875": "kubepodcrashlooping-cart-eccb937875",
		"C0INCIDENT/1764606240.000100":        "c0incident-1764606240-000100-",
		"  --  ":                              "issue-",
		strings.Repeat("very-long-key-", 10):  "very-long-key-very-long-key-very-long-key-very-lo-",
	}
	for key, prefix := range tests {
		s := Slug(key)
		assert.True(t, strings.HasPrefix(s, prefix), "%q -> %q", key, s)
		assert.Regexp(t, `^[a-z0-9-]{1,60}$`, s)
		assert.Equal(t, s, Slug(key), "stable")
	}
	assert.NotEqual(t, Slug("Cart-OOM"), Slug("cart-oom"), "keys that differ get different slugs")
	assert.Equal(t, "autoheal/cart-oom", BranchName("", "cart-oom"))
	assert.Equal(t, "fixes/cart-oom", BranchName("fixes/", "cart-oom"))
	assert.Regexp(t, `^issue-[0-9a-f]{10}$`, Slug("token ghp_abcdefghijklmnopqrstuvwxyz0123"))
}

func TestParseApprovers(t *testing.T) {
	a, err := ParseApprovers("U012AB3CD, <@U0ALICE|alice>;W0GRID  <!subteam^S0ONCALL|@oncall> subteam^S0SRE s0lower u012ab3cd")
	require.NoError(t, err)
	assert.Equal(t, []string{"U012AB3CD", "U0ALICE", "W0GRID"}, a.Users)
	assert.Equal(t, []string{"S0ONCALL", "S0SRE", "S0LOWER"}, a.Groups)
	assert.Equal(t, "<@U012AB3CD>, <@U0ALICE>, <@W0GRID>, <!subteam^S0ONCALL>, <!subteam^S0SRE>, <!subteam^S0LOWER>", a.Mentions())

	empty, err := ParseApprovers("  ")
	require.NoError(t, err)
	assert.True(t, empty.Empty())

	_, err = ParseApprovers("U012AB3CD, @alice, #ops")
	require.ErrorIs(t, err, ErrBadApprovers)
	assert.Contains(t, err.Error(), `"@alice", "#ops"`)
}

type failingGroups struct{}

func (failingGroups) GroupMembers(context.Context, string) ([]string, error) {
	return nil, errors.New("slack unavailable")
}

func TestAuthorize(t *testing.T) {
	ctx := ctxT(t)
	a, err := ParseApprovers("U0ALICE S0ONCALL S0SRE")
	require.NoError(t, err)
	groups := staticGroups{"S0ONCALL": {"U0BOB"}, "S0SRE": {"U0CAROL"}}
	tests := []struct {
		name   string
		groups GroupResolver
		user   string
		ok     bool
		err    bool
	}{
		{"listed user", groups, "U0ALICE", true, false},
		{"member of the first group", groups, "U0BOB", true, false},
		{"member of the second group", groups, "U0CAROL", true, false},
		{"nobody", groups, "U0MALLORY", false, false},
		{"not a user id", groups, "alice", false, false},
		{"listed user needs no group lookup", failingGroups{}, "U0ALICE", true, false},
		{"group lookup failure fails closed", failingGroups{}, "U0BOB", false, true},
		{"groups without a resolver", nil, "U0BOB", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ok, err := authorize(ctx, a, tc.groups, tc.user)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.err, err != nil, "err: %v", err)
		})
	}
	ok, err := authorize(ctx, Approvers{}, nil, "U0ALICE")
	require.NoError(t, err)
	assert.False(t, ok, "nobody may approve when no approvers are configured")
}

func TestGitHubErrorMessages(t *testing.T) {
	at := time.Date(2026, 12, 1, 14, 5, 0, 0, time.UTC)
	tests := []struct {
		err  *GitHubError
		want string
	}{
		{&GitHubError{Op: opCreateBranch, Kind: ErrorForbidden, Status: 403}, "GitHub refused to create the branch: the token lacks contents:write (403)."},
		{&GitHubError{Op: opCreateBranch, Kind: ErrorForbidden, Status: 403, Detail: "Resource protected by organization SAML enforcement."}, "GitHub refused to create the branch: the token is not authorized for the organization's SAML single sign-on (403)."},
		{&GitHubError{Op: opCreateBranch, Kind: ErrorUnauthorized, Status: 401}, "GitHub rejected the credentials (401): the token is invalid, expired or revoked."},
		{&GitHubError{Op: opCreatePR, Kind: ErrorRateLimited, RetryAt: at}, "GitHub rate limit reached while trying to create the pull request; retry after 14:05 UTC."},
		{&GitHubError{Op: opCreatePR, Kind: ErrorRateLimited}, "GitHub rate limit reached while trying to create the pull request; retry after a few minutes."},
		{&GitHubError{Op: opComment, Kind: ErrorTimeout}, "GitHub did not answer in time while trying to comment on the pull request; click Approve again to resume."},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, tc.err.Message())
	}
}

// The investigation engine's own result for the example scenario becomes a
// pull request, end to end.
func TestEngineResultBecomesPullRequest(t *testing.T) {
	sc := loadScenario(t, paymentScenario)
	res, err := harness.Run(ctxT(t), sc, harness.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, investigate.BucketCodeBug, res.RootCause.Bucket)
	require.NotNil(t, res.Fix.Patch)

	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store})
	ctx := ctxT(t)
	prop, err := s.Propose(ctx, res)
	require.NoError(t, err)
	require.True(t, prop.Eligible(), prop.Ineligible)
	assert.Equal(t, res.Fix.Patch.Diff, prop.Diff)
	key := firstNonEmpty(res.IssueKey, "engine-key")
	out, err := s.Approve(ctx, ApproveRequest{IssueKey: key, User: approver, Result: res, Proposal: prop, ThreadURL: threadURL})
	require.NoError(t, err)
	assert.Equal(t, StatusCreated, out.Status)
	got := e.file(t, out.CommitSHA, paymentFile)
	assert.Equal(t, string(prop.Files[0].Content), got)
	assert.Contains(t, got, "if (request.shippingCost) {")
}
