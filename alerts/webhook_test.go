package alerts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/alertmanager/template"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/sessions"
)

const testToken = "s3cr3t-webhook-token-0123456789"

var t0 = time.Date(2026, 11, 27, 18, 0, 0, 0, time.UTC)

func testAlert(name, ns, svc, status string, startsAt time.Time) template.Alert {
	a := template.Alert{
		Status:       status,
		Labels:       template.KV{"alertname": name, "namespace": ns, "service": svc, "severity": "critical"},
		Annotations:  template.KV{"summary": name + " on " + svc, "description": "details of " + name},
		StartsAt:     startsAt,
		GeneratorURL: "http://prometheus:9090/graph?g0.expr=up",
		Fingerprint:  "fp-" + name + "-" + ns + "-" + svc,
	}
	if status == StatusResolved {
		a.EndsAt = startsAt.Add(17 * time.Minute)
	}
	return a
}

func webhookBody(t testing.TB, alerts ...template.Alert) []byte {
	t.Helper()
	status := StatusResolved
	for _, a := range alerts {
		if a.Status == StatusFiring {
			status = StatusFiring
		}
	}
	b, err := json.Marshal(Message{Data: &template.Data{Receiver: "autoheal", Status: status, Alerts: alerts,
		GroupLabels: template.KV{}, CommonLabels: template.KV{}, CommonAnnotations: template.KV{}}, Version: "4", GroupKey: "{}:{alertname=\"x\"}"})
	require.NoError(t, err)
	return b
}

type webhookEnv struct {
	h       *Webhook
	srv     *httptest.Server
	queue   *sessions.Queue
	rdb     *redis.Client
	metrics *recMetrics
	logs    *syncBuffer
}

func newWebhookEnv(t *testing.T, mod func(*WebhookOptions), qmod func(*sessions.QueueOptions)) *webhookEnv {
	t.Helper()
	rdb := newRedis(t)
	e := &webhookEnv{rdb: rdb, queue: newQueue(t, rdb, qmod), metrics: newRecMetrics(), logs: &syncBuffer{}}
	routing, err := ParseConfig("test.yaml", []byte(`
routing:
  default_channel: C0INCIDENTS
  required_labels: [namespace]
  routes:
    - name: watchdog
      matchers: ['alertname="Watchdog"']
      ignore: true
    - name: payments
      matchers: ['namespace="payments"']
      channel: C0PAYMENTS
      session: {repo: acme/payments, service_name: payments-api}
`))
	require.NoError(t, err)
	o := WebhookOptions{Token: testToken, Routing: routing.Routing, Queue: e.queue, Metrics: e.metrics,
		Logger: slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	if mod != nil {
		mod(&o)
	}
	e.h, err = NewWebhook(o)
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle(Path, e.h)
	e.srv = httptest.NewServer(mux)
	t.Cleanup(e.srv.Close)
	return e
}

func (e *webhookEnv) post(t *testing.T, body []byte, hdr map[string]string) (*http.Response, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+Path, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if _, ok := hdr["Authorization"]; !ok {
		req.Header.Set("Authorization", "Bearer "+testToken)
	}
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	require.NoError(t, json.Unmarshal(raw, &out), string(raw))
	return resp, out
}

func (e *webhookEnv) jobs(t *testing.T) []Job {
	t.Helper()
	msgs, err := e.rdb.XRange(context.Background(), e.queue.Options().Stream, "-", "+").Result()
	require.NoError(t, err)
	var out []Job
	for _, m := range msgs {
		var sj sessions.Job
		require.NoError(t, json.Unmarshal([]byte(m.Values["job"].(string)), &sj))
		assert.Equal(t, JobKind, sj.Kind)
		j, err := DecodeJob(sj.Payload)
		require.NoError(t, err)
		assert.Equal(t, sj.Key, j.Key)
		out = append(out, j)
	}
	return out
}

func TestWebhookQueuesOneJobPerIncident(t *testing.T) {
	e := newWebhookEnv(t, nil, nil)
	body := webhookBody(t,
		testAlert("HighErrorRate", "shop", "checkout", StatusFiring, t0),
		testAlert("HighErrorRate", "shop", "checkout", StatusFiring, t0.Add(time.Minute)), // same incident, another alert
		testAlert("PodCrashLooping", "payments", "ledger", StatusFiring, t0),
		testAlert("Watchdog", "monitoring", "prometheus", StatusFiring, t0),
	)
	resp, out := e.post(t, body, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, out)
	assert.Equal(t, map[string]any{"status": "ok", "incidents": 2.0, "queued": 2.0, "duplicate": 0.0, "ignored": 1.0}, out)

	jobs := e.jobs(t)
	require.Len(t, jobs, 2)
	checkout, ledger := jobs[0], jobs[1]
	assert.Equal(t, StatusFiring, checkout.Status)
	assert.Equal(t, "C0INCIDENTS", checkout.Channel)
	assert.Equal(t, "default", checkout.Route)
	assert.True(t, checkout.Investigate)
	assert.Equal(t, DefaultCooldown, checkout.Cooldown)
	assert.Equal(t, 2, checkout.Alerts)
	assert.Equal(t, IssueKey(map[string]string{"alertname": "HighErrorRate", "namespace": "shop", "service": "checkout"}), checkout.Key)
	assert.Equal(t, "HighErrorRate", checkout.Alert.Name)
	assert.Equal(t, "checkout", checkout.Alert.Service)
	assert.Equal(t, "critical", checkout.Alert.Severity)
	assert.Equal(t, t0, checkout.Alert.StartsAt, "the earliest start")
	assert.Contains(t, checkout.Alert.Description, "(2 alerts in this incident)")
	assert.Equal(t, investigate.TriggerAlert, checkout.Issue.Trigger)
	assert.Equal(t, checkout.Key, checkout.Issue.Key)
	assert.True(t, checkout.Issue.End.IsZero(), "the worker sets the window's end")
	assert.Contains(t, checkout.Issue.Text, "HighErrorRate on checkout")

	assert.Equal(t, "C0PAYMENTS", ledger.Channel)
	assert.Equal(t, "payments", ledger.Route)
	assert.Equal(t, "payments-api", ledger.Alert.Service, "the route's service_name")
	assert.Equal(t, "payments-api", ledger.Issue.Service)
	assert.Equal(t, "acme/payments", ledger.Issue.Repo)
	assert.Equal(t, map[string]string{"repo": "acme/payments", "service_name": "payments-api"}, ledger.Session)

	assert.Equal(t, 4, e.metrics.received[StatusFiring])
	assert.Equal(t, 1, e.metrics.enqueued)
}

// A retried or duplicated notification (Alertmanager retry, HA peer,
// another replica) is queued once; a change is a new fire.
func TestWebhookDeduplicatesIdenticalNotifications(t *testing.T) {
	e := newWebhookEnv(t, nil, nil)
	body := webhookBody(t, testAlert("HighErrorRate", "shop", "checkout", StatusFiring, t0))
	for i := 0; i < 3; i++ {
		resp, _ := e.post(t, body, nil)
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	_, out := e.post(t, body, nil)
	assert.Equal(t, 0.0, out["queued"])
	assert.Equal(t, 1.0, out["duplicate"])
	assert.Equal(t, 3, e.metrics.dup)

	// The alert started again: a new fire of the same incident.
	again := webhookBody(t, testAlert("HighErrorRate", "shop", "checkout", StatusFiring, t0.Add(time.Hour)))
	_, out = e.post(t, again, nil)
	assert.Equal(t, 1.0, out["queued"])
	// It resolved: one more job, "resolved".
	resolved := webhookBody(t, testAlert("HighErrorRate", "shop", "checkout", StatusResolved, t0.Add(time.Hour)))
	_, out = e.post(t, resolved, nil)
	assert.Equal(t, 1.0, out["queued"])

	jobs := e.jobs(t)
	require.Len(t, jobs, 3)
	assert.Equal(t, jobs[0].Key, jobs[1].Key)
	assert.Equal(t, jobs[0].Key, jobs[2].Key)
	assert.Equal(t, StatusResolved, jobs[2].Status)
	assert.True(t, jobs[2].Alert.Resolved)
	assert.Equal(t, t0.Add(time.Hour+17*time.Minute), jobs[2].Alert.EndsAt)
}

func TestWebhookAuth(t *testing.T) {
	body := webhookBody(t, testAlert("A", "shop", "cart", StatusFiring, t0))
	t.Run("bearer only", func(t *testing.T) {
		e := newWebhookEnv(t, nil, nil)
		for name, hdr := range map[string]string{
			"none": "", "wrong token": "Bearer wrong-token-value-000000000", "prefix of the token": "Bearer " + testToken[:10],
			"token with a suffix": "Bearer " + testToken + "x", "not bearer": "Token " + testToken, "basic": "Basic dXNlcjpwYXNz",
		} {
			resp, out := e.post(t, body, map[string]string{"Authorization": hdr})
			assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, name)
			assert.Equal(t, `Bearer realm="autoheal"`, resp.Header.Get("WWW-Authenticate"), name)
			assert.Equal(t, ReasonUnauthorized, out["reason"])
		}
		resp, _ := e.post(t, body, map[string]string{"Authorization": "bearer " + testToken})
		assert.Equal(t, http.StatusOK, resp.StatusCode, "the scheme is case-insensitive")
		assert.Equal(t, 6, e.metrics.rejected[ReasonUnauthorized])
		assert.NotContains(t, e.logs.String(), testToken, "the token is never logged")
		assert.NotContains(t, e.logs.String(), "wrong-token-value", "nor what was sent instead")
	})
	t.Run("basic and bearer", func(t *testing.T) {
		e := newWebhookEnv(t, func(o *WebhookOptions) { o.BasicUser, o.BasicPassword = "alertmanager", "basic-pass-123" }, nil)
		req := func(user, pass string) int {
			r, _ := http.NewRequest(http.MethodPost, e.srv.URL+Path, bytes.NewReader(body))
			r.SetBasicAuth(user, pass)
			resp, err := http.DefaultClient.Do(r)
			require.NoError(t, err)
			resp.Body.Close()
			if resp.StatusCode == http.StatusUnauthorized {
				assert.Contains(t, resp.Header.Get("WWW-Authenticate"), `Basic realm="autoheal"`)
				assert.Contains(t, resp.Header.Get("WWW-Authenticate"), `Bearer realm="autoheal"`)
			}
			return resp.StatusCode
		}
		assert.Equal(t, http.StatusOK, req("alertmanager", "basic-pass-123"))
		assert.Equal(t, http.StatusUnauthorized, req("alertmanager", "wrong"))
		assert.Equal(t, http.StatusUnauthorized, req("someone", "basic-pass-123"))
		resp, _ := e.post(t, body, nil)
		assert.Equal(t, http.StatusOK, resp.StatusCode, "the bearer token still works")
	})
	t.Run("no credential is refused at construction", func(t *testing.T) {
		_, err := NewWebhook(WebhookOptions{Routing: DefaultRouting("C0X1"), Queue: newQueue(t, newRedis(t), nil)})
		require.Error(t, err)
		_, err = NewWebhook(WebhookOptions{Token: "short", Routing: DefaultRouting("C0X1"), Queue: newQueue(t, newRedis(t), nil)})
		require.Error(t, err)
		_, err = NewWebhook(WebhookOptions{BasicUser: "u", Routing: DefaultRouting("C0X1"), Queue: newQueue(t, newRedis(t), nil)})
		require.Error(t, err)
	})
}

func TestWebhookRejectsBadRequests(t *testing.T) {
	e := newWebhookEnv(t, func(o *WebhookOptions) { o.MaxBodyBytes = 4096 }, nil)

	resp, err := http.Get(e.srv.URL + Path)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Equal(t, http.MethodPost, resp.Header.Get("Allow"))

	big := webhookBody(t, testAlert("A", "shop", strings.Repeat("x", 5000), StatusFiring, t0))
	r, out := e.post(t, big, nil)
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.StatusCode)
	assert.Equal(t, ReasonTooLarge, out["reason"])
	// Without a Content-Length (chunked), the limit applies while reading.
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+Path, io.MultiReader(bytes.NewReader(big)))
	req.ContentLength = -1
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)

	noNS := testAlert("A", "", "cart", StatusFiring, t0)
	cases := []struct {
		name, body, reason, msg string
	}{
		{"malformed JSON", `{"version": "4", "alerts": [`, ReasonBadJSON, "malformed JSON"},
		{"wrong type", `{"version": 4, "alerts": []}`, ReasonBadJSON, "wrong type"},
		{"empty", ``, ReasonBadJSON, "empty body"},
		{"wrong version", strings.Replace(string(webhookBody(t, testAlert("A", "shop", "cart", StatusFiring, t0))), `"version":"4"`, `"version":"3"`, 1), ReasonVersion, `unsupported webhook version "3"`},
		{"no alerts", `{"version":"4","status":"firing","alerts":[]}`, ReasonNoAlerts, "no alerts"},
		{"missing routing label", string(webhookBody(t, noNS)), ReasonMissingLabels, "alerts[0]: missing label(s) namespace"},
		{"bad status", strings.Replace(string(webhookBody(t, testAlert("A", "shop", "cart", StatusFiring, t0))), `"status":"firing","labels"`, `"status":"pending","labels"`, 1), ReasonInvalid, `status "pending"`},
	}
	for _, c := range cases {
		r, out := e.post(t, []byte(c.body), nil)
		assert.Equal(t, http.StatusBadRequest, r.StatusCode, c.name)
		assert.Equal(t, c.reason, out["reason"], c.name)
		assert.Contains(t, out["error"], c.msg, c.name)
	}
	assert.Empty(t, e.jobs(t), "nothing was queued")
	assert.Equal(t, 2, e.metrics.rejected[ReasonTooLarge])
	assert.Equal(t, 1, e.metrics.rejected[ReasonMethod])
	assert.Equal(t, 1, e.metrics.rejected[ReasonMissingLabels])
}

// Alertmanager retries only 5xx: a full or unreachable queue answers 503,
// never 429 or another 4xx, and what was queued before the error is a
// duplicate on the retry.
func TestWebhookAnswers503WhenTheQueueCannotTakeTheWork(t *testing.T) {
	e := newWebhookEnv(t, nil, func(o *sessions.QueueOptions) { o.MaxLen = 1 })
	body := webhookBody(t,
		testAlert("A", "shop", "cart", StatusFiring, t0),
		testAlert("B", "shop", "cart", StatusFiring, t0))
	resp, out := e.post(t, body, nil)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, ReasonQueueFull, out["reason"])
	assert.NotEmpty(t, resp.Header.Get("Retry-After"))
	assert.Len(t, e.jobs(t), 1, "the first incident made it")

	// The queue drains (a worker acknowledged the job); Alertmanager retries.
	require.NoError(t, e.rdb.Del(context.Background(), e.queue.Options().Stream).Err())
	resp, out = e.post(t, body, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, out)
	assert.Equal(t, 1.0, out["queued"])
	assert.Equal(t, 1.0, out["duplicate"], "the incident queued before the error is not queued twice")

	// Redis is gone.
	dead := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { _ = dead.Close() })
	q, err := sessions.NewQueue(dead, sessions.QueueOptions{Stream: "autoheal-alerts-test-dead:jobs", Logger: quietLogger()})
	require.NoError(t, err)
	e2 := newWebhookEnv(t, func(o *WebhookOptions) { o.Queue = q }, nil)
	resp, out = e2.post(t, body, nil)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, ReasonUnavailable, out["reason"])
	assert.Equal(t, 1, e2.metrics.rejected[ReasonUnavailable])
}

// Every alert scenario's webhook body is accepted and queued.
func TestWebhookAcceptsEveryScenarioAlert(t *testing.T) {
	e := newWebhookEnv(t, func(o *WebhookOptions) { o.Routing = DefaultRouting("C0INCIDENTS") }, nil)
	for name, body := range scenarioAlerts(t) {
		resp, out := e.post(t, body, nil)
		assert.Equal(t, http.StatusOK, resp.StatusCode, "%s: %v", name, out)
		assert.Positive(t, out["incidents"], name)
	}
}

func TestJobIDs(t *testing.T) {
	a := testAlert("A", "shop", "cart", StatusFiring, t0)
	b := testAlert("A", "shop", "cart", StatusFiring, t0)
	b.Fingerprint = "other"
	assert.Equal(t, jobID("k", StatusFiring, []template.Alert{a, b}), jobID("k", StatusFiring, []template.Alert{b, a}), "order does not matter")
	assert.NotEqual(t, jobID("k", StatusFiring, []template.Alert{a}), jobID("k", StatusFiring, []template.Alert{a, b}))
	later := a
	later.StartsAt = t0.Add(time.Minute)
	assert.NotEqual(t, jobID("k", StatusFiring, []template.Alert{a}), jobID("k", StatusFiring, []template.Alert{later}))
	firingWithEnd := a
	firingWithEnd.EndsAt = t0.Add(time.Hour) // Alertmanager's resolve timeout moves it on every notification
	assert.Equal(t, jobID("k", StatusFiring, []template.Alert{a}), jobID("k", StatusFiring, []template.Alert{firingWithEnd}))
	assert.NotEqual(t, jobID("k", StatusFiring, []template.Alert{a}), jobID("k", StatusResolved, []template.Alert{a}))
	noFP := a
	noFP.Fingerprint = ""
	assert.Regexp(t, `^al-[0-9a-f]{32}$`, jobID("k", StatusFiring, []template.Alert{noFP}))
}

// One alert with a 900 KiB annotation among normal ones: every incident of
// the notification is queued, the huge one with its values cut to the
// documented limits, and nothing after it is lost.
func TestWebhookQueuesEveryIncidentWhenOneAlertIsHuge(t *testing.T) {
	e := newWebhookEnv(t, func(o *WebhookOptions) { o.MaxBodyBytes = 4 << 20 }, nil)
	huge := testAlert("HugeRunbook", "shop", "cart", StatusFiring, t0)
	huge.Annotations["description"] = strings.Repeat("stack frame line ", 900<<10/17)
	huge.Annotations["runbook_url"] = "https://runbooks.example/cart"
	for i := range 80 {
		huge.Annotations[fmt.Sprintf("extra_%02d", i)] = strings.Repeat("v", 3000)
	}
	huge.Labels["pod_template_hash"] = strings.Repeat("h", 5000)
	body := webhookBody(t, testAlert("Before", "shop", "checkout", StatusFiring, t0), huge,
		testAlert("After", "shop", "payment", StatusFiring, t0), testAlert("AfterToo", "payments", "ledger", StatusFiring, t0))
	require.Greater(t, len(body), 900<<10)

	r, out := e.post(t, body, nil)
	require.Equal(t, http.StatusOK, r.StatusCode, out)
	assert.EqualValues(t, 4, out["queued"])
	assert.Nil(t, out["refused"])
	jobs := e.jobs(t)
	require.Len(t, jobs, 4)
	byName := map[string]Job{}
	for _, j := range jobs {
		byName[j.Alert.Name] = j
	}
	for _, name := range []string{"Before", "HugeRunbook", "After", "AfterToo"} {
		assert.Contains(t, byName, name)
	}
	h := byName["HugeRunbook"]
	desc := h.Issue.Annotations["description"]
	assert.LessOrEqual(t, len(desc), MaxAnnotationValue)
	assert.True(t, strings.HasSuffix(desc, truncatedMark), "a cut value says so")
	assert.Equal(t, "https://runbooks.example/cart", h.Issue.Annotations["runbook_url"], "the annotations people read first are kept")
	total := 0
	for k, v := range h.Issue.Annotations {
		total += len(k) + len(v)
	}
	assert.LessOrEqual(t, total, MaxAnnotationBytes)
	assert.LessOrEqual(t, len(h.Issue.Labels["pod_template_hash"]), MaxLabelValue)
	assert.LessOrEqual(t, len(h.Alert.Description), MaxAnnotationValue+200)
	assert.Contains(t, e.logs.String(), "cut to the limits")
	assert.Equal(t, "details of After", byName["After"].Alert.Description, "other incidents are untouched")
}

// An incident that stays too large even within the limits is refused on its
// own; the rest of the notification is queued.
func TestWebhookRefusesOnlyTheIncidentThatCannotBeQueued(t *testing.T) {
	e := newWebhookEnv(t, func(o *WebhookOptions) { o.MaxBodyBytes = 4 << 20 },
		func(q *sessions.QueueOptions) { q.MaxPayloadBytes = 8 << 10 })
	big := testAlert("Big", "shop", "cart", StatusFiring, t0)
	for i := range 8 {
		big.Annotations[fmt.Sprintf("note_%d", i)] = strings.Repeat("n", 3000)
	}
	body := webhookBody(t, big, testAlert("Small", "shop", "payment", StatusFiring, t0))
	r, out := e.post(t, body, nil)
	require.Equal(t, http.StatusOK, r.StatusCode, out)
	assert.EqualValues(t, 1, out["queued"])
	assert.EqualValues(t, 1, out["refused"])
	jobs := e.jobs(t)
	require.Len(t, jobs, 1)
	assert.Equal(t, "Small", jobs[0].Alert.Name)
	assert.Equal(t, 1, e.metrics.rejected[ReasonTooLarge])

	// Alone, it is refused with 413 (Alertmanager does not retry it).
	r, out = e.post(t, webhookBody(t, big), nil)
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.StatusCode)
	assert.Equal(t, ReasonTooLarge, out["reason"])
}

// Credentials in an alert (a runbook link's access token, a connection
// string quoted in a description) are masked before the alert is cut,
// queued, investigated or shown: every field of the job is clean, while
// the words around them stay.
func TestPlannedJobsHoldNoCredential(t *testing.T) {
	const token, password = "RunbookAccessToken0123456789", "p4ssw0rdInDescription"
	a := testAlert("A", "shop", "cart", StatusFiring, t0)
	a.Annotations["description"] = "cart cannot reach postgres://cart:" + password + "@db:5432/cart (connection refused)"
	a.Annotations["runbook_url"] = "https://runbooks.example/cart?access_token=" + token
	a.GeneratorURL = "http://prometheus:9090/graph?g0.expr=up&api_key=" + token
	msg, err := Decode(webhookBody(t, a), "namespace")
	require.NoError(t, err)
	plan, err := DefaultRouting("C0INCIDENTS").Plan(msg, t0)
	require.NoError(t, err)
	require.Len(t, plan.Jobs, 1)
	payload := string(plan.Jobs[0].Payload)
	assert.NotContains(t, payload, token)
	assert.NotContains(t, payload, password)
	assert.Contains(t, payload, "connection refused", "the evidence around them stays")
}
