package slacksim

import (
	"context"
	"io"
	"log"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"github.com/stretchr/testify/require"
)

// testTimeout bounds every wait in these tests; it is a deadlock guard,
// not a timing assertion.
const testTimeout = 10 * time.Second

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

func newServer(t testing.TB, opts Options) *Server {
	t.Helper()
	srv := New(opts)
	require.NoError(t, srv.Start())
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

func newAPI(srv *Server) *slack.Client {
	return slack.New(srv.BotToken(), slack.OptionAPIURL(srv.APIURL()), slack.OptionAppLevelToken(srv.AppToken()))
}

// testBot is a Socket Mode client as the real bot runs it: the real
// slack-go socketmode client, acking every request.
type testBot struct {
	sm     *socketmode.Client
	events chan socketmode.Event
	done   chan struct{} // closed when RunContext returned
	err    error         // what RunContext returned, once done is closed
	cancel context.CancelFunc

	mu    sync.Mutex
	hosts []string // debug_info.host of each hello: which simulator connection

	// ackPayload, when set, chooses the ack payload of a request.
	ackPayload func(socketmode.Event) any
	// noAck leaves requests unacknowledged.
	noAck bool
	// discard drops events instead of keeping them for next.
	discard bool
}

type botOptions struct {
	appToken   string
	ackPayload func(socketmode.Event) any
	noAck      bool
	discard    bool
}

func startBot(t testing.TB, srv *Server, o botOptions) *testBot {
	t.Helper()
	if o.appToken == "" {
		o.appToken = srv.AppToken()
	}
	api := slack.New(srv.BotToken(), slack.OptionAPIURL(srv.APIURL()), slack.OptionAppLevelToken(o.appToken))
	sm := socketmode.New(api, socketmode.OptionLog(log.New(io.Discard, "", 0)))
	ctx, cancel := context.WithCancel(context.Background())
	b := &testBot{sm: sm, events: make(chan socketmode.Event, 1024), done: make(chan struct{}), cancel: cancel,
		ackPayload: o.ackPayload, noAck: o.noAck, discard: o.discard}
	go func() {
		b.err = sm.RunContext(ctx)
		close(b.done)
	}()
	go b.loop(ctx)
	t.Cleanup(func() {
		cancel()
		select {
		case <-b.done:
		case <-time.After(testTimeout):
			t.Errorf("socket mode client did not stop")
		}
	})
	return b
}

func (b *testBot) loop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case evt := <-b.sm.Events:
			if evt.Type == socketmode.EventTypeHello && evt.Request != nil {
				b.mu.Lock()
				b.hosts = append(b.hosts, evt.Request.DebugInfo.Host)
				b.mu.Unlock()
			}
			if evt.Request != nil && evt.Request.EnvelopeID != "" && !b.noAck {
				var payload any
				if b.ackPayload != nil {
					payload = b.ackPayload(evt)
				}
				_ = b.sm.AckCtx(ctx, evt.Request.EnvelopeID, payload)
			}
			if b.discard {
				continue
			}
			switch evt.Type {
			case socketmode.EventTypeEventsAPI, socketmode.EventTypeSlashCommand, socketmode.EventTypeInteractive, socketmode.EventTypeHello:
				select {
				case b.events <- evt:
				case <-ctx.Done():
					return
				}
			}
		}
	}
}

// wait returns what RunContext returned.
func (b *testBot) wait(t testing.TB) error {
	t.Helper()
	select {
	case <-b.done:
		return b.err
	case <-time.After(testTimeout):
		t.Fatalf("socket mode client still running")
		return nil
	}
}

// connID is the simulator connection id of the bot's latest connection.
func (b *testBot) connID() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.hosts) == 0 {
		return ""
	}
	return "conn-" + strings.TrimPrefix(b.hosts[len(b.hosts)-1], "applink-sim-")
}

// next returns the next event of type typ, skipping others.
func (b *testBot) next(t testing.TB, typ socketmode.EventType) socketmode.Event {
	t.Helper()
	timer := time.NewTimer(testTimeout)
	defer timer.Stop()
	for {
		select {
		case evt := <-b.events:
			if evt.Type == typ {
				return evt
			}
		case <-b.done:
			t.Fatalf("socket mode client stopped waiting for %s: %v", typ, b.err)
		case <-timer.C:
			t.Fatalf("no %s event", typ)
		}
	}
}
