package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slack-go/slack"

	"github.com/autoheal/autoheal/access"
	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/httpc"
	"github.com/autoheal/autoheal/investigate/mcp"
	"github.com/autoheal/autoheal/redact"
	"github.com/autoheal/autoheal/sessions"
)

// Investigator runs one investigation with an engine the bot built (its
// capabilities from the session, its observer feeding the thread). The
// default calls e.Investigate, the deterministic planner; an LLM planner
// plugs in here and calls the same tools through e.
type Investigator interface {
	Investigate(ctx context.Context, e *investigate.Engine, issue investigate.Issue) (*investigate.HealResult, error)
}

// InvestigatorFunc adapts a function to Investigator.
type InvestigatorFunc func(ctx context.Context, e *investigate.Engine, issue investigate.Issue) (*investigate.HealResult, error)

// Investigate calls f.
func (f InvestigatorFunc) Investigate(ctx context.Context, e *investigate.Engine, issue investigate.Issue) (*investigate.HealResult, error) {
	return f(ctx, e, issue)
}

// deterministic is the default Investigator.
var deterministic = InvestigatorFunc(func(ctx context.Context, e *investigate.Engine, issue investigate.Issue) (*investigate.HealResult, error) {
	return e.Investigate(ctx, issue)
})

// ExtraCapabilities builds capabilities beyond capset's (Kubernetes over
// MCP, …) from a resolved session; close releases them after the job.
type ExtraCapabilities func(ctx context.Context, cfg config.Settings) (caps []investigate.Capability, close func(), err error)

// Options configure a Bot. Slack, Store and Queue are required.
type Options struct {
	// Slack is the client: bot token for the Web API and the app-level
	// token (slack.OptionAppLevelToken) for Socket Mode.
	Slack *slack.Client
	// API overrides the Web API calls (tests wrap Slack to observe them);
	// default Slack.
	API   SlackAPI
	Store *sessions.Store
	Queue *sessions.Queue
	// Env holds the environment fallbacks of the settings, by setting name
	// (config.Keys' Env variables read by the caller).
	Env map[string]string

	// Investigator replaces the deterministic planner.
	Investigator Investigator
	// PlannerName is shown by /autoheal status (default "deterministic").
	PlannerName string
	// Extra builds additional capabilities per job (optional).
	Extra ExtraCapabilities
	// MCPServers are the operator's MCP servers (the config file's
	// mcp_servers: section): their allowlisted tools join every
	// investigation, and the one named "kubernetes" backs the Kubernetes
	// capability where no k8s_mcp_url is set. MCP holds their connections
	// (required with MCPServers; the caller closes it).
	MCPServers []mcp.ServerConfig
	MCP        *mcp.Manager
	// Runbooks is the operator's runbook library (AUTOHEAL_RUNBOOKS_DIR);
	// nil: none.
	Runbooks investigate.RunbookLibrary
	// Remediator opens pull requests; nil disables Approve.
	Remediator Remediator
	// Issues opens GitHub issues for results that get a report (bad data,
	// flakes): their "Create issue" button. Nil hides the button.
	Issues IssueCreator
	// Approvers authorizes Approve and Reject clicks; nil authorizes nobody.
	Approvers Authorizer
	// Admins may change *_url settings and credentials for a whole channel
	// (AUTOHEAL_ADMINS); empty: nobody may. Their user groups are resolved
	// over the Slack API.
	Admins access.List
	// AllowedHosts are the hosts thread settings may point a URL at, and
	// the only ones a user-supplied URL may reach at an internal address
	// (AUTOHEAL_ALLOWED_HOSTS: names, IPs, *.domain, CIDR ranges). The hosts of Env's
	// URLs are always allowed.
	AllowedHosts []string
	// AllowedRepos are the repositories (owner/name, owner/*) a thread's
	// `repo` may name (AUTOHEAL_ALLOWED_REPOS, by default the owners of the
	// configured repositories); empty allows any.
	AllowedRepos []string
	// Resolver resolves host names for the address guard (default
	// net.DefaultResolver; tests play DNS rebinding with it).
	Resolver httpc.Resolver
	// MinBand is the least confidence band that offers Approve (default MEDIUM).
	MinBand investigate.Band
	// Refirer converges an open pull request when an alert fires again
	// (optional).
	Refirer Refirer
	// Metrics receives investigation and incident counters (optional).
	Metrics Metrics
	// SweepInterval is how often a worker with a Remediator resumes the
	// approvals whose replica died while opening their pull request
	// (default DefaultSweepInterval of the store's approval lease).
	SweepInterval time.Duration
	// AlertRootWait bounds how long an alert job waits for another
	// replica to open the incident's thread before retrying (default 20 s).
	AlertRootWait time.Duration

	// EventWorkers bounds mention handlers running at once (default 16);
	// EventQueue bounds acknowledged mentions waiting for one (default
	// 1024). Past it, mentions are shed (logged and counted), never held
	// at the socket.
	EventWorkers int
	EventQueue   int
	// InteractiveWorkers and InteractiveQueue are the same for clicks,
	// modal submissions and slash commands (defaults 8 and 256): their own
	// lane, so that a burst of mentions never delays the views.open a
	// click needs within its 3-second trigger_id.
	InteractiveWorkers int
	InteractiveQueue   int
	// EventTimeout bounds one event handler (default 30 s).
	EventTimeout time.Duration
	// DedupeTTL is how long an event id is remembered (default 6 h; Slack
	// retries for about an hour).
	DedupeTTL time.Duration
	// NoWorker leaves the queue to other replicas: this one only answers
	// Slack.
	NoWorker bool
	// DrainTimeout bounds the wait for running event handlers on shutdown
	// (default 25 s; the queue has its own).
	DrainTimeout time.Duration

	// EngineDeadline bounds one investigation (default 60 s); ToolTimeout
	// one tool call (default 20 s).
	EngineDeadline time.Duration
	ToolTimeout    time.Duration
	// UpdateInterval is the least time between two edits of a progress
	// message (default 3 s).
	UpdateInterval time.Duration
	// ReconnectMin and ReconnectMax bound the backoff between Socket Mode
	// runs (defaults 1 s and 2 min).
	ReconnectMin time.Duration
	ReconnectMax time.Duration

	// Now is the investigations' clock: the end of the window an issue is
	// investigated in (default time.Now; the demo uses the scenario's clock).
	Now func() time.Time
	// Clock paces progress updates (default the real clock).
	Clock Clock
	// HTTPClient posts to response URLs (default a client with a 10 s timeout).
	HTTPClient *http.Client
	// BotUserID is the bot's user id; default from auth.test at Run.
	BotUserID string
	Redactor  *redact.Redactor
	Logger    *slog.Logger
}

// Bot answers Slack and runs investigations.
type Bot struct {
	o   Options
	api SlackAPI
	log *slog.Logger
	// guard checks user-supplied URLs when saved and when dialled; groups
	// resolves the admins' user groups.
	guard *httpc.Guard
	// allowedHosts is what guard allows: AllowedHosts and Env's backends.
	allowedHosts []string
	groups       *UserGroups

	botUserID atomic.Value // string
	connected atomic.Bool
	// events runs mention handlers; interactive runs clicks, modal
	// submissions and slash commands (see Options.InteractiveWorkers).
	events, interactive *pool
	// edits spaces the edits of each message (see editThrottle).
	edits *editThrottle
	// teamURL is the workspace's web address (auth.test), for permalinks.
	teamURL atomic.Value
	// prStates caches the states of recalled incidents' pull requests.
	prStates prStateCache

	runMu   sync.Mutex
	running bool
}

// New checks opts and returns a Bot; call Run.
func New(o Options) (*Bot, error) {
	if o.Slack == nil && o.API == nil {
		return nil, errors.New("bot: a Slack client is required")
	}
	if o.Store == nil || o.Queue == nil {
		return nil, errors.New("bot: a sessions store and queue are required")
	}
	if o.API == nil {
		o.API = o.Slack
	}
	if o.Investigator == nil {
		o.Investigator = deterministic
		if o.PlannerName == "" {
			o.PlannerName = "deterministic"
		}
	}
	if o.MinBand == "" {
		o.MinBand = investigate.BandMedium
	}
	if len(o.MCPServers) > 0 && o.MCP == nil {
		return nil, errors.New("bot: MCP servers need an MCP connection manager (Options.MCP)")
	}
	if _, ok := investigate.ParseBand(string(o.MinBand)); !ok {
		return nil, fmt.Errorf("bot: minimum band %q: want LOW, MEDIUM or HIGH", o.MinBand)
	}
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	if o.EventWorkers <= 0 {
		o.EventWorkers = 16
	}
	if o.EventQueue <= 0 {
		o.EventQueue = 1024
	}
	if o.InteractiveWorkers <= 0 {
		o.InteractiveWorkers = 8
	}
	if o.InteractiveQueue <= 0 {
		o.InteractiveQueue = 256
	}
	def(&o.EventTimeout, 30*time.Second)
	def(&o.AlertRootWait, 20*time.Second)
	def(&o.SweepInterval, DefaultSweepInterval(o.Store.ApprovalLease()))
	if o.Metrics == nil {
		o.Metrics = noMetrics{}
	}
	def(&o.DedupeTTL, 6*time.Hour)
	def(&o.DrainTimeout, 25*time.Second)
	def(&o.EngineDeadline, 60*time.Second)
	def(&o.ToolTimeout, 20*time.Second)
	def(&o.UpdateInterval, DefaultUpdateInterval)
	def(&o.ReconnectMin, time.Second)
	def(&o.ReconnectMax, 2*time.Minute)
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if o.Redactor == nil {
		o.Redactor = redact.Default
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	b := &Bot{o: o, api: o.API, log: o.Logger.With("component", "bot"), groups: NewUserGroups(o.API)}
	b.allowedHosts = append(slices.Clone(o.AllowedHosts), EnvHosts(o.Env)...)
	b.guard = httpc.NewGuard(httpc.GuardOptions{AllowedHosts: b.allowedHosts, Resolver: o.Resolver})
	b.botUserID.Store(o.BotUserID)
	b.edits = newEditThrottle(o.UpdateInterval, o.Clock)
	b.events = newPool(laneEvents, o.EventWorkers, o.EventQueue, b.log)
	b.interactive = newPool(laneInteractive, o.InteractiveWorkers, o.InteractiveQueue, b.log)
	return b, nil
}

// BotUserID returns the bot's Slack user id ("" before Run learned it).
func (b *Bot) BotUserID() string { v, _ := b.botUserID.Load().(string); return v }

// Connected reports whether a Socket Mode connection is open.
func (b *Bot) Connected() bool { return b.connected.Load() }

// ErrSlackAuth wraps Slack's answer when the tokens are not usable.
var ErrSlackAuth = errors.New("bot: Slack rejected the credentials")

// Run connects to Slack (Socket Mode), answers events and, unless
// NoWorker, runs queued investigations, until ctx ends or Slack rejects the
// tokens. On shutdown it stops reading events, then drains the running
// handlers and jobs within their deadlines.
func (b *Bot) Run(ctx context.Context) error {
	b.runMu.Lock()
	if b.running {
		b.runMu.Unlock()
		return errors.New("bot: already running")
	}
	b.running = true
	b.runMu.Unlock()
	if b.o.Slack == nil {
		return errors.New("bot: Run needs Options.Slack for Socket Mode")
	}
	if b.BotUserID() == "" {
		actx, cancel := context.WithTimeout(ctx, 15*time.Second)
		var id string
		err := withRetry(actx, retryPolicy{Attempts: 5}, func(ctx context.Context) error {
			res, err := b.api.AuthTestContext(ctx)
			if err == nil {
				id = res.UserID
				b.teamURL.Store(res.URL) // thread permalinks of past incidents
			}
			return err
		})
		cancel()
		if err != nil {
			if IsAuthError(err) {
				return fmt.Errorf("%w: auth.test: %s", ErrSlackAuth, b.o.Redactor.String(err.Error()))
			}
			return fmt.Errorf("bot: auth.test: %s", b.o.Redactor.String(err.Error()))
		}
		b.botUserID.Store(id)
	}
	b.log.Info("bot starting", "bot_user_id", b.BotUserID(), "event_workers", b.o.EventWorkers, "worker", !b.o.NoWorker)

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Handlers outlive ctx until the drain deadline.
	workCtx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()
	b.events.start(workCtx, b.o.EventTimeout)
	b.interactive.start(workCtx, b.o.EventTimeout)

	var wg sync.WaitGroup
	var socketErr, queueErr error
	wg.Go(func() {
		socketErr = b.runSocketMode(runCtx)
		if socketErr != nil {
			cancel() // fatal: stop the worker too
		}
	})
	if !b.o.NoWorker {
		wg.Go(func() {
			queueErr = b.o.Queue.Run(runCtx, b.HandleJob)
			if queueErr != nil && runCtx.Err() == nil {
				// The worker could not start (Redis refused the consumer
				// group): stop rather than answer without running jobs.
				b.log.Error("queue worker stopped", "err", queueErr)
				cancel()
			}
		})
	}
	sweeping := make(chan struct{})
	if !b.o.NoWorker && b.o.Remediator != nil {
		go func() {
			defer close(sweeping)
			b.runSweeper(runCtx)
		}()
	} else {
		close(sweeping)
	}
	wg.Wait()
	cancel() // the sweeper stops with the rest
	var drained sync.WaitGroup
	drained.Go(func() {
		select {
		case <-sweeping:
		case <-time.After(b.o.DrainTimeout):
			b.log.Warn("an approval being resumed was still running at the drain deadline; another replica resumes it")
		}
	})
	for _, lane := range []*pool{b.events, b.interactive} {
		drained.Go(func() {
			if !lane.drain(b.o.DrainTimeout) {
				b.log.Warn("event handlers still running at the drain deadline; abandoning them", "lane", lane.name)
			}
		})
	}
	drained.Wait()
	stopWork()
	b.log.Info("bot stopped")
	if errors.Is(queueErr, sessions.ErrDrainTimeout) {
		b.log.Warn("investigations still running at the drain deadline were handed to other replicas", "err", queueErr)
		queueErr = nil
	}
	return errors.Join(socketErr, queueErr)
}
