package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/autoheal/autoheal/alerts"
	"github.com/autoheal/autoheal/bot"
	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/remediate"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sessions"
	"github.com/autoheal/autoheal/sessions/embedded"
	"github.com/autoheal/autoheal/sim"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

// The demo workspace.
const (
	demoChannel     = "C0INCIDENTS"
	demoChannelName = "incidents"
	demoOncall      = "U0ONCALL"
	demoApprover    = "U0APPROVER"
)

// runDemo is `bot demo`: the whole Slack flow of one scenario against the
// simulators, with the same wiring as `bot serve`. A mention scenario is
// delivered as a mention; an alert scenario is POSTed to the bot's own
// Alertmanager webhook. Then (--approve, the default) an approver clicks
// Approve on the result through the Slack simulator, the bot opens the pull
// request on the GitHub simulator, and the alert fires again to show that
// the thread and the pull request converge (see demoApproval). With
// --listen the demo keeps running and accepts webhooks (curl, a real
// Alertmanager) on that address, printing threads as they change, until
// SIGINT/SIGTERM.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return demo(ctx, args, stdout, stderr, demoHooks{})
}

// demoHooks let tests plant a known GitHub token and look at the
// simulators before they stop.
type demoHooks struct {
	// GitHubToken replaces the random token the GitHub simulator accepts.
	GitHubToken string
	// Inspect is called with the simulators once the flow is done.
	Inspect func(*harness.Backends)
}

func demo(ctx context.Context, args []string, stdout, stderr io.Writer, hooks demoHooks) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scen := fs.String("scenario", "", "scenario directory (required)")
	transcript := fs.String("transcript", "", "write every call to a simulator as JSON lines to this file")
	listen := fs.String("listen", "", "keep running and accept Alertmanager webhooks at http://ADDR"+alerts.Path+" (e.g. 127.0.0.1:9095)")
	timeout := fs.Duration("timeout", 2*time.Minute, "give up when no result is posted within this time")
	verbose := fs.Bool("v", false, "show the bot's logs")
	approve := fs.Bool("approve", true, "after the result, an approver clicks Approve: show the pull request the bot opens on the GitHub simulator, then a re-fire of the alert (--approve=false stops at the buttons; not with --listen)")
	lf := addLLMFlags(fs, true)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *scen == "" {
		return fmt.Errorf("%w: --scenario DIR is required", errUsage)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	s, err := scenario.Load(*scen)
	if err != nil {
		return err
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	// Everything printed is kept to check that no token leaked into it.
	printed := &printedText{}
	stdout, stderr = printed.tee(stdout), printed.tee(stderr)
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log) // libraries logging to the default logger stay quiet too

	var tr *sim.Transcript
	if *transcript != "" {
		f, err := os.Create(*transcript)
		if err != nil {
			return err
		}
		defer f.Close()
		tr = sim.NewTranscript(f)
	}
	planner, done, err := lf.planner(stderr)
	if err != nil {
		return err
	}
	defer done()

	slackSim := slacksim.New(slacksim.Options{
		Transcript: tr,
		Channels:   []slacksim.Channel{{ID: demoChannel, Name: demoChannelName}},
		Users: []slacksim.User{
			{ID: demoOncall, Name: "oncall", RealName: "On-call Engineer"},
			{ID: demoApprover, Name: "lead", RealName: "Team Lead"},
		},
	})
	if err := slackSim.Start(); err != nil {
		return err
	}
	defer slackSim.Close()

	githubToken := "ghp_" + randomHex(18) // the GitHub simulator accepts only this one
	if hooks.GitHubToken != "" {
		githubToken = hooks.GitHubToken
	}
	backends, err := harness.Start(s, harness.Options{Transcript: tr, GitHubToken: githubToken, Logger: log})
	if err != nil {
		return err
	}
	defer backends.Close()
	if hooks.Inspect != nil {
		defer hooks.Inspect(backends) // before the simulators stop
	}

	rdb, prefix, closeRedis, err := demoRedis(ctx)
	if err != nil {
		return err
	}
	defer closeRedis()

	key, err := demoKey()
	if err != nil {
		return err
	}
	addr := "127.0.0.1:0"
	if *listen != "" {
		addr = *listen
	}
	// Every alert goes to #incidents and is investigated.
	routing := alerts.DefaultRouting(demoChannel)
	if *listen == "" && *approve {
		// The scripted run repeats the notification seconds later: a short
		// dedupe window lets the repeat count as a new fire, as Alertmanager's
		// repeat_interval does hours later in production.
		routing.DedupeWindow = demoDedupeWindow
	}
	env := serveEnv{
		AppToken: slackSim.AppToken(), BotToken: slackSim.BotToken(), SlackAPIURL: slackSim.APIURL(),
		RedisPrefix: prefix, EncryptionKey: key,
		Approvers: remediate.Approvers{Users: []string{demoApprover}},
		MinBand:   investigate.BandMedium, Concurrency: 2, EventWorkers: 4,
		Deadline: 60 * time.Second, DrainTimeout: 5 * time.Second, HTTPAddr: addr,
		Settings: map[string]string{}, // the channel's session holds the scenario's settings
		// The simulators listen on the loopback address, which URLs set in
		// a channel may reach only when their host is allowed.
		AllowedHosts: bot.EnvHosts(backends.Config()),
		Routing:      routing,
		WebhookToken: strings.TrimSpace(os.Getenv("AUTOHEAL_WEBHOOK_TOKEN")),
		OpenWebhook:  true,
	}
	w, err := wireBot(botDeps{Env: env, Redis: rdb, Planner: planner, Logger: log, Now: func() time.Time { return s.Now }})
	if err != nil {
		return err
	}
	defer w.closeMCP() // after the bot has stopped, before the simulators do
	// The scenario's settings are the incident channel's session, as if set
	// with /autoheal config (the GitHub token is stored encrypted).
	if err := w.Store.Set(ctx, sessions.ChannelScope(demoChannel), backends.Config()); err != nil {
		return fmt.Errorf("channel settings: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", addr, err)
	}
	webhookURL := "http://" + ln.Addr().String() + alerts.Path

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	httpDone := make(chan error, 1)
	go func() { httpDone <- w.Server.ServeListener(runCtx, ln, 5*time.Second) }()
	var botErr error
	botDone := make(chan error) // closed when the bot stops (botErr says why)
	go func() { botErr = w.Bot.Run(runCtx); close(botDone) }()
	stop := func() error {
		cancel()
		<-botDone
		return errors.Join(botErr, <-httpDone)
	}
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	err = slackSim.WaitConnections(wctx, 1)
	wcancel()
	if err != nil {
		_ = stop()
		return fmt.Errorf("the bot did not connect to the Slack simulator: %w", err)
	}

	if *listen != "" {
		err := demoListen(ctx, s, slackSim, webhookURL, env.WebhookToken, stdout, stderr, botDone)
		return errors.Join(err, stop())
	}

	var threads []demoThread
	firstPost := time.Now()
	if s.Trigger.IsAlert() {
		fmt.Fprintf(stderr, "scenario %s — Alertmanager posts the alert to %s\n", s.Name, webhookURL)
		threads, err = demoAlert(ctx, w, s.Trigger.Alert, webhookURL, env.WebhookToken, botDone, *timeout)
	} else {
		fmt.Fprintf(stderr, "scenario %s — %s mentions @autoheal in #%s\n", s.Name, "oncall", demoChannelName)
		var m slacksim.Mentioned
		if m, err = slackSim.MentionEvent(slacksim.MentionOptions{Channel: demoChannel, User: demoOncall, Text: s.Trigger.Mention}); err == nil {
			jobID := bot.MentionJobID(m.EventID)
			threads = []demoThread{{ThreadTS: m.ThreadTS, JobID: jobID}}
			err = waitResult(ctx, w.Store, jobID, botDone, *timeout)
		}
	}
	for _, t := range threads {
		fmt.Fprint(stdout, slackSim.RenderThread(demoChannel, t.ThreadTS))
	}
	if err == nil && *approve {
		err = demoApproval(ctx, demoRun{
			Scenario: s, Bot: w, Slack: slackSim, Backends: backends, Threads: threads,
			WebhookURL: webhookURL, WebhookToken: env.WebhookToken, FirstPost: firstPost, DedupeWindow: routing.DedupeWindow,
			Secrets: []string{githubToken, slackSim.BotToken(), slackSim.AppToken(), env.WebhookToken},
			Printed: printed, Stdout: stdout, Stderr: stderr, BotDone: botDone, Timeout: *timeout,
		})
	}
	if err != nil {
		_ = stop()
		return err
	}
	return stop()
}

// demoThread is one thread the demo opened, and the investigation whose
// result it shows.
type demoThread struct {
	Key      string // the incident (issue key); "" for a mention
	ThreadTS string
	JobID    string
}

// postAlert sends an Alertmanager webhook body as Alertmanager does.
func postAlert(ctx context.Context, url, token string, body []byte) (alerts.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return alerts.Response{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Alertmanager/demo")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return alerts.Response{}, fmt.Errorf("POST %s: %w", url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return alerts.Response{}, fmt.Errorf("POST %s: %s: %s", url, resp.Status, strings.TrimSpace(string(raw)))
	}
	var out alerts.Response
	if err := json.Unmarshal(raw, &out); err != nil {
		return alerts.Response{}, fmt.Errorf("POST %s: answer: %w", url, err)
	}
	return out, nil
}

// demoAlert posts the scenario's alert to the webhook and waits until every
// incident's thread has its investigation's result; it returns the threads.
func demoAlert(ctx context.Context, w *wiredBot, body []byte, url, token string, botDone <-chan error, timeout time.Duration) ([]demoThread, error) {
	msg, err := alerts.Decode(body)
	if err != nil {
		return nil, fmt.Errorf("scenario alert: %w", err)
	}
	plan, err := alerts.DefaultRouting(demoChannel).Plan(msg, time.Now())
	if err != nil {
		return nil, err
	}
	if _, err := postAlert(ctx, url, token, body); err != nil {
		return nil, err
	}
	var threads []demoThread
	deadline := time.Now().Add(timeout)
	for _, job := range plan.Jobs {
		var inc sessions.Incident
		for {
			inc, err = w.Store.GetIncident(ctx, job.Key)
			if err == nil && inc.RootTS != "" {
				break
			}
			if err != nil && !errors.Is(err, sessions.ErrNotFound) {
				return threads, err
			}
			if time.Now().After(deadline) {
				return threads, fmt.Errorf("incident %s: no thread within %s", job.Key, timeout)
			}
			select {
			case <-ctx.Done():
				return threads, ctx.Err()
			case err := <-botDone:
				return threads, fmt.Errorf("the bot stopped before opening the thread: %v", err)
			case <-time.After(50 * time.Millisecond):
			}
		}
		jobID := bot.AlertInvestigationJobID(job.Key, inc.LastInvestigatedAt)
		threads = append(threads, demoThread{Key: job.Key, ThreadTS: inc.RootTS, JobID: jobID})
		if err := waitResult(ctx, w.Store, jobID, botDone, time.Until(deadline)); err != nil {
			return threads, err
		}
	}
	return threads, nil
}

// demoListen serves webhooks until ctx ends, printing every thread of the
// incident channel whenever it changes.
func demoListen(ctx context.Context, s *scenario.Scenario, slackSim *slacksim.Server, url, token string, stdout, stderr io.Writer, botDone <-chan error) error {
	fmt.Fprintf(stderr, "scenario %s — the bot accepts Alertmanager webhooks at %s\n", s.Name, url)
	auth := ""
	if token != "" {
		auth = ` -H "Authorization: Bearer $AUTOHEAL_WEBHOOK_TOKEN"`
	} else {
		fmt.Fprintln(stderr, "note: no AUTOHEAL_WEBHOOK_TOKEN set: the webhook accepts unauthenticated requests (keep --listen on a loopback address)")
	}
	if s.Trigger.IsAlert() {
		f, err := os.CreateTemp("", "autoheal-alert-*.json")
		if err == nil {
			_, err = f.Write(s.Trigger.Alert)
			_ = f.Close()
		}
		if err == nil {
			fmt.Fprintf(stderr, "send the scenario's alert with:\n  curl -sS%s -H 'Content-Type: application/json' --data-binary @%s %s\n", auth, f.Name(), url)
		}
	} else {
		m, err := slackSim.MentionEvent(slacksim.MentionOptions{Channel: demoChannel, User: demoOncall, Text: s.Trigger.Mention})
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "oncall mentioned @autoheal in #%s (thread %s)\n", demoChannelName, m.ThreadTS)
	}
	fmt.Fprintln(stderr, "threads are printed as they change; press Ctrl-C to stop")
	printed := map[string]string{}
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, m := range slackSim.Messages(demoChannel) {
			if m.ThreadTS != "" && m.ThreadTS != m.TS {
				continue // a reply: printed with its thread
			}
			out := slackSim.RenderThread(demoChannel, m.TS)
			if printed[m.TS] == out {
				continue
			}
			printed[m.TS] = out
			fmt.Fprintf(stdout, "\n── %s ──\n%s", time.Now().Format("15:04:05"), out)
		}
		select {
		case <-ctx.Done():
			fmt.Fprintln(stderr, "stopping: finishing running work")
			return nil
		case <-botDone:
			return errors.New("the bot stopped")
		case <-tick.C:
		}
	}
}

// waitResult polls until the job's result is recorded as posted.
func waitResult(ctx context.Context, store *sessions.Store, jobID string, botDone <-chan error, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		_, err := store.GetResult(ctx, jobID)
		if err == nil {
			return nil
		}
		if !errors.Is(err, sessions.ErrNotFound) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-botDone:
			return errors.New("the bot stopped before posting a result")
		case <-deadline.C:
			return fmt.Errorf("no result within %s", timeout)
		case <-tick.C:
		}
	}
}

// demoRedis is REDIS_URL (under a throwaway prefix, cleaned up after) or an
// in-process Redis.
func demoRedis(ctx context.Context) (redis.UniversalClient, string, func(), error) {
	prefix := "autoheal-demo-" + randomHex(4)
	if url := os.Getenv("REDIS_URL"); url != "" {
		rdb, err := sessions.Connect(ctx, url)
		if err != nil {
			return nil, "", nil, err
		}
		return rdb, prefix, func() {
			cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			for _, pattern := range []string{prefix + ":*", "{" + prefix + "}:*"} {
				iter := rdb.Scan(cctx, 0, pattern, 500).Iterator()
				var keys []string
				for iter.Next(cctx) {
					keys = append(keys, iter.Val())
				}
				if len(keys) > 0 {
					_ = rdb.Del(cctx, keys...).Err()
				}
			}
			_ = rdb.Close()
		}, nil
	}
	srv, err := embedded.Start()
	if err != nil {
		return nil, "", nil, err
	}
	return srv.Client(), prefix, func() { _ = srv.Close() }, nil
}

// demoKey is AUTOHEAL_ENCRYPTION_KEY when set, else a random key.
func demoKey() ([]byte, error) {
	if v := os.Getenv(sessions.EncryptionKeyEnv); v != "" {
		return sessions.ParseKey(v)
	}
	k := make([]byte, sessions.KeySize)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	return k, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
