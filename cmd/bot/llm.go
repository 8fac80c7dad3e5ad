package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"

	"github.com/autoheal/autoheal/investigate"
	"github.com/autoheal/autoheal/investigate/llm"
	oaisim "github.com/autoheal/autoheal/sim/openai"
)

// llmFlags choose the planner: the LLM planner whenever OPENAI_API_KEY is
// set, unless --no-llm; --record and --replay capture and replay a model
// session.
type llmFlags struct {
	noLLM  *bool
	record *string
	replay *string
}

func addLLMFlags(fs *flag.FlagSet, session bool) *llmFlags {
	f := &llmFlags{noLLM: fs.Bool("no-llm", false, "use the deterministic engine even when OPENAI_API_KEY is set")}
	if session {
		f.record = fs.String("record", "", "record the model session (requests and responses, redacted) as JSON lines to this file")
		f.replay = fs.String("replay", "", "replay a session recorded with --record offline, through the OpenAI simulator")
	}
	return f
}

func (f *llmFlags) value(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// replayKey authenticates the planner to the local replay simulator.
const replayKey = "autoheal-replay-session"

// planner returns the LLM planner to use (nil: the deterministic engine)
// and a function releasing what it opened.
func (f *llmFlags) planner(stderr io.Writer) (*llm.Planner, func(), error) {
	noop := func() {}
	record, replay := f.value(f.record), f.value(f.replay)
	switch {
	case *f.noLLM && (record != "" || replay != ""):
		return nil, noop, fmt.Errorf("%w: --no-llm excludes --record and --replay", errUsage)
	case record != "" && replay != "":
		return nil, noop, fmt.Errorf("%w: --record and --replay exclude each other", errUsage)
	case *f.noLLM:
		return nil, noop, nil
	}
	opts := llm.Options{Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	if replay != "" {
		file, err := os.Open(replay)
		if err != nil {
			return nil, noop, err
		}
		rp, err := oaisim.LoadReplay(file)
		file.Close()
		if err != nil {
			return nil, noop, fmt.Errorf("%s: %w", replay, err)
		}
		cfg, _, err := llm.ConfigFromEnv(os.Getenv) // limits as configured; endpoint and key are the replay's
		if err != nil {
			return nil, noop, err
		}
		srv := httptest.NewServer(oaisim.New(oaisim.Options{Model: rp, Keys: []string{replayKey}}))
		cfg.APIKey, cfg.BaseURL = replayKey, srv.URL+"/v1"
		if m := rp.Model(); m != "" {
			cfg.Model = m
		}
		p, err := llm.New(cfg, opts)
		if err != nil {
			srv.Close()
			return nil, noop, err
		}
		return p, srv.Close, nil
	}
	done := noop
	if record != "" {
		file, err := os.Create(record)
		if err != nil {
			return nil, noop, err
		}
		opts.Record, done = file, func() { file.Close() }
	}
	p, err := llm.FromEnv(opts)
	if err == nil && p == nil && record != "" {
		err = fmt.Errorf("%w: --record needs OPENAI_API_KEY (a model to record)", errUsage)
	}
	if err != nil {
		done()
		return nil, noop, err
	}
	return p, done, nil
}

// investigator adapts the planner to the harness hook.
func investigator(p *llm.Planner) func(ctx context.Context, e *investigate.Engine, issue investigate.Issue) (*investigate.HealResult, error) {
	if p == nil {
		return nil
	}
	return p.Investigate
}

// wrapFor lets the LLM planner see query results, not only findings, as
// the bot's worker does (bot.CapabilityWrapper).
func wrapFor(p *llm.Planner) func([]investigate.Capability) []investigate.Capability {
	if p == nil {
		return nil
	}
	return p.WrapCapabilities
}
