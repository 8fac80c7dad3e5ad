// Package jaegertest runs the real Jaeger for tests: the v1.75.0 binary
// built from github.com/jaegertracing/jaeger/cmd/jaeger by scripts/jaeger.sh
// (module tools/jaeger), with its default all-in-one configuration and
// in-memory storage on free loopback ports, and loads scenarios into it
// over OTLP/HTTP as an instrumented application would. Only tests use it.
//
// The binary is $JAEGER_BIN, else the one scripts/jaeger.sh caches in
// $AUTOHEAL_TOOLS_CACHE (default ~/.cache/autoheal-tools). Without it a
// test is skipped with the command that builds it, except in CI (CI=true),
// where a missing binary fails the test.
package jaegertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/autoheal/autoheal/scenario"
	jaegersim "github.com/autoheal/autoheal/sim/jaeger"
)

// Version is the Jaeger release the tests run (the approved one; newer
// releases are not).
const Version = "v1.75.0"

// BuildCommand builds and caches the binary.
const BuildCommand = "scripts/jaeger.sh build"

// Binary returns the path of the real Jaeger binary, or an error saying
// where it was looked for.
func Binary() (string, error) {
	if p := os.Getenv("JAEGER_BIN"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("JAEGER_BIN=%s: %w", p, err)
		}
		return p, nil
	}
	p := filepath.Join(CacheDir(), "jaeger-"+Version, "jaeger")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("no Jaeger %s binary at %s and JAEGER_BIN is unset", Version, p)
	}
	return p, nil
}

// CacheDir is where scripts/jaeger.sh caches tools.
func CacheDir() string {
	if d := os.Getenv("AUTOHEAL_TOOLS_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "autoheal-tools")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "autoheal-tools")
}

// Require returns the binary, or skips the test (fails it in CI) when it
// is missing.
func Require(t testing.TB) string {
	t.Helper()
	p, err := Binary()
	if err == nil {
		return p
	}
	msg := fmt.Sprintf("real Jaeger %s: %v; build it once with `%s` (about 10 CPU-minutes, then cached; `make jaeger` does the same) or set JAEGER_BIN", Version, err, BuildCommand)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// configPath is tools/jaeger/all-in-one.yaml: the upstream default
// configuration with its listen ports taken from the environment.
func configPath() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "tools", "jaeger", "all-in-one.yaml")
}

// portVars are the configuration's listen ports.
var portVars = []string{"METRICS", "SAMPLING_HTTP", "SAMPLING_GRPC", "HEALTH_HTTP", "HEALTH_GRPC", "EXPVAR", "ZPAGES",
	"OTLP_GRPC", "OTLP_HTTP", "JAEGER_GRPC", "THRIFT_HTTP", "THRIFT_BINARY", "THRIFT_COMPACT", "ZIPKIN", "QUERY_HTTP", "QUERY_GRPC"}

// Server is one running Jaeger.
type Server struct {
	// QueryURL is the query service (UI, /api/..., /api/v3/...).
	QueryURL string
	// OTLPURL is the OTLP/HTTP receiver (POST /v1/traces).
	OTLPURL string
	cmd     *exec.Cmd
	log     *lockedBuffer
}

// Start runs a Jaeger for the test and stops it when the test ends. Ports
// are picked free just before the start; when another process takes one in
// between (tests run in parallel), Jaeger fails to bind and is started
// again on new ports.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Require(t)
	for attempt := 1; ; attempt++ {
		s, err := launch(t, bin)
		if err == nil {
			return s
		}
		if !errors.Is(err, errPortTaken) || attempt == 5 {
			t.Fatalf("jaeger: %v", err)
		}
		t.Logf("jaeger: %v; starting again on other ports", err)
	}
}

var errPortTaken = errors.New("a listen port was taken")

// ready is what Jaeger logs once its receivers listen too (the query
// service starts first).
const ready = "Everything is ready. Begin running and processing data."

func launch(t testing.TB, bin string) (*Server, error) {
	ports := map[string]int{}
	for _, v := range portVars {
		ports[v] = freePort(t)
	}
	s := &Server{
		QueryURL: fmt.Sprintf("http://127.0.0.1:%d", ports["QUERY_HTTP"]),
		OTLPURL:  fmt.Sprintf("http://127.0.0.1:%d", ports["OTLP_HTTP"]),
		log:      &lockedBuffer{},
	}
	s.cmd = exec.Command(bin, "--config", configPath())
	s.cmd.Dir = t.TempDir()
	s.cmd.Env = append(os.Environ(), "JAEGER_LISTEN_HOST=127.0.0.1",
		// Jaeger traces its own queries (service "jaeger"): into itself,
		// as with the default ports.
		fmt.Sprintf("OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:%d", ports["OTLP_GRPC"]),
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=")
	for _, v := range portVars {
		s.cmd.Env = append(s.cmd.Env, fmt.Sprintf("AUTOHEAL_JAEGER_%s_PORT=%d", v, ports[v]))
	}
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlive the test binary
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	exited := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(exited) }()
	stop := func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
			<-exited
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-exited:
			return nil, fmt.Errorf("exited at start:\n%s", problems(s.log.String()))
		default:
		}
		logged := s.log.String()
		if strings.Contains(logged, "address already in use") {
			stop()
			return nil, fmt.Errorf("%w: %s", errPortTaken, problems(logged))
		}
		if strings.Contains(logged, ready) {
			if resp, err := http.Get(s.QueryURL + "/api/services"); err == nil {
				_ = resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
		}
		if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("not ready on %s within 60s:\n%s", s.QueryURL, problems(logged))
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("jaeger warnings and errors:\n%s", problems(s.log.String()))
		}
	})
	return s, nil
}

// LoadTraces exports the traces over OTLP/HTTP (JSON), oldest first and one
// at a time, each visible before the next is sent: the memory store then
// holds them in start order, as the simulator does, and searches return
// the same newest traces.
func (s *Server) LoadTraces(t testing.TB, traces *scenario.Traces) {
	t.Helper()
	if traces == nil {
		return
	}
	ordered := append([]scenario.Trace(nil), traces.Data...)
	start := func(tr scenario.Trace) int64 {
		var m int64
		for i, sp := range tr.Spans {
			if i == 0 || sp.StartTime < m {
				m = sp.StartTime
			}
		}
		return m
	}
	sort.SliceStable(ordered, func(i, j int) bool { return start(ordered[i]) < start(ordered[j]) })
	for _, tr := range ordered {
		body, err := jaegersim.TraceToOTLP(tr)
		if err != nil {
			t.Fatalf("trace %s: %v", tr.TraceID, err)
		}
		resp, err := http.Post(s.OTLPURL+"/v1/traces", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatalf("export trace %s: %v", tr.TraceID, err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("export trace %s: %s: %s", tr.TraceID, resp.Status, b)
		}
		s.waitFor(t, tr.TraceID, len(tr.Spans))
	}
}

// waitFor polls until the trace is stored with all its spans.
func (s *Server) waitFor(t testing.TB, id string, spans int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		if n, err := s.spanCount(ctx, id); err == nil && n >= spans {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("trace %s was not stored within 20s", id)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (s *Server) spanCount(ctx context.Context, id string) (int, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.QueryURL+"/api/traces/"+id, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s", resp.Status)
	}
	var body struct {
		Data []struct {
			Spans []json.RawMessage `json:"spans"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || len(body.Data) == 0 {
		return 0, fmt.Errorf("trace %s: %v", id, err)
	}
	return len(body.Data[0].Spans), nil
}

// Log is what the process printed so far.
func (s *Server) Log() string { return s.log.String() }

// Jaeger's ports are taken below the kernel's ephemeral range (32768 and
// up on Linux), where every other test's listener (":0") and outgoing
// connection lands: a port checked free there stays free until Jaeger binds
// it, unless another Jaeger of the same run picked it (then Start retries).
const (
	portFloor = 20000
	portSpan  = 12000
)

// freePort returns a port in [portFloor, portFloor+portSpan) that is free
// for TCP and UDP (the Thrift receivers listen on UDP).
func freePort(t testing.TB) int {
	t.Helper()
	for range 200 {
		p := portFloor + rand.IntN(portSpan)
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue
		}
		u, err := net.ListenPacket("udp", fmt.Sprintf("127.0.0.1:%d", p))
		_ = l.Close()
		if err != nil {
			continue
		}
		_ = u.Close()
		return p
	}
	t.Fatalf("free port: none found in %d-%d", portFloor, portFloor+portSpan)
	return 0
}

// problems are the last warning and error lines of Jaeger's log.
func problems(log string) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "\twarn\t") || strings.Contains(l, "\terror\t") || strings.Contains(l, "Error:") {
			out = append(out, l)
		}
	}
	const n = 12
	if len(out) > n {
		out = append([]string{"… " + strconv.Itoa(len(out)-n) + " more"}, out[len(out)-n:]...)
	}
	if len(out) == 0 {
		return "(no warnings in its log)"
	}
	return strings.Join(out, "\n")
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
