// Package alerts receives Alertmanager webhooks: it authenticates and bounds
// requests, decodes and validates the body (template.Data, version "4"),
// derives a stable issue key per incident, routes alerts to channels and
// turns them into investigations.
package alerts

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/alertmanager/template"

	"github.com/autoheal/autoheal/investigate"
)

// Message is the body Alertmanager's webhook receiver POSTs: template.Data
// plus version, groupKey and truncatedAlerts.
type Message struct {
	*template.Data
	Version         string `json:"version"`
	GroupKey        string `json:"groupKey"`
	TruncatedAlerts uint64 `json:"truncatedAlerts"`
}

// ValidationError is a client error: the body is not a usable webhook.
type ValidationError struct {
	Msg string
	// Reason classifies the error for metrics: bad_json, version,
	// no_alerts, missing_labels or invalid.
	Reason string
}

func (e *ValidationError) Error() string { return e.Msg }

// Validation error reasons.
const (
	ReasonBadJSON       = "bad_json"
	ReasonVersion       = "version"
	ReasonNoAlerts      = "no_alerts"
	ReasonMissingLabels = "missing_labels"
	ReasonInvalid       = "invalid"
)

func invalid(reason, format string, a ...any) error {
	return &ValidationError{Msg: fmt.Sprintf(format, a...), Reason: reason}
}

// Decode parses and validates a webhook body. requiredLabels are labels the
// routing needs on every alert (alertname is always required).
func Decode(body []byte, requiredLabels ...string) (*Message, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, invalid(ReasonBadJSON, "empty body: expected an Alertmanager webhook JSON object")
	}
	var m Message
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, invalid(ReasonBadJSON, "malformed JSON at byte %d: %v", se.Offset, se)
		case errors.As(err, &te):
			return nil, invalid(ReasonBadJSON, "field %q has the wrong type: got JSON %s, want %s", te.Field, te.Value, te.Type)
		}
		return nil, invalid(ReasonBadJSON, "malformed JSON: %v", err)
	}
	if dec.More() {
		return nil, invalid(ReasonBadJSON, "malformed JSON: trailing data after the webhook object")
	}
	if m.Data == nil {
		return nil, invalid(ReasonNoAlerts, "not an Alertmanager webhook: no alerts")
	}
	if m.Version != "4" {
		if m.Version == "" {
			return nil, invalid(ReasonVersion, "missing version: this receiver accepts Alertmanager webhook version \"4\"")
		}
		return nil, invalid(ReasonVersion, "unsupported webhook version %q: this receiver accepts version \"4\"", m.Version)
	}
	if len(m.Alerts) == 0 {
		return nil, invalid(ReasonNoAlerts, "no alerts in the webhook body")
	}
	for i, a := range m.Alerts {
		if a.Status != "firing" && a.Status != "resolved" {
			return nil, invalid(ReasonInvalid, "alerts[%d]: status %q must be firing or resolved", i, a.Status)
		}
		missing := []string{}
		for _, l := range append([]string{"alertname"}, requiredLabels...) {
			if strings.TrimSpace(a.Labels[l]) == "" {
				missing = append(missing, l)
			}
		}
		if len(missing) > 0 {
			return nil, invalid(ReasonMissingLabels, "alerts[%d]: missing label(s) %s needed for routing", i, strings.Join(missing, ", "))
		}
		if a.StartsAt.IsZero() {
			return nil, invalid(ReasonInvalid, "alerts[%d] (%s): startsAt is required", i, a.Labels["alertname"])
		}
	}
	return &m, nil
}

// workloadLabels name the service/workload, most specific first.
var workloadLabels = []string{"service", "service_name", "app", "app_kubernetes_io_name", "k8s_deployment_name", "deployment", "statefulset", "daemonset", "workload", "container", "job"}

// namespaceLabels name the namespace.
var namespaceLabels = []string{"namespace", "k8s_namespace_name", "kubernetes_namespace", "exported_namespace"}

var podSuffixRE = regexp.MustCompile(`-(?:[a-z0-9]{6,10}-[a-z0-9]{5}|[a-z0-9]{5}|\d+)$`)

// Workload names the service an alert is about ("" when no label says).
func Workload(labels map[string]string) string {
	for _, k := range workloadLabels {
		v := strings.TrimSpace(labels[k])
		if v == "" || genericJob(v) {
			continue
		}
		if k == "job" {
			if i := strings.LastIndex(v, "/"); i >= 0 {
				v = v[i+1:]
			}
		}
		return v
	}
	if p := labels["pod"]; p != "" {
		return podSuffixRE.ReplaceAllString(p, "")
	}
	return ""
}

// Namespace names the namespace an alert is about.
func Namespace(labels map[string]string) string {
	for _, k := range namespaceLabels {
		if v := strings.TrimSpace(labels[k]); v != "" {
			return v
		}
	}
	return ""
}

func genericJob(v string) bool {
	switch v {
	case "kube-state-metrics", "kubelet", "cadvisor", "node-exporter", "otel-collector", "opentelemetry-collector", "prometheus", "blackbox", "blackbox-exporter", "kubernetes-pods", "kubernetes-nodes", "apiserver":
		return true
	}
	return false
}

// IssueKey is the stable key of the incident an alert belongs to: alertname,
// namespace, workload and the extra labels routing configures. The same
// alert firing again, from any replica, yields the same key; the key is
// safe for branch names.
func IssueKey(labels map[string]string, extra ...string) string {
	parts := []string{labels["alertname"], Namespace(labels), Workload(labels)}
	sort.Strings(extra)
	for _, k := range extra {
		parts = append(parts, k+"="+labels[k])
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return slug(labels["alertname"]+"-"+Workload(labels)) + "-" + hex.EncodeToString(sum[:])[:10]
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

func slug(s string) string {
	s = strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(s) > 40 {
		s = strings.Trim(s[:40], "-")
	}
	if s == "" {
		s = "alert"
	}
	return s
}

// Incident groups the alerts of one issue key.
type Incident struct {
	Key    string
	Alerts []template.Alert
	Common map[string]string
}

// Incidents splits a message into incidents by issue key, in first-seen order.
func (m *Message) Incidents(extra ...string) []Incident {
	by := map[string]*Incident{}
	var order []string
	for _, a := range m.Alerts {
		labels := map[string]string(a.Labels)
		k := IssueKey(labels, extra...)
		inc := by[k]
		if inc == nil {
			inc = &Incident{Key: k, Common: map[string]string(m.CommonLabels)}
			by[k] = inc
			order = append(order, k)
		}
		inc.Alerts = append(inc.Alerts, a)
	}
	out := make([]Incident, 0, len(order))
	for _, k := range order {
		out = append(out, *by[k])
	}
	return out
}

// IssueOptions add session context to an issue built from alerts.
type IssueOptions struct {
	Key             string
	Now             time.Time
	Repo, Ref       string
	Service         string // configured service overrides the labels
	LogServiceLabel string
}

// Issue turns alerts into an investigation: the text is what a person
// reads in the notification (alert names, summaries, descriptions), the
// hints come from the labels, and the window opens before the first alert.
func Issue(alerts []template.Alert, opts IssueOptions) investigate.Issue {
	issue := investigate.Issue{Trigger: investigate.TriggerAlert, Key: opts.Key, End: opts.Now, Repo: opts.Repo, Ref: opts.Ref,
		Labels: map[string]string{}, Annotations: map[string]string{}, LogServiceLabel: opts.LogServiceLabel}
	var text []string
	seen := map[string]bool{}
	var first time.Time
	for _, a := range alerts {
		// The incident's labels and annotations stay within the limits
		// however many alerts it groups.
		boundedMerge(issue.Labels, a.Labels, MaxLabelBytes)
		boundedMerge(issue.Annotations, a.Annotations, MaxAnnotationBytes)
		for _, t := range []string{a.Labels["alertname"], a.Annotations["summary"], a.Annotations["description"], a.Annotations["message"]} {
			if t != "" && !seen[t] {
				seen[t] = true
				text = append(text, t)
			}
		}
		if first.IsZero() || a.StartsAt.Before(first) {
			first = a.StartsAt
		}
	}
	issue.Text = strings.Join(text, "\n")
	issue.Service = opts.Service
	if issue.Service == "" {
		issue.Service = Workload(issue.Labels)
	}
	issue.Namespace = Namespace(issue.Labels)
	issue.Pod = issue.Labels["pod"]
	issue.FiredAt = first.UTC()
	if issue.End.IsZero() {
		issue.End = time.Now().UTC()
	}
	return issue
}
