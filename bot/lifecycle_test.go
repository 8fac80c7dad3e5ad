package bot

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/prometheus/alertmanager/template"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/alerts"
	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/metrics"
	"github.com/autoheal/autoheal/remediate"
	"github.com/autoheal/autoheal/render"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sessions"
	"github.com/autoheal/autoheal/sim"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

const lifecycleToken = "ghs_lifecycle_test_token_0123456789"

// lifecycleEnv is a bot replica with the real pull-request flow against a
// scenario's GitHub simulator, the Alertmanager webhook in front of its
// queue, and an investigator whose result a test can change between fires
// (the engine answers a scenario's frozen telemetry the same way each time).
type lifecycleEnv struct {
	*testEnv
	s       *scenario.Scenario
	b       *harness.Backends
	github  *sim.Transcript
	reg     *metrics.Registry
	webhook string
	edit    atomic.Pointer[func(*investigate.HealResult)]
}

func newLifecycleEnv(t *testing.T, scen string) *lifecycleEnv {
	t.Helper()
	e := newEnv(t, envOptions{})
	s, err := scenario.Load(examplesDir + "/" + scen)
	require.NoError(t, err)
	tr := sim.NewTranscript(nil)
	b, err := harness.Start(s, harness.Options{GitHubToken: lifecycleToken, Transcript: tr})
	require.NoError(t, err)
	t.Cleanup(b.Close)
	require.NoError(t, e.store.Set(testCtx(t), sessions.ChannelScope(incidentChannel), b.Config()))
	approvers, err := remediate.ParseApprovers(approver)
	require.NoError(t, err)
	svc, err := remediate.New(remediate.Options{
		GitHub: remediate.GitHubOptions{APIURL: b.URLs["github"] + "/", Token: lifecycleToken},
		Repo:   s.Config["repo"], Store: e.store, Approvers: approvers,
	})
	require.NoError(t, err)
	l := &lifecycleEnv{testEnv: e, s: s, b: b, github: tr, reg: metrics.New(metrics.Options{NoRuntime: true})}
	investigator := InvestigatorFunc(func(ctx context.Context, eng *investigate.Engine, issue investigate.Issue) (*investigate.HealResult, error) {
		res, err := eng.Investigate(ctx, issue)
		if f := l.edit.Load(); err == nil && f != nil {
			(*f)(res)
		}
		return res, err
	})
	rb := e.startBot(t, func(o *Options) {
		o.Now = func() time.Time { return s.Now }
		o.Remediator, o.Approvers, o.Refirer = RemediatorFromService(svc), svc, RefirerFromService(svc)
		o.Investigator, o.Metrics = investigator, l.reg
	})
	if s.Trigger.IsAlert() {
		cfg, err := alerts.ParseConfig("c.yaml", []byte("routing:\n  default_channel: "+incidentChannel+"\n  cooldown: 0s\n"))
		require.NoError(t, err)
		wq, err := sessions.NewQueue(e.rdb, sessions.QueueOptions{Stream: rb.queue.Options().Stream, DedupeWindow: cfg.Routing.DedupeWindow, Logger: testLogger()})
		require.NoError(t, err)
		wh, err := alerts.NewWebhook(alerts.WebhookOptions{Token: webhookToken, Routing: cfg.Routing, Queue: wq, Logger: testLogger()})
		require.NoError(t, err)
		srv := httptest.NewServer(wh)
		t.Cleanup(srv.Close)
		l.webhook = srv.URL
	}
	return l
}

// alerts returns the alert env view of l, to send notifications.
func (l *lifecycleEnv) alerts() *alertEnv {
	return &alertEnv{testEnv: l.testEnv, url: l.webhook, s: l.s}
}

// fire sends the scenario's alert (the n-th time: a later start, so that
// it is not a duplicate) and returns the incident and the result of the
// investigation this fire ran.
func (l *lifecycleEnv) fire(t *testing.T, n int) (sessions.Incident, sessions.ResultRecord, string) {
	t.Helper()
	a := l.alerts()
	a.send(t, a.variant(t, func(al *template.Alert) { al.StartsAt = al.StartsAt.Add(time.Duration(n-1) * time.Hour) }))
	key := a.key(t)
	inc := a.incident(t, key, "the fire", func(i sessions.Incident) bool { return i.FireCount == n })
	job := AlertInvestigationJobID(key, inc.LastInvestigatedAt)
	return inc, l.waitResult(t, job), job
}

// editResults makes every later investigation's result pass through f.
func (l *lifecycleEnv) editResults(f func(*investigate.HealResult)) { l.edit.Store(&f) }

// githubWrites counts the requests that changed something on GitHub.
func (l *lifecycleEnv) githubWrites() int {
	n := 0
	for _, en := range l.github.Filter("github") {
		if m, _, _ := strings.Cut(en.Method, " "); m != "GET" {
			n++
		}
	}
	return n
}

func (l *lifecycleEnv) pulls(t *testing.T) []pullRequest {
	t.Helper()
	owner, name, _ := strings.Cut(l.s.Config["repo"], "/")
	prs, err := l.b.GitHub.PullRequests(owner, name)
	require.NoError(t, err)
	out := make([]pullRequest, len(prs))
	for i, pr := range prs {
		out[i] = pullRequest{Number: pr.Number, Title: pr.Title, Body: pr.Body, State: pr.State, Head: pr.Head, HeadSHA: pr.HeadSHA, Commits: len(pr.Commits), Comments: len(pr.Comments)}
	}
	return out
}

type pullRequest struct {
	Number             int
	Title, Body, State string
	Head, HeadSHA      string
	Commits, Comments  int
}

func (l *lifecycleEnv) file(t *testing.T, ref, path string) string {
	t.Helper()
	owner, name, _ := strings.Cut(l.s.Config["repo"], "/")
	b, err := l.b.GitHub.FileAt(owner, name, ref, path)
	require.NoError(t, err)
	return string(b)
}

// click sends a button click on a result message.
func (l *lifecycleEnv) click(t *testing.T, messageTS, user, action string) {
	t.Helper()
	_, err := l.sim.BlockAction(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: messageTS, User: user, ActionID: action})
	require.NoError(t, err)
}

// resultShows waits until a result message contains every text.
func (l *lifecycleEnv) resultShows(t *testing.T, messageTS string, texts ...string) slacksim.Message {
	t.Helper()
	var m slacksim.Message
	eventually(t, "the result to show "+strings.Join(texts, ", "), func() bool {
		m, _ = l.sim.Message(incidentChannel, messageTS)
		for _, s := range texts {
			if !strings.Contains(blocksText(m), s) {
				return false
			}
		}
		return true
	})
	return m
}

// threadSays waits until a bot reply in the thread contains text.
func (l *lifecycleEnv) threadSays(t *testing.T, thread, text string) {
	t.Helper()
	eventually(t, "a reply saying "+text, func() bool {
		for _, m := range l.botMessages(incidentChannel, thread) {
			if strings.Contains(m.Text, text) || strings.Contains(blocksText(m), text) {
				return true
			}
		}
		return false
	})
}

// approvals reads autoheal_approvals_total by action from /metrics.
func (l *lifecycleEnv) approvals(t *testing.T) map[string]float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	l.reg.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	out := map[string]float64{}
	for _, m := range approvalsLine.FindAllStringSubmatch(rec.Body.String(), -1) {
		v, err := strconv.ParseFloat(m[2], 64)
		require.NoError(t, err)
		out[m[1]] = v
	}
	return out
}

var approvalsLine = regexp.MustCompile(`(?m)^autoheal_approvals_total\{action="([a-z_]+)"\} (\S+)$`)

// currencyFix turns a result of the payment scenario into one whose fix is
// another line of charge.js: what a later investigation finding a second
// defect proposes.
func currencyFix(t *testing.T, s *scenario.Scenario) func(*investigate.HealResult) {
	const file = "src/payment/charge.js"
	lines := strings.Split(strings.TrimSuffix(string(s.Repo.Files[file]), "\n"), "\n")
	n := 0
	for i, l := range lines {
		if strings.Contains(l, "currency: amount.currencyCode,") {
			n = i + 1
		}
	}
	require.NotZero(t, n)
	diff := investigate.UnifiedDiff(file, lines, n, n, []string{strings.Replace(lines[n-1], "amount.currencyCode,", "amount.currencyCode || 'USD',", 1)})
	return func(r *investigate.HealResult) {
		r.RootCause.Description = "The acquirer rejects charges without a currency code (src/payment/charge.js:75)."
		r.RootCause.Line, r.RootCause.Function = n, "charge"
		r.Fix.Patch = &investigate.Patch{File: file, Diff: diff, Explanation: "amount.currencyCode is empty for gift cards."}
	}
}

// An alert fires again and the new investigation proposes a different fix:
// the thread gets the new result with "Update pull request #1", nothing is
// written to GitHub until an approver clicks it, and the click adds one
// commit to the pull request's branch and rewrites its title and
// description. The next re-fire with that fix only comments. Every decision
// is in the audit log under the alert's key, and in the metrics.
func TestAlertRefireWithADifferentFixUpdatesThePullRequestOnlyOnApproval(t *testing.T) {
	l := newLifecycleEnv(t, "checkout-fails-payment-typeerror")
	ctx := testCtx(t)
	key := l.alerts().key(t)

	inc, first, _ := l.fire(t, 1)
	l.resultShows(t, first.MessageTS, `"text":"Approve"`)
	l.click(t, first.MessageTS, approver, render.ActionApprove)
	l.resultShows(t, first.MessageTS, ":white_check_mark: Approved by <@"+approver+">")
	prs := l.pulls(t)
	require.Len(t, prs, 1)
	require.Equal(t, 1, prs[0].Commits)
	firstTitle := prs[0].Title

	// The re-fire: a different fix, offered, not pushed.
	l.editResults(currencyFix(t, l.s))
	writes := l.githubWrites()
	_, second, secondJob := l.fire(t, 2)
	l.resultShows(t, second.MessageTS, "Update pull request #1", "This fix differs from the one in pull request #1")
	l.threadSays(t, inc.RootTS, "the new investigation proposes a different fix from pull request #1")
	assert.Equal(t, writes, l.githubWrites(), "no GitHub write before the click")
	assert.Equal(t, prs[0].HeadSHA, l.pulls(t)[0].HeadSHA)

	// Someone who is not an approver clicks it: refused, nothing written.
	l.click(t, second.MessageTS, oncall, render.ActionApprove)
	l.waitEphemeral(t, oncall, "You cannot approve fixes")
	assert.Equal(t, writes, l.githubWrites())

	// The approver's click: one commit on the pull request's head.
	env, _, err := l.sim.BlockActionEnvelope(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: second.MessageTS, User: approver, ActionID: render.ActionApprove})
	require.NoError(t, err)
	_, err = l.sim.PushTo(l.sim.Connections()[0].ID, env)
	require.NoError(t, err)
	l.resultShows(t, second.MessageTS, "Approved by <@"+approver+"> — pull request updated")
	l.threadSays(t, inc.RootTS, "approved the update: one commit")
	prs = l.pulls(t)
	require.Len(t, prs, 1, "never a second pull request")
	pr := prs[0]
	assert.Equal(t, 2, pr.Commits)
	head := l.file(t, pr.HeadSHA, "src/payment/charge.js")
	assert.Contains(t, head, "if (request.shippingCost) {", "the first fix stays")
	assert.Contains(t, head, "amount.currencyCode || 'USD',", "the new fix is on the head")
	assert.NotEqual(t, firstTitle, pr.Title)
	assert.Contains(t, pr.Body, "The acquirer rejects charges without a currency code")
	assert.Contains(t, pr.Body, "Updated with a new root cause and fix by AutoHeal after approval by Slack user `"+approver+"`")

	// The same click delivered again (Slack retries) does nothing more.
	writes = l.githubWrites()
	env.EnvelopeID = ""
	_, err = l.sim.PushTo(l.sim.Connections()[0].ID, env)
	require.NoError(t, err)
	l.waitEphemeral(t, approver, "already approved")
	assert.Equal(t, writes, l.githubWrites())

	// The next re-fire finds the same fix: a comment, and no button.
	_, third, _ := l.fire(t, 3)
	l.resultShows(t, third.MessageTS, "No PR change needed: pull request #1 already carries this fix.")
	l.threadSays(t, inc.RootTS, "pull request #1 still applies")
	eventually(t, "the comment", func() bool { return l.pulls(t)[0].Comments == 1 })
	assert.Equal(t, 2, l.pulls(t)[0].Commits)

	log, err := l.store.ReadAudit(ctx, sessions.AuditQuery{IssueKey: key})
	require.NoError(t, err)
	var got []string
	for _, r := range log {
		got = append(got, string(r.Action)+" "+r.User)
		assert.Equal(t, incidentChannel, r.Channel)
		assert.Equal(t, inc.RootTS, r.ThreadTS)
	}
	assert.Equal(t, []string{"approved " + approver, "refused " + oncall, "updated " + approver}, got)
	assert.Equal(t, secondJob, log[2].Proposal)
	assert.Equal(t, 1, log[2].PRNumber)
	m := l.approvals(t)
	assert.Equal(t, 1.0, m["approved"])
	assert.Equal(t, 1.0, m["refused"])
	assert.Equal(t, 1.0, m["updated"])
	assert.Equal(t, 0.0, m["rejected"])
}

// The pull request of an alert was merged, and the alert came back: the
// re-fire writes nothing, the new result offers a new pull request, and
// approving it opens one on a new branch that links the merged one —
// instead of "already approved: PR #1".
func TestAlertRegressionAfterTheMergedPullRequestOpensANewOne(t *testing.T) {
	l := newLifecycleEnv(t, "checkout-fails-payment-typeerror")
	inc, first, _ := l.fire(t, 1)
	l.click(t, first.MessageTS, approver, render.ActionApprove)
	l.resultShows(t, first.MessageTS, ":white_check_mark: Approved by")

	// A reviewer merges it on GitHub.
	owner, name, _ := strings.Cut(l.s.Config["repo"], "/")
	gh, err := github.NewClient(nil).WithAuthToken(lifecycleToken).WithEnterpriseURLs(l.b.URLs["github"], l.b.URLs["github"])
	require.NoError(t, err)
	_, _, err = gh.PullRequests.Merge(testCtx(t), owner, name, 1, "", &github.PullRequestOptions{MergeMethod: "merge"})
	require.NoError(t, err)

	l.editResults(currencyFix(t, l.s))
	writes := l.githubWrites()
	_, second, _ := l.fire(t, 2)
	l.resultShows(t, second.MessageTS, "Pull request #1 was merged and the incident came back", `"text":"Approve"`)
	l.threadSays(t, inc.RootTS, "Fired again after pull request #1 was merged")
	assert.Equal(t, writes, l.githubWrites(), "nothing is written to the merged pull request")

	l.click(t, second.MessageTS, approver, render.ActionApprove)
	l.resultShows(t, second.MessageTS, ":white_check_mark: Approved by <@"+approver+">", "/pull/2")
	l.threadSays(t, inc.RootTS, "It follows pull request #1 (merged)")
	prs := l.pulls(t)
	require.Len(t, prs, 2)
	assert.Equal(t, "open", prs[1].State)
	assert.True(t, strings.HasSuffix(prs[1].Head, "-after-1"), prs[1].Head)
	assert.Contains(t, prs[1].Body, "This incident was addressed before by #1")
	for _, m := range l.sim.Ephemerals(incidentChannel, approver) {
		assert.NotContains(t, m.Text, "already approved")
	}
}

// In a mention thread: Reject, then Re-investigate, gives a new result that
// can be approved; the approval and the rejection are in the audit log
// under the thread's key, as an alert thread's are under the alert's.
func TestMentionRejectThenReinvestigateThenApprove(t *testing.T) {
	p := newPREnv(t, "checkout-fails-payment-typeerror", 1)
	ctx := testCtx(t)
	thread, jobID, rec := p.investigate(t)
	key := threadIssueKey(incidentChannel, thread)

	_, err := p.sim.BlockAction(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: rec.MessageTS, User: approver, ActionID: render.ActionReject})
	require.NoError(t, err)
	eventually(t, "the reject form", func() bool { return len(p.sim.Views()) == 1 })
	sub, err := p.sim.ViewSubmission(slacksim.ViewSubmissionOptions{ViewID: p.sim.Views()[0].ID, User: approver,
		Values: map[string]string{rejectBlockID: "guarding hides the missing shipping cost"}})
	require.NoError(t, err)
	_, err = p.sim.WaitAck(ctx, sub.EnvelopeID)
	require.NoError(t, err)
	eventually(t, "the rejection", func() bool {
		m, _ := p.sim.Message(incidentChannel, rec.MessageTS)
		return strings.Contains(blocksText(m), "Rejected by <@"+approver+">")
	})

	_, err = p.sim.BlockAction(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: rec.MessageTS, User: oncall, ActionID: render.ActionReinvestigate})
	require.NoError(t, err)
	var second slacksim.Message
	eventually(t, "the second result", func() bool {
		for _, m := range p.botMessages(incidentChannel, thread) {
			if m.TS != rec.MessageTS && strings.HasPrefix(m.Text, "Root cause") && strings.Contains(string(m.Blocks), render.ActionApprove) {
				second = m
				return true
			}
		}
		return false
	})
	job2 := jobOf(t, second)
	require.NotEqual(t, jobID, job2)
	_, err = p.sim.BlockAction(slacksim.BlockActionOptions{Channel: incidentChannel, MessageTS: second.TS, User: approver, ActionID: render.ActionApprove})
	require.NoError(t, err)
	eventually(t, "the approval", func() bool {
		m, _ := p.sim.Message(incidentChannel, second.TS)
		return strings.Contains(blocksText(m), ":white_check_mark: Approved by <@"+approver+">")
	})
	assert.Equal(t, 1, p.pulls(t))

	log, err := p.store.ReadAudit(ctx, sessions.AuditQuery{Channel: incidentChannel})
	require.NoError(t, err)
	require.Len(t, log, 2)
	for i, want := range []struct {
		action   sessions.AuditAction
		proposal string
	}{{sessions.AuditRejected, jobID}, {sessions.AuditApproved, job2}} {
		assert.Equal(t, want.action, log[i].Action)
		assert.Equal(t, key, log[i].IssueKey, "one key per thread")
		assert.Equal(t, want.proposal, log[i].Proposal)
		assert.Equal(t, approver, log[i].User)
		assert.Equal(t, thread, log[i].ThreadTS)
	}
	assert.Equal(t, "guarding hides the missing shipping cost", log[0].Detail)
}
