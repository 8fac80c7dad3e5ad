package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/slack-go/slack"
	"gopkg.in/yaml.v3"

	"github.com/autoheal/autoheal/access"
	"github.com/autoheal/autoheal/alerts"
	"github.com/autoheal/autoheal/bot"
	"github.com/autoheal/autoheal/config"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/httpc"
	"github.com/autoheal/autoheal/investigate/k8s"
	"github.com/autoheal/autoheal/investigate/llm"
	"github.com/autoheal/autoheal/investigate/mcp"
	"github.com/autoheal/autoheal/metrics"
	"github.com/autoheal/autoheal/redact"
	"github.com/autoheal/autoheal/remediate"
	"github.com/autoheal/autoheal/runbooks"
	"github.com/autoheal/autoheal/sessions"
)

// serveEnv is the configuration of `bot serve`, from the environment:
//
//	SLACK_APP_TOKEN           app-level token (xapp-…, connections:write) for Socket Mode; required
//	SLACK_BOT_TOKEN           bot token (xoxb-…); required
//	SLACK_API_URL             Web API base (default https://slack.com/api/)
//	REDIS_URL                 redis:// or rediss:// URL (default redis://127.0.0.1:6379/0)
//	AUTOHEAL_REDIS_PREFIX     key prefix, to share a Redis (default autoheal)
//	AUTOHEAL_ENCRYPTION_KEY   32 bytes, base64 or hex: encrypts secrets in sessions; without it secrets are refused
//	AUTOHEAL_APPROVERS        Slack user (U…) and user group (S…) ids who may approve; pull requests are off when empty
//	AUTOHEAL_ADMINS           Slack user and user group ids who may change *_url settings and credentials of a channel
//	AUTOHEAL_ALLOWED_HOSTS    hosts (names, IPs, *.domain, CIDR ranges) thread settings may point URLs at, and that user-set
//	                          URLs may reach at internal addresses; the environment's backends are always allowed
//	AUTOHEAL_MIN_BAND         least confidence that offers Approve: LOW, MEDIUM (default) or HIGH
//	AUTOHEAL_CONCURRENCY      investigations run at once by this replica (default 4)
//	AUTOHEAL_EVENT_WORKERS    Slack events handled at once (default 16)
//	AUTOHEAL_DEADLINE         bound of one investigation (default 60s)
//	AUTOHEAL_DRAIN_TIMEOUT    shutdown wait for running work (default 30s)
//	AUTOHEAL_HTTP_ADDR        /alerts/alertmanager, /metrics, /healthz and /readyz listen address (default :8080)
//	AUTOHEAL_LOG_LEVEL        debug, info (default), warn or error (--log-level overrides it)
//	AUTOHEAL_CONFIG           YAML config file: its routing: section routes alerts (see alerts.Routing),
//	                          its mcp_servers: section adds MCP servers (see mcp.ConfigSection)
//	AUTOHEAL_ALERT_CHANNEL    channel id (C…) for every alert when the config has no routing: section
//	AUTOHEAL_WEBHOOK_TOKEN    bearer token Alertmanager sends (16+ characters); the webhook is off without a credential
//	AUTOHEAL_WEBHOOK_BASIC_USER, AUTOHEAL_WEBHOOK_BASIC_PASSWORD
//	                          HTTP basic auth accepted as well
//	AUTOHEAL_WEBHOOK_MAX_BODY largest webhook body in bytes (default 1048576; 413 above)
//	AUTOHEAL_VISIBILITY_TIMEOUT  a job whose replica stopped showing life for this long is taken over (default 1m)
//	AUTOHEAL_APPROVAL_LEASE   an approval whose replica stopped renewing its lease for this long (killed while
//	                          opening the pull request) is resumed by another replica (default 5m, 1s..1h)
//	AUTOHEAL_MAX_ATTEMPTS     deliveries of a job before it is dead-lettered (default 3)
//	AUTOHEAL_QUEUE_MAX_LEN    jobs waiting or running before the webhook answers 503 (default 10000)
//	AUTOHEAL_WORKER           "false": this replica answers Slack and webhooks but runs no investigations
//	GITHUB_APP_ID, GITHUB_APP_INSTALLATION_ID, and GITHUB_APP_PRIVATE_KEY (the PEM)
//	or GITHUB_APP_PRIVATE_KEY_FILE (its path)
//	                          open pull requests as a GitHub App instead of GITHUB_TOKEN
//	OPENAI_API_KEY …          the LLM planner (see investigate/llm); deterministic without
//
// and every setting's fallback of config.Keys (AUTOHEAL_REPO, JAEGER_URL,
// LOKI_URL, PROMETHEUS_URL, GITHUB_TOKEN, K8S_MCP_URL, …).
type serveEnv struct {
	AppToken, BotToken, SlackAPIURL string
	RedisURL, RedisPrefix           string
	EncryptionKey                   []byte
	Approvers                       remediate.Approvers
	Admins                          access.List
	// AllowedRepos is AUTOHEAL_ALLOWED_REPOS (empty: the owners of the
	// configured repositories, see allowedRepos).
	AllowedRepos []string
	// AllowedHosts is AUTOHEAL_ALLOWED_HOSTS plus the hosts of the routing
	// sessions' URLs (the operator's too); the bot adds the environment's.
	AllowedHosts              []string
	MinBand                   investigate.Band
	Concurrency, EventWorkers int
	Deadline, DrainTimeout    time.Duration
	HTTPAddr                  string
	LogLevel                  slog.Level
	GitHubApp                 *remediate.AppCredentials
	// ConfigPath is AUTOHEAL_CONFIG; Routing its routing section (or
	// AUTOHEAL_ALERT_CHANNEL's default routing; nil: no alerts).
	ConfigPath string
	Routing    *alerts.Routing
	// MCPServers is the config file's mcp_servers section; mcpSecrets the
	// header values they send (registered with the redactor).
	MCPServers []mcp.ServerConfig
	mcpSecrets []string
	// Runbooks is the library of AUTOHEAL_RUNBOOKS_DIR (nil without it).
	Runbooks *runbooks.Library
	// Webhook credentials; OpenWebhook accepts requests without any (the
	// local demo only).
	WebhookToken, WebhookBasicUser, WebhookBasicPassword string
	OpenWebhook                                          bool
	WebhookMaxBody                                       int64
	VisibilityTimeout                                    time.Duration
	// ApprovalLease is AUTOHEAL_APPROVAL_LEASE (see sessions.Options).
	ApprovalLease time.Duration
	MaxAttempts   int
	QueueMaxLen   int64
	// NoWorker leaves the queue to other replicas (AUTOHEAL_WORKER=false).
	NoWorker bool
	// Settings are the environment fallbacks of the session settings.
	Settings map[string]string
}

// loadServeEnv reads and checks the environment. Errors name variables,
// never values.
func loadServeEnv(getenv func(string) string) (serveEnv, error) {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	e := serveEnv{
		AppToken: get("SLACK_APP_TOKEN"), BotToken: get("SLACK_BOT_TOKEN"), SlackAPIURL: get("SLACK_API_URL"),
		HTTPAddr: get("AUTOHEAL_HTTP_ADDR"), Settings: map[string]string{},
	}
	e.RedisURL, e.RedisPrefix = redisEnv(getenv)
	var errs []error
	switch {
	case e.AppToken == "":
		errs = append(errs, errors.New("SLACK_APP_TOKEN is required (an app-level token, xapp-…, with connections:write)"))
	case !strings.HasPrefix(e.AppToken, "xapp-"):
		errs = append(errs, errors.New("SLACK_APP_TOKEN must be an app-level token (xapp-…)"))
	}
	switch {
	case e.BotToken == "":
		errs = append(errs, errors.New("SLACK_BOT_TOKEN is required (the bot token, xoxb-…)"))
	case !strings.HasPrefix(e.BotToken, "xoxb-"):
		errs = append(errs, errors.New("SLACK_BOT_TOKEN must be a bot token (xoxb-…)"))
	}
	if e.SlackAPIURL != "" && !strings.HasPrefix(e.SlackAPIURL, "http://") && !strings.HasPrefix(e.SlackAPIURL, "https://") {
		errs = append(errs, errors.New("SLACK_API_URL must be an http(s) URL"))
	} else if e.SlackAPIURL != "" && !strings.HasSuffix(e.SlackAPIURL, "/") {
		e.SlackAPIURL += "/"
	}
	if e.HTTPAddr == "" {
		e.HTTPAddr = ":8080"
	}
	if k := get(sessions.EncryptionKeyEnv); k != "" {
		key, err := sessions.ParseKey(k)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", sessions.EncryptionKeyEnv, err))
		}
		e.EncryptionKey = key
	}
	var err error
	if e.Approvers, err = remediate.ParseApprovers(get(remediate.ApproversEnv)); err != nil {
		errs = append(errs, err)
	}
	if e.Admins, err = access.Parse(adminsEnv, get(adminsEnv)); err != nil {
		errs = append(errs, err)
	}
	if e.AllowedHosts, err = httpc.ParseHosts(get(allowedHostsEnv)); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", allowedHostsEnv, err))
	}
	if e.AllowedRepos, err = bot.RepoPatterns(get(allowedReposEnv)); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", allowedReposEnv, err))
	}
	e.MinBand = investigate.BandMedium
	if v := get("AUTOHEAL_MIN_BAND"); v != "" {
		b, ok := investigate.ParseBand(v)
		if !ok {
			errs = append(errs, errors.New("AUTOHEAL_MIN_BAND must be LOW, MEDIUM or HIGH"))
		}
		e.MinBand = b
	}
	intVar := func(name string, def, lo, hi int) int {
		v := get(name)
		if v == "" {
			return def
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			errs = append(errs, fmt.Errorf("%s must be a whole number in %d..%d", name, lo, hi))
			return def
		}
		return n
	}
	durVar := func(name string, def time.Duration) time.Duration {
		v := get(name)
		if v == "" {
			return def
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > 24*time.Hour {
			errs = append(errs, fmt.Errorf("%s must be a positive duration such as 90s or 2m", name))
			return def
		}
		return d
	}
	e.WebhookToken = get("AUTOHEAL_WEBHOOK_TOKEN")
	e.WebhookBasicUser, e.WebhookBasicPassword = get("AUTOHEAL_WEBHOOK_BASIC_USER"), get("AUTOHEAL_WEBHOOK_BASIC_PASSWORD")
	if e.WebhookToken != "" && len(e.WebhookToken) < 16 {
		errs = append(errs, errors.New("AUTOHEAL_WEBHOOK_TOKEN must be at least 16 characters (openssl rand -hex 32)"))
	}
	if (e.WebhookBasicUser == "") != (e.WebhookBasicPassword == "") {
		errs = append(errs, errors.New("AUTOHEAL_WEBHOOK_BASIC_USER and AUTOHEAL_WEBHOOK_BASIC_PASSWORD go together"))
	}
	e.WebhookMaxBody = int64(intVar("AUTOHEAL_WEBHOOK_MAX_BODY", alerts.DefaultMaxBodyBytes, 4<<10, 64<<20))
	e.VisibilityTimeout = durVar("AUTOHEAL_VISIBILITY_TIMEOUT", time.Minute)
	e.ApprovalLease = durVar("AUTOHEAL_APPROVAL_LEASE", 5*time.Minute)
	if e.ApprovalLease < time.Second || e.ApprovalLease > time.Hour {
		errs = append(errs, errors.New("AUTOHEAL_APPROVAL_LEASE must be between 1s and 1h"))
	}
	e.MaxAttempts = intVar("AUTOHEAL_MAX_ATTEMPTS", 3, 1, 20)
	e.QueueMaxLen = int64(intVar("AUTOHEAL_QUEUE_MAX_LEN", 10000, 10, 10_000_000))
	if v := get("AUTOHEAL_WORKER"); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, errors.New("AUTOHEAL_WORKER must be true or false"))
		}
		e.NoWorker = !on
	}
	if e.ConfigPath = get(alerts.ConfigEnv); e.ConfigPath != "" {
		cfg, err := alerts.LoadConfig(e.ConfigPath)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", alerts.ConfigEnv, err))
		} else {
			e.Routing = cfg.Routing
		}
		if err := checkConfigSections(e.ConfigPath); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", alerts.ConfigEnv, err))
		}
		servers, secrets, err := loadMCPServers(e.ConfigPath, getenv)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", alerts.ConfigEnv, err))
		}
		e.MCPServers, e.mcpSecrets = servers, secrets
	}
	if dir := get(runbooks.DirEnv); dir != "" {
		if e.Runbooks, err = runbooks.Load(dir); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w (bot runbooks check %s lists every problem)", runbooks.DirEnv, err, dir))
		}
	}
	if ch := get("AUTOHEAL_ALERT_CHANNEL"); ch != "" {
		switch {
		case e.Routing != nil:
			errs = append(errs, errors.New("AUTOHEAL_ALERT_CHANNEL: the config file's routing section already names the channels; set one or the other"))
		case !alertChannelRE.MatchString(ch):
			errs = append(errs, errors.New("AUTOHEAL_ALERT_CHANNEL must be a Slack channel id (C… or G…)"))
		default:
			e.Routing = alerts.DefaultRouting(ch)
		}
	}
	e.Concurrency = intVar("AUTOHEAL_CONCURRENCY", 4, 1, 256)
	e.EventWorkers = intVar("AUTOHEAL_EVENT_WORKERS", 16, 1, 1024)
	e.Deadline = durVar("AUTOHEAL_DEADLINE", 60*time.Second)
	e.DrainTimeout = durVar("AUTOHEAL_DRAIN_TIMEOUT", 30*time.Second)
	e.LogLevel = slog.LevelInfo
	if v := get(logLevelEnv); v != "" {
		if e.LogLevel, err = parseLogLevel(v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", logLevelEnv, err))
		}
	}
	for _, k := range config.Keys {
		v := get(k.Env)
		if v == "" {
			continue
		}
		if _, err := config.Check(k.Name, v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", k.Env, err))
			continue
		}
		e.Settings[k.Name] = v
	}
	if get(remediate.EnvGitHubAppID) != "" {
		app, err := loadGitHubApp(getenv)
		if err != nil {
			errs = append(errs, err)
		}
		e.GitHubApp = app
	}
	return e, errors.Join(errs...)
}

// Environment variables of the trust boundary (see bot/trust.go).
const (
	adminsEnv       = "AUTOHEAL_ADMINS"
	allowedHostsEnv = "AUTOHEAL_ALLOWED_HOSTS"
	allowedReposEnv = "AUTOHEAL_ALLOWED_REPOS"
)

// routingHosts are the hosts of the URLs in the routing's session
// settings: the operator set them, so thread settings may hold them.
// allowedRepos are the repositories a thread may name: AUTOHEAL_ALLOWED_REPOS,
// else the owners of the environment's repo and of the routes' sessions.
func (e *serveEnv) allowedRepos() []string {
	if len(e.AllowedRepos) > 0 {
		return e.AllowedRepos
	}
	repos := []string{e.Settings["repo"]}
	if e.Routing != nil {
		repos = append(repos, e.Routing.Session["repo"])
		for _, rt := range e.Routing.Routes {
			repos = append(repos, rt.Session["repo"])
		}
	}
	return bot.OwnerPatterns(repos...)
}

func routingHosts(r *alerts.Routing) []string {
	if r == nil {
		return nil
	}
	scopes := []map[string]string{r.Session}
	for _, rt := range r.Routes {
		scopes = append(scopes, rt.Session)
	}
	var out []string
	for _, s := range scopes {
		out = append(out, bot.EnvHosts(s)...)
	}
	return out
}

// configSections are the top-level sections of the config file, each read
// by its own parser (alerts.ParseConfig, mcp.ParseConfigFile).
var configSections = []string{"routing", mcp.ConfigSection}

// checkConfigSections refuses a top-level section no part of the bot reads
// (alerts:, a misspelt routing:), which would otherwise be ignored.
func checkConfigSections(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil // the section parsers report it
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil // likewise
	}
	root := doc.Content[0]
	var errs []error
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; !slices.Contains(configSections, k.Value) {
			errs = append(errs, fmt.Errorf("%s:%d: unknown section %q (known: %s)", path, k.Line, k.Value, strings.Join(configSections, ", ")))
		}
	}
	return errors.Join(errs...)
}

// loadMCPServers reads the mcp_servers section of the config file and
// checks that every header secret it names is there: an environment
// variable that is set, a file that can be read. It returns the servers
// and the secret values (for the redactor), never putting a value in an
// error.
func loadMCPServers(path string, getenv func(string) string) ([]mcp.ServerConfig, []string, error) {
	servers, err := mcp.LoadConfigFile(path)
	if err != nil {
		return nil, nil, err
	}
	lookup := func(k string) (string, bool) { v := getenv(k); return v, v != "" }
	var secrets []string
	var errs []error
	for _, s := range servers {
		h, err := s.HeaderValues(lookup, os.ReadFile)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for name, v := range h {
			secrets = append(secrets, strings.TrimSpace(strings.TrimPrefix(v, s.HeaderPrefix[name])))
		}
	}
	return servers, secrets, errors.Join(errs...)
}

// loadGitHubApp reads the GitHub App credentials: GITHUB_APP_ID,
// GITHUB_APP_INSTALLATION_ID and the private key, as PEM in
// GITHUB_APP_PRIVATE_KEY or in the file GITHUB_APP_PRIVATE_KEY_FILE names
// (not both). The key is parsed now, so a bad one stops serve at start.
// Errors name variables, never the key.
func loadGitHubApp(getenv func(string) string) (*remediate.AppCredentials, error) {
	inline, file := strings.TrimSpace(getenv(remediate.EnvGitHubAppKey)), strings.TrimSpace(getenv(remediate.EnvGitHubAppKeyFile))
	switch {
	case inline != "" && file != "":
		return nil, fmt.Errorf("%s and %s are both set: set one (the private key's PEM, or the path of a file holding it)",
			remediate.EnvGitHubAppKey, remediate.EnvGitHubAppKeyFile)
	case inline != "" && !strings.Contains(inline, "\n") && strings.Contains(inline, `\n`):
		// A PEM flattened to one line with literal \n (some secret stores).
		inline = strings.ReplaceAll(inline, `\n`, "\n")
	}
	o, err := remediate.GitHubOptionsFromEnv(func(k string) string {
		switch k {
		case remediate.EnvGitHubAppKey:
			return inline
		case remediate.EnvGitHubAppKeyFile:
			return file
		case remediate.EnvGitHubAppID, remediate.EnvGitHubInstallationID:
			return getenv(k)
		}
		return ""
	})
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "remediate: ")
		if file != "" {
			// The key that did not parse came from the file.
			msg = strings.Replace(msg, remediate.EnvGitHubAppKey+":", remediate.EnvGitHubAppKeyFile+" ("+file+"):", 1)
		}
		return nil, errors.New(msg)
	}
	return o.App, nil
}

var alertChannelRE = regexp.MustCompile(`^[CG][A-Z0-9]{2,24}$`)

// webhookCredentials reports whether the webhook has a credential.
func (e serveEnv) webhookCredentials() bool { return e.WebhookToken != "" || e.WebhookBasicUser != "" }

// registerSecrets hands every secret of the environment to the redactor.
func (e serveEnv) registerSecrets() {
	redact.Register(e.AppToken, e.BotToken)
	if e.WebhookToken != "" {
		redact.Register(e.WebhookToken)
	}
	if e.WebhookBasicPassword != "" {
		redact.Register(e.WebhookBasicPassword)
	}
	for k, v := range e.Settings {
		if config.IsSecret(k) {
			redact.Register(v)
		}
	}
	for _, v := range e.mcpSecrets {
		if v != "" {
			redact.Register(v)
		}
	}
}

// botDeps are what the bot is wired from: serve reads them from the
// environment, the demo points them at the simulators.
type botDeps struct {
	Env     serveEnv
	Redis   redis.UniversalClient
	Planner *llm.Planner
	// Now is the investigations' clock (nil: time.Now).
	Now    func() time.Time
	Logger *slog.Logger
	// HTTPClient carries the Slack Web API calls (nil: a 30 s client).
	HTTPClient *http.Client
}

type wiredBot struct {
	Bot     *bot.Bot
	Store   *sessions.Store
	Queue   *sessions.Queue
	Server  *bot.Server
	Slack   *slack.Client
	Metrics *metrics.Registry
	// Webhook is nil when alerts are off (no routing or no credential).
	Webhook *alerts.Webhook
	// AlertQueue is the webhook's handle on Queue's stream (with the
	// routing's dedupe window).
	AlertQueue *sessions.Queue
	// MCP holds the connections to the config file's MCP servers (nil
	// without any); Close it once the bot has stopped.
	MCP *mcp.Manager
}

// wireBot builds the bot, its sessions, its queue, its remediator and its
// HTTP server. Nothing starts until Bot.Run / Server.Serve.
func wireBot(d botDeps) (*wiredBot, error) {
	e := d.Env
	e.registerSecrets()
	log := d.Logger
	store, err := sessions.New(d.Redis, sessions.Options{Prefix: e.RedisPrefix, EncryptionKey: e.EncryptionKey,
		ApprovalLease: e.ApprovalLease, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("sessions: %w", err)
	}
	qopts := sessions.QueueOptions{
		// The hash tag keeps the queue's keys in one slot on Redis Cluster.
		Stream:              "{" + e.RedisPrefix + "}:jobs",
		Concurrency:         e.Concurrency,
		JobTimeout:          e.Deadline + 5*time.Minute,
		DrainTimeout:        e.DrainTimeout,
		VisibilityTimeout:   e.VisibilityTimeout,
		MaxAttempts:         e.MaxAttempts,
		MaxLen:              e.QueueMaxLen,
		ConsumerIdleTimeout: max(time.Hour, 3*(e.VisibilityTimeout+time.Second)),
		Logger:              log,
	}
	queue, err := sessions.NewQueue(d.Redis, qopts)
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	// The webhook writes to the same stream through a handle with a dedupe
	// window: identical notifications (retries, HA peers, several
	// replicas) within it are queued once. The bot's own handle has none,
	// so a parked job can be queued again under its id when it resumes.
	alertQueue := queue
	if e.Routing != nil {
		qopts.DedupeWindow = e.Routing.DedupeWindow
		if alertQueue, err = sessions.NewQueue(d.Redis, qopts); err != nil {
			return nil, fmt.Errorf("alert queue: %w", err)
		}
	}
	httpClient := d.HTTPClient
	if httpClient == nil {
		httpClient = &http.Client{Timeout: 30 * time.Second}
	}
	opts := []slack.Option{slack.OptionAppLevelToken(e.AppToken), slack.OptionHTTPClient(httpClient)}
	if e.SlackAPIURL != "" {
		opts = append(opts, slack.OptionAPIURL(e.SlackAPIURL))
	}
	client := slack.New(e.BotToken, opts...)

	reg := metrics.New(metrics.Options{Queue: queue, Logger: log})
	bo := bot.Options{
		Slack: client, Store: store, Queue: queue, Env: e.Settings,
		MinBand: e.MinBand, EventWorkers: e.EventWorkers, EngineDeadline: e.Deadline, DrainTimeout: e.DrainTimeout,
		Now: d.Now, Logger: log, Metrics: reg, NoWorker: e.NoWorker,
		Admins: e.Admins, AllowedHosts: append(slices.Clone(e.AllowedHosts), routingHosts(e.Routing)...),
		AllowedRepos: e.allowedRepos(),
	}
	if d.Planner != nil {
		bo.Investigator, bo.PlannerName = d.Planner, "LLM ("+d.Planner.Model()+")"
	} else {
		bo.PlannerName = "deterministic"
		if os.Getenv("OPENAI_API_KEY") == "" {
			bo.PlannerName += " — OPENAI_API_KEY not set"
		}
	}
	if !e.Approvers.Empty() {
		svc, err := remediate.New(remediate.Options{
			GitHub:    remediate.GitHubOptions{APIURL: e.Settings["github_api_url"], Token: e.Settings["github_token"], App: e.GitHubApp},
			Repo:      e.Settings["repo"],
			Ref:       e.Settings["ref"],
			Store:     store,
			Approvers: e.Approvers,
			Groups:    bot.NewUserGroups(client),
			Logger:    log,
		})
		if err != nil {
			return nil, fmt.Errorf("pull requests: %w", err)
		}
		bo.Remediator, bo.Approvers, bo.Refirer = bot.RemediatorFromService(svc), svc, bot.RefirerFromService(svc)
		bo.Issues = bot.IssuesFromService(svc)
	}
	// One MCP connection manager per bot: investigations share its
	// connections (the Kubernetes server, the operator's servers) and only
	// the bot's shutdown closes them.
	mcps := mcp.NewManager(mcp.Options{Logger: log.With("component", "mcp"), ClientVersion: version}, 0)
	bo.MCP, bo.MCPServers = mcps, e.MCPServers
	if e.Runbooks != nil {
		bo.Runbooks = e.Runbooks
		log.Info("runbook library loaded", "dir", e.Runbooks.Dir, "runbooks", len(e.Runbooks.Runbooks))
	}
	b, err := bot.New(bo)
	if err != nil {
		_ = mcps.Close()
		return nil, err
	}
	srv := bot.NewServer(bot.ServerOptions{Addr: e.HTTPAddr, Ready: b.ReadyChecks(), Health: b.HealthChecks(),
		Report: func(name string, err error) { reg.DependencyUp(name, err == nil) }, Logger: log})
	srv.Handle("GET /metrics", reg.Handler())
	w := &wiredBot{Bot: b, Store: store, Queue: queue, Server: srv, Slack: client, Metrics: reg, AlertQueue: alertQueue, MCP: mcps}
	if e.Routing != nil && (e.webhookCredentials() || e.OpenWebhook) {
		w.Webhook, err = alerts.NewWebhook(alerts.WebhookOptions{
			Token: e.WebhookToken, BasicUser: e.WebhookBasicUser, BasicPassword: e.WebhookBasicPassword,
			AllowUnauthenticated: e.OpenWebhook && !e.webhookCredentials(),
			MaxBodyBytes:         e.WebhookMaxBody,
			Routing:              e.Routing,
			Queue:                alertQueue,
			Metrics:              reg,
			Logger:               log,
		})
		if err != nil {
			w.closeMCP()
			return nil, err
		}
		srv.Handle(alerts.Path, w.Webhook)
	}
	return w, nil
}

// closeMCP closes the MCP connections (after the bot has stopped).
func (w *wiredBot) closeMCP() {
	if w.MCP != nil {
		_ = w.MCP.Close()
	}
}

// runServe is `bot serve`: the production entry point.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: bot serve [--no-llm] [--log-level LEVEL]\n\nRuns the Slack bot (Socket Mode), the Alertmanager webhook, /metrics and the queue worker; configured from the environment (see the README).")
		fs.PrintDefaults()
	}
	lf := addLLMFlags(fs, false)
	levelFlag := addLogLevelFlag(fs, "info")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	env, err := loadServeEnv(os.Getenv)
	if err != nil {
		return fmt.Errorf("configuration:\n%w", err)
	}
	if *levelFlag != "" {
		if env.LogLevel, err = parseLogLevel(*levelFlag); err != nil {
			return fmt.Errorf("%w: --log-level: %v", errUsage, err)
		}
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: env.LogLevel}))
	slog.SetDefault(log)
	planner, done, err := lf.planner(stderr)
	if err != nil {
		return err
	}
	defer done()
	rdb, err := sessions.Connect(ctx, env.RedisURL)
	if err != nil {
		return err
	}
	defer rdb.Close()
	w, err := wireBot(botDeps{Env: env, Redis: rdb, Planner: planner, Logger: log})
	if err != nil {
		return err
	}
	defer w.closeMCP() // after the bot and its investigations have stopped
	settings := make([]string, 0, len(env.Settings))
	for k := range env.Settings {
		settings = append(settings, k)
	}
	switch {
	case w.Webhook != nil:
		log.Info("alertmanager webhook enabled", "path", alerts.Path, "bearer", env.WebhookToken != "", "basic", env.WebhookBasicUser != "",
			"routes", len(env.Routing.Routes), "default_channel", env.Routing.DefaultChannel, "cooldown", env.Routing.Cooldown, "dedupe_window", env.Routing.DedupeWindow)
	case env.Routing != nil:
		log.Warn("alertmanager webhook disabled: set AUTOHEAL_WEBHOOK_TOKEN (or basic auth) to accept alerts")
	case env.webhookCredentials():
		log.Warn("alertmanager webhook disabled: no routing (set AUTOHEAL_CONFIG with a routing: section, or AUTOHEAL_ALERT_CHANNEL)")
	}
	for _, m := range env.MCPServers {
		log.Info("mcp server configured", "server", m.Name, "transport", m.Transport(), "tools", len(m.Tools), "headers", len(m.Headers)+len(m.HeaderFiles))
		if m.Name == k8s.ServerName && env.Settings["k8s_mcp_url"] != "" {
			log.Warn("mcp server kubernetes is not used where k8s_mcp_url is set (K8S_MCP_URL is set: everywhere unless a thread or channel overrides it)")
		}
	}
	log.Info("autoheal serve starting", "redis", rdb.Options().Addr, "prefix", env.RedisPrefix,
		"secrets_enabled", env.EncryptionKey != nil, "pull_requests", !env.Approvers.Empty(), "min_band", env.MinBand,
		"channel_admins", !env.Admins.Empty(), "allowed_hosts", len(env.AllowedHosts),
		"concurrency", env.Concurrency, "event_workers", env.EventWorkers, "http", env.HTTPAddr, "env_settings", settings,
		"visibility_timeout", env.VisibilityTimeout, "approval_lease", env.ApprovalLease, "max_attempts", env.MaxAttempts, "worker", !env.NoWorker)
	return serveUntilDone(ctx, w, log, env.DrainTimeout)
}

// serveUntilDone runs the bot and the HTTP server until ctx ends (or the
// bot stops on its own), then shuts both down gracefully.
func serveUntilDone(ctx context.Context, w *wiredBot, log *slog.Logger, grace time.Duration) error {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	httpDone := make(chan error, 1)
	go func() {
		err := w.Server.Serve(runCtx, min(grace, 10*time.Second))
		if err != nil {
			log.Error("http server stopped", "err", err)
			cancel()
		}
		httpDone <- err
	}()
	botErr := w.Bot.Run(runCtx)
	cancel()
	httpErr := <-httpDone
	if botErr != nil {
		log.Error("bot stopped", "err", botErr)
	} else {
		log.Info("autoheal serve stopped")
	}
	return errors.Join(botErr, httpErr)
}
