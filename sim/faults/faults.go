// Package faults is an http.Handler middleware that injects failures into a
// simulator: latency, error statuses, malformed, truncated or huge bodies,
// hangs, and "fail the first N calls" — configured per request path prefix
// and changeable while the server runs.
//
// Every injection is recorded in the transcript under the wrapped
// simulator's service name with a "fault" key in the response summary. A
// latency-only injection, or a hang that is released, then lets the call
// through, so the simulator records the same call a second time.
package faults

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/autoheal/autoheal/sim"
)

// Kind is what happens to a call once the optional latency has elapsed.
type Kind string

// Fault kinds.
const (
	// None lets the call through (use it with Latency).
	None Kind = ""
	// Status answers with Fault.Status and no call reaches the simulator.
	Status Kind = "status"
	// Malformed answers 200 with a JSON content type and a body that is not JSON.
	Malformed Kind = "malformed"
	// Truncated runs the simulator and sends only the first half of its body.
	Truncated Kind = "truncated"
	// Huge streams HugeBytes of valid JSON without buffering it.
	Huge Kind = "huge"
	// Hang blocks until the client goes away, Fault.Release closes or the
	// injector releases all hangs; a released call goes through.
	Hang Kind = "hang"
)

const (
	// DefaultHugeBytes is the size of a Huge body when HugeBytes is zero.
	DefaultHugeBytes = 50 << 20
	// MaxHugeBytes bounds HugeBytes.
	MaxHugeBytes = 4 << 30
	// maxCapture bounds how much of a simulator response Truncated buffers.
	maxCapture = 64 << 20
)

// MalformedBody is what Malformed sends: it starts like a JSON document and
// breaks off into something no JSON decoder accepts.
const MalformedBody = `{"status":"success","data":{"result":[{"metric":{"__name__":"up"},"value":[1764497400,"1"]},<html><body>502 Bad Gateway</body></html>`

// Fault describes one injected failure.
type Fault struct {
	Kind Kind
	// Method limits the fault to requests of one HTTP method ("POST");
	// empty matches every method. Rules of one prefix and different
	// methods coexist.
	Method string
	// Latency delays the call before anything else happens (0: none). The
	// wait ends early when the client goes away.
	Latency time.Duration
	// Status is the HTTP status of a Status fault (401, 403, 404, 429, 500, 503...).
	Status int
	// RetryAfter sets a Retry-After header (whole seconds, rounded up) on a
	// Status fault.
	RetryAfter time.Duration
	// Body and ContentType override the Status response body (default: the
	// status text as text/plain).
	Body        string
	ContentType string
	// Times limits the fault to the first N matching calls; later calls go
	// through untouched. 0 means every call.
	Times int
	// HugeBytes is the size of a Huge body (0: DefaultHugeBytes).
	HugeBytes int64
	// Release ends a Hang when closed (nil: only the client or
	// Injector.ReleaseHangs end it).
	Release <-chan struct{}
	// CleanEOF makes a Truncated response end cleanly (the prefix is the
	// whole body) instead of declaring the full Content-Length and cutting
	// the connection mid-body.
	CleanEOF bool
}

func (f Fault) validate() error {
	switch f.Kind {
	case None, Malformed, Truncated, Hang:
	case Status:
		if f.Status < 100 || f.Status > 599 {
			return fmt.Errorf("status fault needs an HTTP status in 100..599, got %d", f.Status)
		}
	case Huge:
		if f.HugeBytes < 0 || f.HugeBytes > MaxHugeBytes {
			return fmt.Errorf("huge body size %d out of range 0..%d", f.HugeBytes, int64(MaxHugeBytes))
		}
	default:
		return fmt.Errorf("unknown fault kind %q", f.Kind)
	}
	if f.Latency < 0 {
		return fmt.Errorf("negative latency %v", f.Latency)
	}
	if f.Times < 0 {
		return fmt.Errorf("negative times %d", f.Times)
	}
	if f.RetryAfter < 0 {
		return fmt.Errorf("negative retry-after %v", f.RetryAfter)
	}
	if f.Method != "" && strings.ToUpper(f.Method) != f.Method {
		return fmt.Errorf("method %q must be upper case", f.Method)
	}
	if f.Kind == None && f.Latency == 0 {
		return errors.New("fault does nothing: set a kind or a latency")
	}
	return nil
}

// Options configure an Injector.
type Options struct {
	// Service is the transcript service name of the wrapped simulator
	// ("jaeger", "loki", "prometheus"...).
	Service string
	// Transcript records injected faults; nil records nothing.
	Transcript *sim.Transcript
	// Logger receives one debug line per injection; nil discards.
	Logger *slog.Logger
}

// Injector wraps a handler and injects faults. It is safe for concurrent
// use, including changing rules while requests are in flight.
type Injector struct {
	next http.Handler
	opts Options
	log  *slog.Logger

	mu       sync.RWMutex
	rules    []*rule // sorted by prefix length, longest first
	released chan struct{}

	injected atomic.Int64
}

type rule struct {
	prefix string
	fault  Fault
	calls  atomic.Int64 // matching calls seen, for Times
}

// New wraps next.
func New(next http.Handler, opts Options) *Injector {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Injector{next: next, opts: opts, log: log, released: make(chan struct{})}
}

// Set installs (or replaces) the fault for requests whose path starts with
// prefix (and of f.Method, when set); "" or "/" matches every path. The
// longest matching prefix wins, and among rules of one prefix the one
// naming the request's method.
func (i *Injector) Set(prefix string, f Fault) error {
	if err := f.validate(); err != nil {
		return fmt.Errorf("fault for %q: %w", prefix, err)
	}
	if prefix == "/" {
		prefix = ""
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	out := i.rules[:0:0]
	for _, r := range i.rules {
		if r.prefix != prefix || r.fault.Method != f.Method {
			out = append(out, r)
		}
	}
	out = append(out, &rule{prefix: prefix, fault: f})
	sort.SliceStable(out, func(a, b int) bool {
		if len(out[a].prefix) != len(out[b].prefix) {
			return len(out[a].prefix) > len(out[b].prefix)
		}
		return out[a].fault.Method != "" && out[b].fault.Method == ""
	})
	i.rules = out
	return nil
}

// Clear removes the faults of prefix (of every method).
func (i *Injector) Clear(prefix string) {
	if prefix == "/" {
		prefix = ""
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	out := i.rules[:0:0]
	for _, r := range i.rules {
		if r.prefix != prefix {
			out = append(out, r)
		}
	}
	i.rules = out
}

// Reset removes every fault.
func (i *Injector) Reset() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.rules = nil
}

// ReleaseHangs lets every current and future Hang through, so a server
// with hanging calls can shut down. Later Set calls do not re-arm hangs.
func (i *Injector) ReleaseHangs() {
	i.mu.Lock()
	defer i.mu.Unlock()
	select {
	case <-i.released:
	default:
		close(i.released)
	}
}

// Injected returns how many calls received a fault so far.
func (i *Injector) Injected() int64 { return i.injected.Load() }

// match returns the fault to apply to path, if any, consuming one of its
// Times.
func (i *Injector) match(method, path string) (Fault, bool) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	for _, r := range i.rules {
		if !strings.HasPrefix(path, r.prefix) || (r.fault.Method != "" && r.fault.Method != method) {
			continue
		}
		n := r.calls.Add(1)
		if r.fault.Times > 0 && n > int64(r.fault.Times) {
			return Fault{}, false
		}
		return r.fault, true
	}
	return Fault{}, false
}

// ServeHTTP implements http.Handler.
func (i *Injector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f, ok := i.match(r.Method, r.URL.Path)
	if !ok {
		i.next.ServeHTTP(w, r)
		return
	}
	i.injected.Add(1)
	ctx := r.Context()
	if f.Latency > 0 {
		i.record(r, f, map[string]any{"latency_ms": f.Latency.Milliseconds()})
		if !sleep(ctx, f.Latency) {
			return // the client went away
		}
	}
	switch f.Kind {
	case None:
		i.next.ServeHTTP(w, r)
	case Status:
		i.record(r, f, map[string]any{"status": f.Status})
		writeStatus(w, f)
	case Malformed:
		i.record(r, f, map[string]any{"status": http.StatusOK})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(MalformedBody)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(MalformedBody))
	case Truncated:
		i.truncated(w, r, f)
	case Huge:
		size := f.HugeBytes
		if size == 0 {
			size = DefaultHugeBytes
		}
		i.record(r, f, map[string]any{"status": http.StatusOK, "bytes": size})
		streamHuge(ctx, w, size)
	case Hang:
		i.record(r, f, map[string]any{"status": "hang"})
		i.mu.RLock()
		released := i.released
		i.mu.RUnlock()
		select {
		case <-ctx.Done():
			return
		case <-f.Release:
		case <-released:
		}
		i.next.ServeHTTP(w, r)
	}
}

func (i *Injector) record(r *http.Request, f Fault, resp map[string]any) {
	kind := string(f.Kind)
	if kind == "" || (f.Latency > 0 && resp["latency_ms"] != nil) {
		kind = "latency"
	}
	resp["fault"] = kind
	i.opts.Transcript.Record(i.opts.Service, r.Method+" "+r.URL.Path, sim.FormParams(r.URL.Query()), resp)
	i.log.Debug("fault injected", "service", i.opts.Service, "path", r.URL.Path, "fault", kind)
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func writeStatus(w http.ResponseWriter, f Fault) {
	if f.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(f.RetryAfter.Seconds()))))
	}
	body, ctype := f.Body, f.ContentType
	if body == "" {
		body = http.StatusText(f.Status) + "\n"
		if ctype == "" {
			ctype = "text/plain; charset=utf-8"
		}
	}
	if ctype != "" {
		w.Header().Set("Content-Type", ctype)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(f.Status)
	_, _ = w.Write([]byte(body))
}

// truncated runs the wrapped handler into a bounded buffer and sends the
// first half of what it produced.
func (i *Injector) truncated(w http.ResponseWriter, r *http.Request, f Fault) {
	rec := &captureWriter{header: http.Header{}, status: http.StatusOK}
	i.next.ServeHTTP(rec, r)
	body := rec.buf.Bytes()
	cut := len(body) / 2
	i.record(r, f, map[string]any{"status": rec.status, "bytes": cut, "of": len(body)})
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	if f.CleanEOF {
		w.Header().Set("Content-Length", strconv.Itoa(cut))
	} else {
		// Declaring the full length and stopping short makes the server
		// drop the connection: the client sees an unexpected EOF.
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(rec.status)
	_, _ = w.Write(body[:cut])
}

// captureWriter buffers a response, up to maxCapture bytes.
type captureWriter struct {
	header http.Header
	status int
	wrote  bool
	buf    bytes.Buffer
}

func (c *captureWriter) Header() http.Header { return c.header }

func (c *captureWriter) WriteHeader(code int) {
	if !c.wrote {
		c.status, c.wrote = code, true
	}
}

func (c *captureWriter) Write(p []byte) (int, error) {
	c.wrote = true
	if room := maxCapture - c.buf.Len(); len(p) > room {
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil // the rest is dropped: only half is sent anyway
	}
	return c.buf.Write(p)
}

// Huge bodies: {"status":"success","data":[ "xxx...", "xxx...", ... ]}.
const (
	hugePrefix = `{"status":"success","data":[`
	hugeSuffix = `]}`
	hugeItem   = 1024 // bytes of padding per array element
)

// streamHuge writes size bytes of valid JSON (fewer only when size cannot
// hold the envelope and one element) with constant memory, stopping when the
// client goes away.
func streamHuge(ctx context.Context, w http.ResponseWriter, size int64) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	item := make([]byte, 0, hugeItem+3)
	item = append(item, '"')
	item = append(item, bytes.Repeat([]byte{'x'}, hugeItem)...)
	item = append(item, '"')
	const chunk = 32 << 10
	buf := make([]byte, 0, chunk+len(item)+1)
	buf = append(buf, hugePrefix...)
	remaining := size - int64(len(hugePrefix)+len(hugeSuffix))
	first := true
	flusher, _ := w.(http.Flusher)
	for remaining > 0 {
		if ctx.Err() != nil {
			return
		}
		el := item
		need := int64(len(el))
		if !first {
			need++
		}
		if need > remaining {
			// Shrink the last element so the total is exact.
			pad := remaining - 2
			if !first {
				pad--
			}
			if pad < 0 {
				break
			}
			el = append(append([]byte{'"'}, bytes.Repeat([]byte{'x'}, int(pad))...), '"')
			need = remaining
		}
		if !first {
			buf = append(buf, ',')
		}
		buf = append(buf, el...)
		first = false
		remaining -= need
		if len(buf) >= chunk {
			if _, err := w.Write(buf); err != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
			buf = buf[:0]
		}
	}
	buf = append(buf, hugeSuffix...)
	_, _ = w.Write(buf)
}
