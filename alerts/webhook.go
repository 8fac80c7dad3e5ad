package alerts

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/autoheal/autoheal/sessions"
)

// Path is where Alertmanager's webhook receiver posts.
const Path = "/alerts/alertmanager"

// DefaultMaxBodyBytes bounds a webhook body (Alertmanager's max_alerts
// bounds it at the sender).
const DefaultMaxBodyBytes = 1 << 20

// Rejection reasons beyond the ValidationError ones (for Metrics).
const (
	ReasonUnauthorized = "unauthorized"
	ReasonMethod       = "method"
	ReasonTooLarge     = "too_large"
	ReasonQueueFull    = "queue_full"
	ReasonUnavailable  = "unavailable"
)

// Enqueuer puts jobs on the work queue (*sessions.Queue).
type Enqueuer interface {
	Enqueue(ctx context.Context, job sessions.Job) (string, error)
}

// Metrics receives the webhook's counters (*metrics.Registry).
type Metrics interface {
	AlertsReceived(status string, n int)
	AlertsDeduplicated(n int)
	WebhookRejected(reason string)
	WebhookEnqueued(d time.Duration)
}

type noMetrics struct{}

func (noMetrics) AlertsReceived(string, int)    {}
func (noMetrics) AlertsDeduplicated(int)        {}
func (noMetrics) WebhookRejected(string)        {}
func (noMetrics) WebhookEnqueued(time.Duration) {}

// WebhookOptions configure the Alertmanager webhook.
type WebhookOptions struct {
	// Token is the bearer token Alertmanager sends
	// (http_config.authorization.credentials).
	Token string
	// BasicUser and BasicPassword accept HTTP basic auth
	// (http_config.basic_auth) as well.
	BasicUser, BasicPassword string
	// AllowUnauthenticated accepts requests when no credential is
	// configured (the local demo only); otherwise NewWebhook refuses to
	// build an open endpoint.
	AllowUnauthenticated bool
	// MaxBodyBytes bounds a request body (default 1 MiB); larger ones get 413.
	MaxBodyBytes int64
	// Routing decides channels, policies and issue keys (required).
	Routing *Routing
	// Queue receives one job per incident (required).
	Queue Enqueuer
	// EnqueueTimeout bounds the queue writes of one request (default 5 s).
	EnqueueTimeout time.Duration
	Metrics        Metrics
	Now            func() time.Time
	Logger         *slog.Logger
}

// Webhook is the Alertmanager webhook receiver: it authenticates, bounds
// and validates a notification, and queues one job per incident before
// answering 200, so the notification is durable once acknowledged. It
// answers 503 when the queue cannot take the work (Alertmanager retries
// 5xx only; a 4xx is a permanent failure for it).
type Webhook struct {
	o         WebhookOptions
	tokenSum  [32]byte
	userSum   [32]byte
	passSum   [32]byte
	hasToken  bool
	hasBasic  bool
	challenge string
	log       *slog.Logger
}

// NewWebhook checks the options and returns the handler.
func NewWebhook(o WebhookOptions) (*Webhook, error) {
	if o.Routing == nil {
		return nil, errors.New("alerts webhook: routing is required")
	}
	if o.Routing.DefaultChannel == "" {
		return nil, errors.New("alerts webhook: routing has no default channel")
	}
	if o.Queue == nil {
		return nil, errors.New("alerts webhook: a queue is required")
	}
	if (o.BasicUser == "") != (o.BasicPassword == "") {
		return nil, errors.New("alerts webhook: basic auth needs both a user and a password")
	}
	h := &Webhook{o: o, hasToken: o.Token != "", hasBasic: o.BasicUser != ""}
	if !h.hasToken && !h.hasBasic && !o.AllowUnauthenticated {
		return nil, errors.New("alerts webhook: no credential configured (a bearer token or basic auth)")
	}
	if h.hasToken && len(o.Token) < 16 {
		return nil, errors.New("alerts webhook: the bearer token must be at least 16 characters")
	}
	h.tokenSum = sha256.Sum256([]byte(o.Token))
	h.userSum = sha256.Sum256([]byte(o.BasicUser))
	h.passSum = sha256.Sum256([]byte(o.BasicPassword))
	var ch []string
	if h.hasToken {
		ch = append(ch, `Bearer realm="autoheal"`)
	}
	if h.hasBasic {
		ch = append(ch, `Basic realm="autoheal", charset="UTF-8"`)
	}
	h.challenge = strings.Join(ch, ", ")
	if h.o.MaxBodyBytes <= 0 {
		h.o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if h.o.EnqueueTimeout <= 0 {
		h.o.EnqueueTimeout = 5 * time.Second
	}
	if h.o.Metrics == nil {
		h.o.Metrics = noMetrics{}
	}
	if h.o.Now == nil {
		h.o.Now = time.Now
	}
	if h.o.Logger == nil {
		h.o.Logger = slog.Default()
	}
	h.log = h.o.Logger.With("component", "alerts-webhook")
	return h, nil
}

// Response is the JSON body of an accepted notification.
type Response struct {
	Status    string `json:"status"`
	Incidents int    `json:"incidents"`
	Queued    int    `json:"queued"`
	Duplicate int    `json:"duplicate"`
	Ignored   int    `json:"ignored"`
	// Refused counts incidents that could not be queued even within the
	// limits (the others of the notification are queued all the same).
	Refused int `json:"refused,omitempty"`
}

func (h *Webhook) reject(w http.ResponseWriter, code int, reason, msg string) {
	h.o.Metrics.WebhookRejected(reason)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg, "reason": reason})
}

// authorized compares credentials in constant time (of hashes, so the
// lengths leak nothing either).
func (h *Webhook) authorized(r *http.Request) bool {
	if !h.hasToken && !h.hasBasic {
		return h.o.AllowUnauthenticated
	}
	ok := 0
	if h.hasToken {
		if scheme, tok, found := strings.Cut(r.Header.Get("Authorization"), " "); found && strings.EqualFold(scheme, "Bearer") {
			sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
			ok |= subtle.ConstantTimeCompare(sum[:], h.tokenSum[:])
		}
	}
	if h.hasBasic {
		if u, p, found := r.BasicAuth(); found {
			us, ps := sha256.Sum256([]byte(u)), sha256.Sum256([]byte(p))
			ok |= subtle.ConstantTimeCompare(us[:], h.userSum[:]) & subtle.ConstantTimeCompare(ps[:], h.passSum[:])
		}
	}
	return ok == 1
}

// ServeHTTP handles one notification.
func (h *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.reject(w, http.StatusMethodNotAllowed, ReasonMethod, "use POST: this is Alertmanager's webhook receiver")
		return
	}
	if !h.authorized(r) {
		w.Header().Set("WWW-Authenticate", h.challenge)
		h.log.Warn("webhook request refused: bad or missing credentials", "remote", r.RemoteAddr)
		h.reject(w, http.StatusUnauthorized, ReasonUnauthorized, "missing or invalid credentials")
		return
	}
	limit := h.o.MaxBodyBytes
	if r.ContentLength > limit {
		h.reject(w, http.StatusRequestEntityTooLarge, ReasonTooLarge, fmt.Sprintf("body of %d bytes exceeds the limit of %d bytes; lower max_alerts in the receiver", r.ContentLength, limit))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			h.reject(w, http.StatusRequestEntityTooLarge, ReasonTooLarge, fmt.Sprintf("body exceeds the limit of %d bytes; lower max_alerts in the receiver", limit))
			return
		}
		h.log.Warn("webhook body not read", "remote", r.RemoteAddr, "err", err)
		h.reject(w, http.StatusBadRequest, ReasonBadJSON, "the request body could not be read")
		return
	}
	msg, err := Decode(body, h.o.Routing.RequiredLabels...)
	if err != nil {
		reason := ReasonInvalid
		var ve *ValidationError
		if errors.As(err, &ve) && ve.Reason != "" {
			reason = ve.Reason
		}
		h.log.Info("webhook body refused", "remote", r.RemoteAddr, "reason", reason, "err", err)
		h.reject(w, http.StatusBadRequest, reason, err.Error())
		return
	}
	plan, err := h.o.Routing.Plan(msg, h.o.Now())
	if err != nil {
		h.log.Error("webhook notification not planned", "err", err)
		h.reject(w, http.StatusInternalServerError, ReasonInvalid, "the notification could not be turned into jobs")
		return
	}
	if plan.Cut > 0 {
		h.log.Warn("webhook notification cut to the limits", "detail", describeBound(plan.Cut))
	}
	queued, dup, refused, err := h.enqueue(r.Context(), plan)
	if err == nil && refused > 0 && queued+dup == 0 {
		err = fmt.Errorf("every incident of the notification: %w", sessions.ErrJobTooLarge)
	}
	if err != nil {
		code, reason, text := http.StatusServiceUnavailable, ReasonUnavailable, "the work queue is unavailable; retry later"
		switch {
		case errors.Is(err, sessions.ErrQueueFull):
			reason, text = ReasonQueueFull, "the work queue is full; retry later"
		case errors.Is(err, sessions.ErrJobTooLarge):
			code, reason, text = http.StatusRequestEntityTooLarge, ReasonTooLarge, "an incident of this notification is too large to queue; lower max_alerts in the receiver"
		}
		h.log.Warn("webhook notification not queued", "remote", r.RemoteAddr, "incidents", len(plan.Jobs), "queued_before_error", queued, "err", err)
		if code == http.StatusServiceUnavailable {
			// Alertmanager retries any 5xx (it ignores this header, other senders use it).
			w.Header().Set("Retry-After", "10")
		}
		h.reject(w, code, reason, text)
		return
	}
	h.o.Metrics.AlertsReceived(StatusFiring, plan.Firing)
	h.o.Metrics.AlertsReceived(StatusResolved, plan.Resolved)
	if dup > 0 {
		h.o.Metrics.AlertsDeduplicated(dup)
	}
	for range refused {
		h.o.Metrics.WebhookRejected(ReasonTooLarge)
	}
	h.o.Metrics.WebhookEnqueued(time.Since(start))
	h.log.Debug("webhook notification queued", "incidents", len(plan.Jobs), "queued", queued, "duplicate", dup, "refused", refused, "ignored", plan.Ignored)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(Response{Status: "ok", Incidents: len(plan.Jobs), Queued: queued, Duplicate: dup, Ignored: plan.Ignored, Refused: refused})
}

// enqueue puts every incident's job on the queue, each on its own: a job
// too large to queue is refused (logged and counted) and the others still
// go. A job already queued within the dedupe window (a retry of this
// notification, or the same one received by another replica) counts as a
// duplicate. On an error the queue may recover from (full, unavailable)
// the sender retries the whole notification; the jobs queued before it
// are then duplicates.
func (h *Webhook) enqueue(ctx context.Context, plan Plan) (queued, dup, refused int, err error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.o.EnqueueTimeout)
	defer cancel()
	for _, job := range plan.Jobs {
		_, err := h.o.Queue.Enqueue(ctx, job)
		switch {
		case err == nil:
			queued++
		case errors.Is(err, sessions.ErrDuplicateJob):
			dup++
		case errors.Is(err, sessions.ErrJobTooLarge):
			refused++
			h.log.Error("incident not queued: its job is too large even within the alert limits", "issue_key", job.Key, "bytes", len(job.Payload))
		default:
			return queued, dup, refused, fmt.Errorf("incident %s: %w", job.Key, err)
		}
	}
	return queued, dup, refused, nil
}
