package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/autoheal/autoheal/bot"
	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/k8s"
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
// simulators, with the same wiring as `bot serve`.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scen := fs.String("scenario", "", "scenario directory (required)")
	transcript := fs.String("transcript", "", "write every call to a simulator as JSON lines to this file")
	timeout := fs.Duration("timeout", 2*time.Minute, "give up when no result is posted within this time")
	verbose := fs.Bool("v", false, "show the bot's logs")
	lf := addLLMFlags(fs, true)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *scen == "" {
		return fmt.Errorf("%w: --scenario DIR is required", errUsage)
	}
	s, err := scenario.Load(*scen)
	if err != nil {
		return err
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
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
	backends, err := harness.Start(s, harness.Options{Transcript: tr, GitHubToken: githubToken, Logger: log})
	if err != nil {
		return err
	}
	defer backends.Close()
	defer func() { _ = k8s.CloseShared() }() // before the simulators stop

	rdb, prefix, closeRedis, err := demoRedis(ctx)
	if err != nil {
		return err
	}
	defer closeRedis()

	key, err := demoKey()
	if err != nil {
		return err
	}
	env := serveEnv{
		AppToken: slackSim.AppToken(), BotToken: slackSim.BotToken(), SlackAPIURL: slackSim.APIURL(),
		RedisPrefix: prefix, EncryptionKey: key,
		Approvers: remediate.Approvers{Users: []string{demoApprover}},
		MinBand:   investigate.BandMedium, Concurrency: 2, EventWorkers: 4,
		Deadline: 60 * time.Second, DrainTimeout: 5 * time.Second, HTTPAddr: "127.0.0.1:0",
		Settings: map[string]string{}, // the channel's session holds the scenario's settings
	}
	w, err := wireBot(botDeps{Env: env, Redis: rdb, Planner: planner, Logger: log, Now: func() time.Time { return s.Now }})
	if err != nil {
		return err
	}
	// The scenario's settings are the incident channel's session, as if set
	// with /autoheal config (the GitHub token is stored encrypted).
	if err := w.Store.Set(ctx, sessions.ChannelScope(demoChannel), backends.Config()); err != nil {
		return fmt.Errorf("channel settings: %w", err)
	}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	botDone := make(chan error, 1)
	go func() { botDone <- w.Bot.Run(runCtx) }()
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	err = slackSim.WaitConnections(wctx, 1)
	wcancel()
	if err != nil {
		return fmt.Errorf("the bot did not connect to the Slack simulator: %w", err)
	}

	text := s.Trigger.Mention
	if s.Trigger.IsAlert() {
		issue, err := harness.Issue(s)
		if err != nil {
			return err
		}
		text = issue.Text
		fmt.Fprintln(stderr, "note: this scenario is triggered by an Alertmanager alert; until the webhook is wired, the demo delivers the alert's text as a mention.")
	}
	fmt.Fprintf(stderr, "scenario %s — %s mentions @autoheal in #%s\n", s.Name, "oncall", demoChannelName)
	m, err := slackSim.MentionEvent(slacksim.MentionOptions{Channel: demoChannel, User: demoOncall, Text: text})
	if err != nil {
		return err
	}
	if err := waitResult(ctx, w.Store, bot.MentionJobID(m.EventID), botDone, *timeout); err != nil {
		fmt.Fprint(stdout, slackSim.RenderThread(demoChannel, m.ThreadTS))
		return err
	}
	fmt.Fprint(stdout, slackSim.RenderThread(demoChannel, m.ThreadTS))
	cancel()
	if err := <-botDone; err != nil {
		return err
	}
	return nil
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
		case err := <-botDone:
			return fmt.Errorf("the bot stopped before posting a result: %v", err)
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
