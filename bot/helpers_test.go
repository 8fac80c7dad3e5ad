package bot

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"github.com/autoheal/autoheal/harness"
	"github.com/autoheal/autoheal/internal/redistest"
	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sessions"
	slacksim "github.com/autoheal/autoheal/sim/slack"
)

// waitTimeout bounds every wait in these tests: a deadlock guard, not a
// timing assertion.
const waitTimeout = 60 * time.Second

const (
	incidentChannel = "C0INCIDENT"
	oncall          = "U0ALICE"
	approver        = "U0APPROVER"
	examplesDir     = "../testdata/examples"
)

func testLogger() *slog.Logger {
	if os.Getenv("BOT_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// testRedisURL is the Redis the tests use: REDIS_URL, else a local default.
func testRedisURL() string { return redistest.URL() }

// newRedis connects to the test Redis and fails (never skips) when it is
// unreachable: these tests are about real Redis semantics.
func newRedis(t testing.TB) *redis.Client { return redistest.Client(t) }

// uniquePrefix returns a random key prefix whose keys are deleted when the
// test ends.
func uniquePrefix(t testing.TB, rdb redis.UniversalClient) string {
	return redistest.Prefix(t, rdb, "autoheal-bot-test-")
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

// testEnv is one workspace: a Slack simulator and a Redis namespace that
// bot replicas share.
type testEnv struct {
	sim    *slacksim.Server
	rdb    *redis.Client
	prefix string
	key    []byte
	sopts  sessions.Options
	store  *sessions.Store // the test's own view of Redis
}

type envOptions struct {
	noKey bool
	store sessions.Options
	sim   slacksim.Options
}

func newEnv(t testing.TB, o envOptions) *testEnv {
	t.Helper()
	simOpts := o.sim
	simOpts.Channels = append(simOpts.Channels, slacksim.Channel{ID: incidentChannel, Name: "incidents"})
	simOpts.Users = append(simOpts.Users,
		slacksim.User{ID: oncall, Name: "alice", RealName: "Alice Oncall"},
		slacksim.User{ID: approver, Name: "pat", RealName: "Pat Approver"})
	srv := slacksim.New(simOpts)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Close() })

	rdb := newRedis(t)
	e := &testEnv{sim: srv, rdb: rdb, prefix: uniquePrefix(t, rdb), sopts: o.store}
	if !o.noKey {
		e.key = make([]byte, sessions.KeySize)
		_, _ = rand.Read(e.key)
	}
	e.store = e.newStore(t, rdb)
	return e
}

func (e *testEnv) newStore(t testing.TB, rdb redis.UniversalClient) *sessions.Store {
	t.Helper()
	o := e.sopts
	o.Prefix = e.prefix
	o.EncryptionKey = append([]byte(nil), e.key...)
	if e.key == nil {
		o.EncryptionKey = nil
	}
	o.Logger = testLogger()
	s, err := sessions.New(rdb, o)
	require.NoError(t, err)
	return s
}

func (e *testEnv) newQueue(t testing.TB, rdb redis.UniversalClient) *sessions.Queue {
	t.Helper()
	q, err := sessions.NewQueue(rdb, sessions.QueueOptions{
		Stream:              e.prefix + ":jobs",
		VisibilityTimeout:   10 * time.Second,
		BlockTimeout:        50 * time.Millisecond,
		ClaimInterval:       500 * time.Millisecond,
		RetryBackoff:        100 * time.Millisecond,
		ConsumerIdleTimeout: time.Minute,
		DrainTimeout:        5 * time.Second,
		Logger:              testLogger(),
	})
	require.NoError(t, err)
	return q
}

// runningBot is one bot replica.
type runningBot struct {
	*Bot
	store  *sessions.Store
	queue  *sessions.Queue
	cancel context.CancelFunc
	done   chan error
}

// startBot runs a replica with its own Redis and Slack clients, connected
// to the simulator, and waits for its Socket Mode connection.
func (e *testEnv) startBot(t testing.TB, mod func(*Options)) *runningBot {
	t.Helper()
	before := len(e.sim.Connections())
	rdb := newRedis(t)
	store := e.newStore(t, rdb)
	queue := e.newQueue(t, rdb)
	client := slack.New(e.sim.BotToken(), slack.OptionAPIURL(e.sim.APIURL()), slack.OptionAppLevelToken(e.sim.AppToken()))
	o := Options{
		Slack: client, Store: store, Queue: queue,
		UpdateInterval: 200 * time.Millisecond,
		ReconnectMin:   20 * time.Millisecond,
		Logger:         testLogger(),
		// The simulators the tests store as channel settings listen on
		// the loopback address, which user-supplied URLs may only reach
		// when it is allowed.
		AllowedHosts: []string{"127.0.0.1"},
	}
	if mod != nil {
		mod(&o)
	}
	b, err := New(o)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	rb := &runningBot{Bot: b, store: store, queue: queue, cancel: cancel, done: make(chan error, 1)}
	go func() { rb.done <- b.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-rb.done:
		case <-time.After(waitTimeout):
			t.Errorf("bot did not stop")
		}
	})
	wctx, wcancel := context.WithTimeout(context.Background(), waitTimeout)
	defer wcancel()
	require.NoError(t, e.sim.WaitConnections(wctx, before+1), "the bot did not connect")
	return rb
}

// eventually polls cond until it holds (a deadlock guard, not a timing assertion).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitResult waits until a job's result is posted and returns where.
func (e *testEnv) waitResult(t testing.TB, jobID string) sessions.ResultRecord {
	t.Helper()
	var rec sessions.ResultRecord
	eventually(t, "the result of "+jobID, func() bool {
		r, err := e.store.GetResult(context.Background(), jobID)
		if err != nil && !errors.Is(err, sessions.ErrNotFound) {
			t.Fatalf("get result: %v", err)
		}
		rec = r
		return err == nil
	})
	return rec
}

// botMessages returns the bot's messages in a thread.
func (e *testEnv) botMessages(channel, threadTS string) []slacksim.Message {
	var out []slacksim.Message
	for _, m := range e.sim.Thread(channel, threadTS) {
		if m.BotID != "" {
			out = append(out, m)
		}
	}
	return out
}

// webCalls are the Web API calls made since index from (connection
// housekeeping excluded).
func (e *testEnv) webCalls(from int) []slacksim.Call {
	all := e.sim.Calls()
	var out []slacksim.Call
	for _, c := range all[min(from, len(all)):] {
		switch c.Method {
		case "auth.test", "apps.connections.open", "files.upload_url":
			continue // files.upload_url: a file's bytes, not a Web API method
		}
		out = append(out, c)
	}
	return out
}

// scenarioEnv loads a scenario, serves its backends and stores their
// settings as the incident channel's session.
func (e *testEnv) scenarioEnv(t testing.TB, name string) (*scenario.Scenario, *harness.Backends) {
	t.Helper()
	return e.scenarioEnvWith(t, name, harness.Options{})
}

// scenarioEnvWith is scenarioEnv with simulator options (a latency on
// every backend call, say).
func (e *testEnv) scenarioEnvWith(t testing.TB, name string, o harness.Options) (*scenario.Scenario, *harness.Backends) {
	t.Helper()
	s, err := scenario.Load(examplesDir + "/" + name)
	require.NoError(t, err)
	b, err := harness.Start(s, o)
	require.NoError(t, err)
	t.Cleanup(b.Close)
	require.NoError(t, e.store.Set(context.Background(), sessions.ChannelScope(incidentChannel), b.Config()))
	return s, b
}

// mentionText is what the on-call engineer types for a scenario.
func mentionText(t testing.TB, s *scenario.Scenario) string {
	t.Helper()
	if !s.Trigger.IsAlert() {
		return s.Trigger.Mention
	}
	is, err := harness.Issue(s)
	require.NoError(t, err)
	return is.Text
}

// allRedisValues dumps every value stored under the test prefix.
func (e *testEnv) allRedisValues(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	iter := e.rdb.Scan(ctx, 0, e.prefix+"*", 500).Iterator()
	for iter.Next(ctx) {
		k := iter.Val()
		typ, err := e.rdb.Type(ctx, k).Result()
		require.NoError(t, err)
		b.WriteString(k + "\n")
		switch typ {
		case "string":
			v, _ := e.rdb.Get(ctx, k).Result()
			b.WriteString(v)
		case "hash":
			for f, v := range e.rdb.HGetAll(ctx, k).Val() {
				b.WriteString(f + "=" + v + "\n")
			}
		case "list":
			b.WriteString(strings.Join(e.rdb.LRange(ctx, k, 0, -1).Val(), "\n"))
		case "stream":
			for _, m := range e.rdb.XRange(ctx, k, "-", "+").Val() {
				for f, v := range m.Values {
					b.WriteString(f + "=")
					if s, ok := v.(string); ok {
						b.WriteString(s)
					}
					b.WriteString("\n")
				}
			}
		}
		b.WriteString("\n")
	}
	require.NoError(t, iter.Err())
	return b.String()
}

func loadScenario(name string) (*scenario.Scenario, error) {
	return scenario.Load(examplesDir + "/" + name)
}

// startBackends serves a scenario's backends without configuring anything.
func startBackends(t testing.TB, s *scenario.Scenario) *harness.Backends {
	t.Helper()
	b, err := harness.Start(s, harness.Options{})
	require.NoError(t, err)
	t.Cleanup(b.Close)
	return b
}

// blocksText is a message's blocks as JSON without HTML escaping, for
// substring checks ("<@U…>" stays readable).
func blocksText(m slacksim.Message) string {
	var v any
	if json.Unmarshal(m.Blocks, &v) != nil {
		return string(m.Blocks)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return b.String()
}
