package remediate

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/sessions"
	ghsim "github.com/autoheal/autoheal/sim/github"
)

// Two incidents (two issue keys, two threads) whose investigations propose
// the same change: the second approval links the open pull request of the
// first instead of opening a duplicate, tells its reviewers, and a re-fire
// of the second incident converges on that same pull request.
func TestSameFixFromAnotherIncidentLinksTheOpenPullRequest(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store})
	ctx := ctxT(t)
	const keyA, keyB = "checkouterrorratehigh-checkout-aaaa", "paymentexceptions-payment-bbbb"
	const threadB = "https://acme.slack.com/archives/C0INCIDENT/p1764606240000200"

	first, err := s.Approve(ctx, ApproveRequest{IssueKey: keyA, User: approver, Result: paymentResult(t, e.sc, keyA, false), ThreadURL: threadURL})
	require.NoError(t, err)
	require.Equal(t, StatusCreated, first.Status)
	assert.False(t, first.SameFix)
	assert.Equal(t, "fix(payment): null pointer at charge.js:58", first.PRTitle)
	prs := e.pulls(t)
	require.Len(t, prs, 1)
	require.Contains(t, prs[0].Body, fixMarkerPrefix, "the pull request names its fix")

	second, err := s.Approve(ctx, ApproveRequest{IssueKey: keyB, User: approver, Result: paymentResult(t, e.sc, keyB, false), ThreadURL: threadB})
	require.NoError(t, err)
	assert.Equal(t, StatusExisting, second.Status)
	assert.True(t, second.SameFix)
	assert.False(t, second.Created)
	assert.Equal(t, first.PRNumber, second.PRNumber)
	assert.Equal(t, first.PRURL, second.PRURL)
	assert.Equal(t, first.PRTitle, second.PRTitle)
	assert.Equal(t, "autoheal/"+keyA, second.Branch)
	assert.Contains(t, second.Message, "the same change is already proposed in pull request #1 "+first.PRURL+" (opened for incident `"+keyA+"`)")

	prs = e.pulls(t)
	require.Len(t, prs, 1, "no duplicate pull request")
	assert.Equal(t, []string{"autoheal/" + keyA}, e.autohealBranches(t), "no second branch")
	assert.Equal(t, 1, e.count("POST", "/pulls"))
	require.Len(t, prs[0].Comments, 1)
	c := prs[0].Comments[0].Body
	assert.Contains(t, c, "Another incident led to the same change (issue key `"+keyB+"`)")
	assert.Contains(t, c, threadB)
	assert.Contains(t, c, Marker(keyB))

	a, err := store.GetApproval(ctx, keyB)
	require.NoError(t, err)
	assert.Equal(t, sessions.ApprovalApproved, a.State)
	assert.Equal(t, first.PRNumber, a.PRNumber)
	assert.Equal(t, "autoheal/"+keyA, a.Branch)

	// A second click on B: the same pull request, nothing written.
	again, err := s.Approve(ctx, ApproveRequest{IssueKey: keyB, User: approver, Result: paymentResult(t, e.sc, keyB, false)})
	require.NoError(t, err)
	assert.Equal(t, StatusExisting, again.Status)
	assert.Equal(t, first.PRNumber, again.PRNumber)
	assert.Len(t, e.pulls(t)[0].Comments, 1)

	// B fires again: it converges on the linked pull request.
	ref, err := s.Refire(ctx, RefireRequest{IssueKey: keyB, Result: paymentResult(t, e.sc, keyB, false), FireCount: 2, Reinvestigated: true})
	require.NoError(t, err)
	assert.Equal(t, StatusConverged, ref.Status)
	assert.Equal(t, first.PRNumber, ref.PRNumber)
	assert.Len(t, e.pulls(t), 1)
}

// A different change (another fix of the same line), or an open pull
// request whose head no longer carries the change, is not the same fix.
func TestDifferentFixOpensItsOwnPullRequest(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	store, _ := newStore(t)
	s := newService(t, e, svcConfig{store: store})
	ctx := ctxT(t)

	a, err := s.Approve(ctx, ApproveRequest{IssueKey: "key-guard", User: approver, Result: paymentResult(t, e.sc, "key-guard", false)})
	require.NoError(t, err)
	require.Equal(t, StatusCreated, a.Status)
	b, err := s.Approve(ctx, ApproveRequest{IssueKey: "key-optional", User: approver, Result: paymentResult(t, e.sc, "key-optional", true)})
	require.NoError(t, err)
	assert.Equal(t, StatusCreated, b.Status, "optional chaining is another change")
	assert.False(t, b.SameFix)
	assert.NotEqual(t, a.PRNumber, b.PRNumber)

	// Someone rewrote the first PR's change: it no longer carries the fix.
	pushFile(t, e, "autoheal/key-guard", paymentFile, string(e.sc.Repo.Files[paymentFile])+"// reviewed\n", "review: other approach")
	c, err := s.Approve(ctx, ApproveRequest{IssueKey: "key-guard-2", User: approver, Result: paymentResult(t, e.sc, "key-guard-2", false)})
	require.NoError(t, err)
	assert.Equal(t, StatusCreated, c.Status)
	assert.False(t, c.SameFix)
	assert.Len(t, e.pulls(t), 3)
}

// Two incidents with the same change approved at the same instant on two
// replicas open one pull request between them.
func TestConcurrentApprovalsOfTheSameFixOpenOnePullRequest(t *testing.T) {
	e := newGHEnv(t, paymentScenario, ghsim.Options{})
	stores, _ := newStores(t, 2)
	replicas := []*Service{newService(t, e, svcConfig{store: stores[0]}), newService(t, e, svcConfig{store: stores[1]})}
	ctx := ctxT(t)
	keys := []string{"race-key-1", "race-key-2", "race-key-3", "race-key-4"}
	var wg sync.WaitGroup
	outs := make([]Outcome, len(keys))
	start := make(chan struct{})
	for i, k := range keys {
		wg.Add(1)
		go func(i int, k string) {
			defer wg.Done()
			<-start
			out, err := replicas[i%2].Approve(ctx, ApproveRequest{IssueKey: k, User: approver, Result: paymentResult(t, e.sc, k, false)})
			assert.NoError(t, err)
			outs[i] = out
		}(i, k)
	}
	close(start)
	wg.Wait()
	created, linked := 0, 0
	for _, o := range outs {
		switch {
		case o.Status == StatusCreated:
			created++
		case o.Status == StatusExisting && o.SameFix:
			linked++
		default:
			t.Fatalf("unexpected outcome %+v", o)
		}
		assert.Equal(t, outs[0].PRNumber, o.PRNumber)
	}
	assert.Equal(t, 1, created)
	assert.Equal(t, len(keys)-1, linked)
	prs := e.pulls(t)
	require.Len(t, prs, 1)
	assert.Len(t, prs[0].Comments, len(keys)-1)
	assert.Len(t, e.autohealBranches(t), 1)
}

func TestFixHashIgnoresPositionsButNotContent(t *testing.T) {
	orig := []byte("a\nb\nc\n")
	moved := []byte("x\ny\na\nb\nc\n")
	guard := func(base []byte) []byte { return []byte(strings.Replace(string(base), "b\n", "if b {\nb\n}\n", 1)) }
	h1 := fixHash("acme/shop", []FileChange{{Path: "f.go", Content: guard(orig)}}, map[string][]byte{"f.go": orig})
	h2 := fixHash("Acme/Shop", []FileChange{{Path: "f.go", Content: guard(moved)}}, map[string][]byte{"f.go": moved})
	assert.Equal(t, h1, h2, "the same change at another position")
	other := fixHash("acme/shop", []FileChange{{Path: "f.go", Content: []byte("a\nb2\nc\n")}}, map[string][]byte{"f.go": orig})
	assert.NotEqual(t, h1, other)
	otherFile := fixHash("acme/shop", []FileChange{{Path: "g.go", Content: guard(orig)}}, map[string][]byte{"g.go": orig})
	assert.NotEqual(t, h1, otherFile)
	otherRepo := fixHash("acme/web", []FileChange{{Path: "f.go", Content: guard(orig)}}, map[string][]byte{"f.go": orig})
	assert.NotEqual(t, h1, otherRepo)
	assert.Equal(t, "k/1 --x", markedIssueKey("body\n"+Marker("k/1 --x")+"\n"))
	assert.Empty(t, markedIssueKey("no marker"))
}
