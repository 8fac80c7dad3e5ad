package alerts

import (
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var (
	issueKeyRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?-[0-9a-f]{10}$`)
	fuzzJobRE  = regexp.MustCompile(`^al-[0-9a-f]{32}$`)
)

// FuzzDecode feeds arbitrary bodies to the webhook decoder and, for the
// ones it accepts, to the planner: no panic, only specific validation
// errors, and every accepted body becomes well-formed jobs that account for
// each alert. Seeds are the scenarios' Alertmanager bodies.
func FuzzDecode(f *testing.F) {
	for _, body := range scenarioAlerts(f) {
		f.Add(body)
	}
	f.Add([]byte(`{"version":"4","status":"firing","alerts":[{"status":"firing","labels":{"alertname":"A","namespace":"n"},"startsAt":"2026-01-01T00:00:00Z"}]}`))
	f.Add([]byte(`{"version":"4","alerts":[{"status":"resolved","labels":{"alertname":"A","pod":"cart-7d4b9c8f6d-x2x9z"},"startsAt":"2026-01-01T00:00:00Z","endsAt":"2026-01-01T00:05:00Z"}]}`))
	f.Add([]byte(`{"version":"4","alerts":null}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"version":"4"} {}`))
	routing := DefaultRouting("C0INCIDENTS")
	routing.IssueKeyLabels = []string{"cluster"}
	m, err := ParseMatcher(`alertname="Watchdog"`)
	require.NoError(f, err)
	routing.Routes = []Route{{Name: "watchdog", Matchers: []Matcher{m}, Ignore: true}}
	reasons := map[string]bool{ReasonBadJSON: true, ReasonVersion: true, ReasonNoAlerts: true, ReasonMissingLabels: true, ReasonInvalid: true}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	f.Fuzz(func(t *testing.T, body []byte) {
		msg, err := Decode(body, "namespace")
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("not a ValidationError: %T %v", err, err)
			}
			if !reasons[ve.Reason] || ve.Msg == "" {
				t.Fatalf("validation error without a known reason: %+v", ve)
			}
			return
		}
		if len(msg.Alerts) == 0 {
			t.Fatal("accepted a body without alerts")
		}
		for i, a := range msg.Alerts {
			if a.Labels["alertname"] == "" || a.Labels["namespace"] == "" || a.StartsAt.IsZero() {
				t.Fatalf("alerts[%d] accepted without its required fields: %+v", i, a)
			}
		}
		plan, err := routing.Plan(msg, now)
		if err != nil {
			t.Fatalf("plan: %v", err)
		}
		counted := plan.Ignored
		keys := map[string]bool{}
		for _, job := range plan.Jobs {
			if !fuzzJobRE.MatchString(job.ID) || job.Kind != JobKind {
				t.Fatalf("bad job id or kind: %q %q", job.ID, job.Kind)
			}
			if !issueKeyRE.MatchString(job.Key) {
				t.Fatalf("issue key %q is not branch-safe", job.Key)
			}
			if keys[job.Key] {
				t.Fatalf("two jobs for issue key %q", job.Key)
			}
			keys[job.Key] = true
			j, err := DecodeJob(job.Payload)
			if err != nil {
				t.Fatalf("job payload: %v", err)
			}
			if j.Alerts == 0 {
				t.Fatal("a job without alerts")
			}
			counted += j.Alerts
		}
		if counted != len(msg.Alerts) {
			t.Fatalf("%d alerts accounted for, %d received", counted, len(msg.Alerts))
		}
		if plan.Firing+plan.Resolved != len(msg.Alerts) {
			t.Fatalf("firing %d + resolved %d != %d alerts", plan.Firing, plan.Resolved, len(msg.Alerts))
		}
	})
}
