// Package metrics is AutoHeal's Prometheus registry: the collectors the
// webhook, the worker and the LLM planner report to, and the gauges that are
// read from Redis when /metrics is scraped (queue depth, dead letters).
//
// The packages that report define their own small interfaces (alerts.Metrics,
// bot.Metrics); *Registry implements them, so they never import this package.
package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/autoheal/autoheal/investigate/llm"
	"github.com/autoheal/autoheal/sessions"
)

// Rejection reasons of the webhook (the reason label of
// autoheal_alerts_rejected_total).
const (
	ReasonUnauthorized  = "unauthorized"
	ReasonMethod        = "method"
	ReasonTooLarge      = "too_large"
	ReasonBadJSON       = "bad_json"
	ReasonVersion       = "version"
	ReasonNoAlerts      = "no_alerts"
	ReasonMissingLabels = "missing_labels"
	ReasonInvalid       = "invalid"
	ReasonQueueFull     = "queue_full"
	ReasonUnavailable   = "unavailable"
)

// Reasons lists every rejection reason; each series exists from the start.
var Reasons = []string{ReasonUnauthorized, ReasonMethod, ReasonTooLarge, ReasonBadJSON, ReasonVersion,
	ReasonNoAlerts, ReasonMissingLabels, ReasonInvalid, ReasonQueueFull, ReasonUnavailable}

// DepthSource reports the work queue's state (*sessions.Queue).
type DepthSource interface {
	Depth(ctx context.Context) (sessions.Depth, error)
}

// Options configure a Registry.
type Options struct {
	// Queue is read on every scrape for the depth gauges (optional).
	Queue DepthSource
	// LLM are the planner's counters (default llm.DefaultCounters).
	LLM *llm.Counters
	// ScrapeTimeout bounds the Redis reads of one scrape (default 2 s).
	ScrapeTimeout time.Duration
	// NoRuntime leaves out the Go runtime and process collectors.
	NoRuntime bool
	Logger    *slog.Logger
}

// Registry holds AutoHeal's collectors.
type Registry struct {
	reg *prometheus.Registry
	log *slog.Logger

	alertsReceived     *prometheus.CounterVec
	alertsDeduplicated prometheus.Counter
	alertsRejected     *prometheus.CounterVec
	enqueueSeconds     prometheus.Histogram
	incidents          *prometheus.CounterVec
	investigations     *prometheus.CounterVec
	investigationSecs  *prometheus.HistogramVec
	dependencyUp       *prometheus.GaugeVec
	eventsShed         *prometheus.CounterVec
	settingsRefused    *prometheus.CounterVec
	approvals          *prometheus.CounterVec
	approvalsResumed   prometheus.Counter
}

// New returns a registry with every AutoHeal collector registered.
func New(o Options) *Registry {
	if o.LLM == nil {
		o.LLM = llm.DefaultCounters
	}
	if o.ScrapeTimeout <= 0 {
		o.ScrapeTimeout = 2 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	r := &Registry{
		reg: prometheus.NewRegistry(),
		log: o.Logger.With("component", "metrics"),
		alertsReceived: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "autoheal_alerts_received_total",
			Help: "Alerts received in accepted Alertmanager webhooks, by status (firing, resolved).",
		}, []string{"status"}),
		alertsDeduplicated: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "autoheal_alerts_deduplicated_total",
			Help: "Incident notifications dropped because the same one was queued within the dedupe window (retries, HA peers, several replicas).",
		}),
		alertsRejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "autoheal_alerts_rejected_total",
			Help: "Webhook requests refused, by reason.",
		}, []string{"reason"}),
		enqueueSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "autoheal_webhook_enqueue_seconds",
			Help:    "Time from a webhook request's arrival to all of its incidents being on the queue.",
			Buckets: []float64{.001, .0025, .005, .01, .02, .05, .1, .25, .5, 1, 2.5},
		}),
		incidents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "autoheal_incident_events_total",
			Help: "Alert incident events handled by the worker: opened, refired, investigated, resolved.",
		}, []string{"event"}),
		investigations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "autoheal_investigations_total",
			Help: "Finished investigations by outcome (ok, failed, parked), granted confidence band and planner mode.",
		}, []string{"outcome", "band", "mode"}),
		investigationSecs: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "autoheal_investigation_duration_seconds",
			Help:    "Wall time of investigations by outcome.",
			Buckets: []float64{1, 2.5, 5, 10, 20, 30, 45, 60, 90, 120, 180, 300},
		}, []string{"outcome"}),
		dependencyUp: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "autoheal_dependency_up",
			Help: "Whether a dependency answered its last health check (1) or not (0), by dependency (redis, slack); updated when /readyz is probed.",
		}, []string{"dependency"}),
		eventsShed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "autoheal_slack_events_shed_total",
			Help: "Acknowledged Slack events dropped because their lane's queue was full, by lane (events: mentions; interactive: clicks, modals, slash commands).",
		}, []string{"lane"}),
		settingsRefused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "autoheal_settings_refused_total",
			Help: "Setting changes refused, by setting key and reason (not_admin, host_not_allowed, private_address, unresolvable, credentials_in_url, admin_check_failed).",
		}, []string{"key", "reason"}),
		approvals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "autoheal_approvals_total",
			Help: "Decisions on proposed fixes by action: approved (a pull request opened or linked), updated (an open pull request got a new fix), rejected, refused (a click by someone who is not an approver), failed (pushing an approved fix failed), issue_created. The audit log (bot audit) has each one.",
		}, []string{"action"}),
		approvalsResumed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "autoheal_approvals_resumed_total",
			Help: "Approvals resumed by another replica's sweeper because the replica carrying them out (opening the pull request, linking it) stopped renewing its lease: killed, out of memory, node lost.",
		}),
	}
	for _, lane := range []string{"events", "interactive"} {
		r.eventsShed.WithLabelValues(lane)
	}
	for _, reason := range Reasons {
		r.alertsRejected.WithLabelValues(reason)
	}
	for _, a := range sessions.DecisionActions {
		r.approvals.WithLabelValues(string(a))
	}
	for _, s := range []string{"firing", "resolved"} {
		r.alertsReceived.WithLabelValues(s)
	}
	r.reg.MustRegister(r.alertsReceived, r.alertsDeduplicated, r.alertsRejected, r.enqueueSeconds,
		r.incidents, r.investigations, r.investigationSecs, r.dependencyUp, r.eventsShed, r.settingsRefused, r.approvals, r.approvalsResumed, llmCollector{c: o.LLM})
	if o.Queue != nil {
		r.reg.MustRegister(newQueueCollector(o.Queue, o.ScrapeTimeout, r.log))
	}
	if !o.NoRuntime {
		r.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return r
}

// Handler serves the registry in the Prometheus exposition formats.
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{
		ErrorLog:            slogPrinter{r.log},
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: 4,
		Timeout:             10 * time.Second,
	})
}

// Gatherer exposes the registry (tests and embedding).
func (r *Registry) Gatherer() prometheus.Gatherer { return r.reg }

// SlackEventShed counts a Slack event shed by a full lane.
func (r *Registry) SlackEventShed(lane string) { r.eventsShed.WithLabelValues(lane).Inc() }

// DependencyUp records the outcome of a dependency's health check.
func (r *Registry) DependencyUp(dependency string, up bool) {
	v := 0.0
	if up {
		v = 1
	}
	r.dependencyUp.WithLabelValues(dependency).Set(v)
}

// AlertsReceived counts n alerts of an accepted webhook with status.
func (r *Registry) AlertsReceived(status string, n int) {
	r.alertsReceived.WithLabelValues(status).Add(float64(n))
}

// AlertsDeduplicated counts incident notifications dropped as duplicates.
func (r *Registry) AlertsDeduplicated(n int) { r.alertsDeduplicated.Add(float64(n)) }

// WebhookRejected counts one refused webhook request.
func (r *Registry) WebhookRejected(reason string) { r.alertsRejected.WithLabelValues(reason).Inc() }

// WebhookEnqueued observes the time a webhook took to queue its incidents.
func (r *Registry) WebhookEnqueued(d time.Duration) { r.enqueueSeconds.Observe(d.Seconds()) }

// SettingRefused counts a refused setting change.
func (r *Registry) SettingRefused(key, reason string) {
	r.settingsRefused.WithLabelValues(key, reason).Inc()
}

// IncidentEvent counts an alert incident event (opened, refired, investigated, resolved).
func (r *Registry) IncidentEvent(event string) { r.incidents.WithLabelValues(event).Inc() }

// InvestigationDone counts a finished investigation and observes its time.
func (r *Registry) InvestigationDone(outcome, band, mode string, took time.Duration) {
	if band == "" {
		band = "none"
	}
	if mode == "" {
		mode = "none"
	}
	r.investigations.WithLabelValues(outcome, band, mode).Inc()
	r.investigationSecs.WithLabelValues(outcome).Observe(took.Seconds())
}

// Approval counts a decision on a proposed fix (a sessions.AuditAction).
func (r *Registry) Approval(action string) { r.approvals.WithLabelValues(action).Inc() }

// ApprovalResumed counts an approval resumed after its replica died.
func (r *Registry) ApprovalResumed() { r.approvalsResumed.Inc() }

type slogPrinter struct{ log *slog.Logger }

func (p slogPrinter) Println(v ...any) { p.log.Warn("metrics", "err", v) }
