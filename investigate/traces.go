package investigate

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Span is a backend-neutral span: trace backends (Jaeger v1, Jaeger api_v3
// OTLP, ...) convert theirs into it so one analysis serves all.
type Span struct {
	TraceID       string
	SpanID        string
	ParentID      string
	Service       string
	Name          string
	Kind          string // server | client | internal | producer | consumer | ""
	Start         time.Time
	Duration      time.Duration
	Attrs         map[string]string
	Events        []SpanEvent
	Error         bool
	StatusMessage string
}

// SpanEvent is a span log / OTLP event.
type SpanEvent struct {
	Name  string
	Time  time.Time
	Attrs map[string]string
}

// IsErrorSpan decides whether tags mark a span as failed: otel.status_code
// ERROR, error=true, or a 5xx HTTP server response without explicit status.
func IsErrorSpan(attrs map[string]string, kind string) bool {
	if strings.EqualFold(attrs["otel.status_code"], "ERROR") {
		return true
	}
	if v := strings.ToLower(attrs["error"]); v == "true" || v == "1" {
		return true
	}
	if kind == "server" || kind == "" {
		for _, k := range []string{"http.status_code", "http.response.status_code"} {
			if code, err := strconv.Atoi(attrs[k]); err == nil && code >= 500 {
				return true
			}
		}
	}
	return false
}

// exception returns the exception carried by a span's events: events named
// "exception" or "Error", or any event with exception.* attributes.
func (s *Span) exception() (typ, msg, stack string, ok bool) {
	for _, e := range s.Events {
		name := strings.ToLower(e.Name)
		if e.Attrs["event"] != "" {
			name = strings.ToLower(e.Attrs["event"])
		}
		hasExc := e.Attrs["exception.type"] != "" || e.Attrs["exception.message"] != "" || e.Attrs["exception.stacktrace"] != ""
		if name == "exception" || name == "error" || hasExc {
			typ = e.Attrs["exception.type"]
			msg = firstNonEmpty(e.Attrs["exception.message"], e.Attrs["message"], e.Attrs["error.message"], e.Attrs["error.object"])
			stack = firstNonEmpty(e.Attrs["exception.stacktrace"], e.Attrs["stack"], e.Attrs["error.stack"])
			if typ == "" && msg == "" && stack == "" {
				continue
			}
			return typ, msg, stack, true
		}
	}
	return "", "", "", false
}

// codeLocation reads code.* attributes, old and new semantic conventions.
func (s *Span) codeLocation() (file string, line int, fn string) {
	file = firstNonEmpty(s.Attrs["code.file.path"], s.Attrs["code.filepath"])
	line, _ = strconv.Atoi(firstNonEmpty(s.Attrs["code.line.number"], s.Attrs["code.lineno"]))
	fn = firstNonEmpty(s.Attrs["code.function.name"], s.Attrs["code.function"])
	if ns := s.Attrs["code.namespace"]; ns != "" && fn != "" && !strings.Contains(fn, ".") {
		fn = ns + "." + fn
	}
	return file, line, fn
}

// TraceAnalysis is what a set of traces says.
type TraceAnalysis struct {
	Traces      int
	ErrorTraces int
	// Findings: one per (culprit service, error signature, code location),
	// counting the traces where that error is the origin of the failure.
	Findings []Finding
	// Calls counts caller -> callee edges seen in the traces.
	Calls map[string]map[string]int
	// ErrorSpans counts error spans per service.
	ErrorSpans map[string]int
	FirstError time.Time
}

var rpcServiceRE = regexp.MustCompile(`([A-Za-z0-9_]+?)(?:Service|Svc|API|Api)?/[A-Za-z0-9_]+$`)

// NormalizeServiceName reduces a name for comparison: lowercase, only
// letters and digits, without a trailing "service"/"svc"/"api".
func NormalizeServiceName(s string) string {
	s = strings.ToLower(s)
	var b strings.Builder
	for _, r := range s {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	out := b.String()
	for _, suf := range []string{"service", "svc", "server", "api"} {
		if len(out) > len(suf)+1 && strings.HasSuffix(out, suf) {
			out = strings.TrimSuffix(out, suf)
			break
		}
	}
	return out
}

// ServiceIndex maps name variants (CartService, cart-svc, cart) to known services.
type ServiceIndex map[string]string

// NewServiceIndex indexes known service names.
func NewServiceIndex(names ...string) ServiceIndex {
	idx := ServiceIndex{}
	for _, n := range names {
		if n == "" {
			continue
		}
		if _, dup := idx[NormalizeServiceName(n)]; !dup {
			idx[NormalizeServiceName(n)] = n
		}
	}
	return idx
}

// Resolve maps a variant to a known service ("" when unknown).
func (idx ServiceIndex) Resolve(name string) string {
	if name == "" {
		return ""
	}
	if s, ok := idx[NormalizeServiceName(name)]; ok {
		return s
	}
	// Host names: cart.shop.svc.cluster.local, cart-7d9c:7070, payment-svc.
	host := name
	if i := strings.Index(host, "://"); i >= 0 {
		host = host[i+3:]
	}
	host = strings.SplitN(host, "/", 2)[0]
	host = strings.SplitN(host, ":", 2)[0]
	if first := strings.SplitN(host, ".", 2)[0]; first != host || first != name {
		if s, ok := idx[NormalizeServiceName(first)]; ok {
			return s
		}
	}
	return ""
}

// peerOf names the callee of a client span from its attributes or operation name.
func peerOf(s *Span, idx ServiceIndex) string {
	for _, k := range []string{"peer.service", "rpc.service", "server.address", "net.peer.name", "net.sock.peer.name", "http.host", "url.full", "http.url", "messaging.destination.name", "db.name"} {
		if v := s.Attrs[k]; v != "" {
			if r := idx.Resolve(v); r != "" {
				return r
			}
			if k == "rpc.service" {
				if parts := strings.Split(v, "."); len(parts) > 0 {
					if r := idx.Resolve(parts[len(parts)-1]); r != "" {
						return r
					}
				}
			}
		}
	}
	if m := rpcServiceRE.FindStringSubmatch(s.Name); m != nil {
		name := m[1]
		if i := strings.LastIndex(name, "."); i >= 0 {
			name = name[i+1:]
		}
		if r := idx.Resolve(name); r != "" {
			return r
		}
	}
	// "HTTP POST payment-svc" / "GET http://inventory:8080/items"
	for _, w := range strings.Fields(s.Name) {
		if r := idx.Resolve(w); r != "" && r != s.Service {
			return r
		}
	}
	return ""
}

var ipRE = regexp.MustCompile(`^\d{1,3}(?:\.\d{1,3}){3}$`)

// externalPeer names a callee that reports no traces of its own (a
// database, a pooler, a third-party API) from the span's peer attributes:
// pgbouncer.bookings.svc -> pgbouncer. IP addresses name nothing. A public
// DNS name (a third-party API) is returned as "external:<host>".
func externalPeer(s *Span) string {
	var names []string
	for _, k := range []string{"url.full", "http.url", "server.address", "net.peer.name", "http.host", "db.connection_string", "peer.service"} {
		v := s.Attrs[k]
		if v == "" {
			continue
		}
		host := v
		if i := strings.Index(host, "://"); i >= 0 {
			host = host[i+3:]
		}
		if i := strings.LastIndex(host, "@"); i >= 0 {
			host = host[i+1:]
		}
		host = strings.SplitN(strings.SplitN(host, "/", 2)[0], ":", 2)[0]
		if host == "" || ipRE.MatchString(host) || host == "localhost" {
			continue
		}
		if k != "peer.service" && isExternalHost(host) {
			return "external:" + host
		}
		if k != "peer.service" {
			host = strings.SplitN(host, ".", 2)[0]
		}
		names = append(names, trimServiceSuffix(host))
	}
	if len(names) > 0 {
		return names[len(names)-1] // peer.service, when set, names it best
	}
	return ""
}

// isExternalHost: a public DNS name (a third-party API), not a cluster
// service (cart, cart.shop, cart.shop.svc.cluster.local, db.internal).
func isExternalHost(host string) bool {
	labels := strings.Split(strings.ToLower(host), ".")
	if len(labels) < 3 {
		return false
	}
	switch labels[len(labels)-1] {
	case "local", "internal", "svc", "cluster", "lan", "corp", "home", "intra", "private":
		return false
	}
	for _, l := range labels {
		if l == "svc" || l == "cluster" || l == "internal" {
			return false
		}
	}
	return true
}

// trimServiceSuffix drops endpoint suffixes operators add to service
// names: jobs-es-http -> jobs-es, orders-db-rw -> orders-db.
func trimServiceSuffix(s string) string {
	// Operator conventions first: ECK <cluster>-es-http, Strimzi
	// <cluster>-kafka-bootstrap, CloudNativePG <cluster>-rw/-ro/-r.
	for _, suf := range []string{"-es-http", "-es-transport", "-kafka-bootstrap", "-kafka-brokers", "-pooler-rw", "-pooler", "-repl",
		"-http", "-https", "-headless", "-svc", "-service", "-rw", "-ro", "-r", "-primary", "-master", "-client", "-internal", "-lb"} {
		if strings.HasSuffix(s, suf) && len(s) > len(suf)+1 {
			return strings.TrimSuffix(s, suf)
		}
	}
	return s
}

// AnalyzeTraces finds, in each failing trace, the span where the failure
// originates (an error span without failing descendants) and blames the
// service that owns the defect: the span's own service, or the callee when a
// client call failed without the callee recording a failing span
// (connection refused, timeouts, DNS).
func AnalyzeTraces(spans []Span, extraServices ...string) TraceAnalysis {
	byTrace := map[string][]*Span{}
	names := append([]string(nil), extraServices...)
	for i := range spans {
		s := &spans[i]
		byTrace[s.TraceID] = append(byTrace[s.TraceID], s)
		names = append(names, s.Service)
	}
	idx := NewServiceIndex(names...)
	an := TraceAnalysis{Calls: map[string]map[string]int{}, ErrorSpans: map[string]int{}}
	type groupKey struct{ service, sig, file string }
	groups := map[groupKey]*Finding{}
	records := map[groupKey]*Records{}
	traceSeen := map[groupKey]map[string]bool{}
	var order []groupKey

	// Traces in a fixed order (earliest first): the first trace of a group
	// gives its quote and attributes, whatever order the backend answered in.
	tids := make([]string, 0, len(byTrace))
	for tid := range byTrace {
		tids = append(tids, tid)
	}
	sort.Slice(tids, func(i, j int) bool {
		a, b := earliestStart(byTrace[tids[i]]), earliestStart(byTrace[tids[j]])
		if !a.Equal(b) {
			return a.Before(b)
		}
		return tids[i] < tids[j]
	})
	for _, tid := range tids {
		ts := byTrace[tid]
		an.Traces++
		children := map[string][]*Span{}
		byID := make(map[string]*Span, len(ts))
		for _, s := range ts {
			byID[s.SpanID] = s
			if s.ParentID != "" {
				children[s.ParentID] = append(children[s.ParentID], s)
			}
		}
		var failing bool
		var hasFailingDesc func(s *Span, depth int) bool
		hasFailingDesc = func(s *Span, depth int) bool {
			if depth > 64 {
				return false
			}
			for _, c := range children[s.SpanID] {
				if c.Error || hasFailingDesc(c, depth+1) {
					return true
				}
			}
			return false
		}
		for _, s := range ts {
			// Call graph: client span -> callee (its server child, or its peer).
			if s.Kind == "client" || s.Kind == "producer" {
				callee := ""
				for _, c := range children[s.SpanID] {
					if c.Service != s.Service {
						callee = c.Service
						break
					}
				}
				if callee == "" {
					callee = peerOf(s, idx)
				}
				if callee != "" && callee != s.Service {
					if an.Calls[s.Service] == nil {
						an.Calls[s.Service] = map[string]int{}
					}
					an.Calls[s.Service][callee]++
				}
			}
			if !s.Error {
				continue
			}
			failing = true
			an.ErrorSpans[s.Service]++
			if an.FirstError.IsZero() || s.Start.Before(an.FirstError) {
				an.FirstError = s.Start
			}
			if hasFailingDesc(s, 0) {
				continue // the failure comes from below
			}
			f := originFinding(s, byID[s.ParentID], children[s.SpanID], idx)
			k := groupKey{f.Service, f.Signature + "|" + f.Exception, f.File}
			g, ok := groups[k]
			if !ok {
				fc := f
				g = &fc
				g.Count = 0
				groups[k] = g
				records[k] = &Records{}
				traceSeen[k] = map[string]bool{}
				order = append(order, k)
			}
			records[k].Add(spanRecordText(s))
			if !traceSeen[k][tid] {
				traceSeen[k][tid] = true
				g.Count++
			}
			if f.Time.Before(g.Time) {
				g.Time = f.Time
			}
			if f.Time.After(g.LastTime) {
				g.LastTime = f.Time
			}
		}
		if failing {
			an.ErrorTraces++
			if f, ok := hungCall(ts); ok {
				k := groupKey{f.Service, f.Signature + "|" + f.Attrs["peer"], ""}
				if g, seen := groups[k]; seen {
					g.Count++
					g.LastTime = maxTime(g.LastTime, f.Time)
				} else {
					fc := f
					groups[k], records[k] = &fc, &Records{}
					order = append(order, k)
				}
			}
		}
	}
	for _, k := range order {
		g := *groups[k]
		if rec := records[k].Attr(); rec != "" {
			g.Attrs["records"] = rec
		}
		an.Findings = append(an.Findings, g)
	}
	sort.SliceStable(an.Findings, func(i, j int) bool { return an.Findings[i].Count > an.Findings[j].Count })
	return an
}

func earliestStart(spans []*Span) time.Time {
	var t time.Time
	for _, s := range spans {
		if t.IsZero() || s.Start.Before(t) {
			t = s.Start
		}
	}
	return t
}

func originFinding(s, parent *Span, kids []*Span, idx ServiceIndex) Finding {
	f := Finding{Kind: KindErrorSpan, Family: FamilyTraces, Service: s.Service, Time: s.Start, LastTime: s.Start,
		Attrs: map[string]string{"operation": s.Name, "trace_id": s.TraceID, "span_kind": s.Kind}}
	typ, msg, stack, hasExc := s.exception()
	if !hasExc && strings.TrimSpace(s.StatusMessage) == "" && (s.Kind == "client" || s.Kind == "producer") && parent != nil && parent.Service == s.Service {
		// An outgoing call that failed without saying why, inside a handler
		// of the same service that recorded the exception it raised: that
		// exception is what the call's failure was ("HTTP 401: token expired").
		if ptyp, pmsg, pstack, ok := parent.exception(); ok {
			typ, msg, stack, hasExc = ptyp, pmsg, pstack, true
		}
	}
	if !hasExc && strings.TrimSpace(s.StatusMessage) == "" {
		// A failing span that says nothing but its HTTP status: the status
		// is the message (a 503 at a gateway reports an unavailable upstream).
		for _, k := range []string{"http.response.status_code", "http.status_code"} {
			if code := s.Attrs[k]; len(code) == 3 && (code[0] == '5' || code == "429") {
				s.StatusMessage = httpStatusText(code)
				break
			}
		}
	}
	if rf := s.Attrs["response_flags"]; rf != "" && rf != "-" && s.StatusMessage != "" {
		// Envoy's response flags say why the proxy answered as it did
		// (UO: its circuit breaker overflowed).
		s.StatusMessage += " response_flags=" + rf
	}
	text := strings.TrimSpace(strings.Join([]string{typ, msg, stack, s.StatusMessage}, "\n"))
	if hasExc {
		f.Kind = KindException
		f.Exception = typ
	}
	if m := Best(strings.Join([]string{typ + ": " + msg, stack, s.StatusMessage}, "\n")); m != nil {
		f.Signature, f.ErrorType = m.ID, m.ErrorType
	}
	if f.Exception == "" {
		f.Exception = ExceptionType(msg + " " + s.StatusMessage)
	}
	excText := strings.TrimSpace(strings.Trim(strings.TrimSpace(typ+": "+msg), ":"))
	if typ != "" && msg != "" && strings.HasPrefix(msg, typ) {
		excText = msg // "TypeError: Cannot read..." already names the type
	}
	f.Quote = Quote(firstNonEmpty(excText, s.StatusMessage, firstLine(stack), s.Name+" failed"), 200)
	f.Frames = ParseStack(stack)
	if len(f.Frames) == 0 {
		// Some runtimes put the location in the message ("panicked at src/x.rs:50:9").
		f.Frames = ParseStack(msg)
	}
	if top, ok := TopAppFrame(f.Frames); ok {
		f.File, f.Line, f.Function = top.File, top.Line, top.Function
	}
	if file, line, fn := s.codeLocation(); file != "" && f.File == "" {
		f.File, f.Line, f.Function = file, line, fn
		f.Frames = append([]Frame{{File: file, Line: line, Function: fn}}, f.Frames...)
	}
	f.Frames = raceSiteFirst(&f, f.Frames)
	if len(f.Frames) > 12 {
		f.Frames = f.Frames[:12]
	}
	// A call that failed without a failing callee span: the callee is the
	// suspect when the error says so (refused, timed out, bad certificate,
	// out of connections), or when the client recorded no error of its own.
	sig := SignatureByID(f.Signature)
	isCall := s.Kind == "client" || s.Kind == "producer"
	if isCall || sig.BlamesCallee() {
		callee := ""
		for _, c := range kids {
			if c.Service != s.Service {
				callee = c.Service
			}
		}
		if callee == "" {
			callee = peerOf(s, idx)
		}
		if ext := externalPeer(s); strings.HasPrefix(ext, "external:") && len(kids) == 0 {
			callee = ext
		} else if callee == "" && sig.BlamesCallee() {
			callee = ext
		}
		blame := !sig.BlamesCaller() && (sig.BlamesCallee() || (isCall && (sig == nil || sig.Role != RoleCause || f.File == "")))
		if strings.HasPrefix(callee, "external:") {
			// A third-party API failing is our service's dependency problem:
			// the fix (failover, fallback, timeouts) is on our side.
			f.Attrs["dependency"] = strings.TrimPrefix(callee, "external:")
			if f.ErrorType == ErrTimeout || f.ErrorType == ErrNetwork || f.ErrorType == ErrUnknown || f.ErrorType == "" {
				f.ErrorType = ErrDependency
			}
			callee = ""
		}
		if callee != "" && callee != s.Service && blame {
			f.Peer = s.Service
			f.Service = callee
			f.Attrs["blame"] = "callee"
			// The frames say where the caller noticed the failure, not
			// where the callee's defect is: never anchor the callee on them.
			f.File, f.Line, f.Function, f.Frames = "", 0, "", nil
		}
	}
	if f.ErrorType == "" && text != "" {
		f.ErrorType = ErrUnknown
	}
	return f
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// spanRecordText renders a failing span's application attributes and
// exception message for record counting.
func spanRecordText(s *Span) string {
	var b strings.Builder
	for k, v := range s.Attrs {
		switch {
		case strings.HasPrefix(k, "otel."), strings.HasPrefix(k, "http."), strings.HasPrefix(k, "net."), strings.HasPrefix(k, "rpc."),
			strings.HasPrefix(k, "span."), strings.HasPrefix(k, "server."), strings.HasPrefix(k, "url."), k == "error", strings.HasPrefix(k, "code."):
			continue
		}
		b.WriteString(k + "=" + v + " ")
	}
	_, msg, _, _ := s.exception()
	b.WriteString(msg)
	b.WriteString(" ")
	b.WriteString(s.StatusMessage)
	return b.String()
}

func httpStatusText(code string) string {
	switch code {
	case "500":
		return "HTTP 500 Internal Server Error"
	case "502":
		return "502 Bad Gateway"
	case "503":
		return "503 Service Unavailable"
	case "504":
		return "504 Gateway Timeout"
	case "429":
		return "429 Too Many Requests"
	}
	return "HTTP " + code
}

// hungCallFloor: a call running this long is not a slow answer but one no
// timeout bounds.
const hungCallFloor = 30 * time.Second

// hungCall finds, in a trace that failed, an outgoing call that kept
// running long after the request it served had been given up on: the
// caller timed out at the top (504) while the call went on for minutes.
// Nothing bounds that call (no client timeout, no deadline from the
// request's context), so requests pile up behind a slow dependency.
func hungCall(ts []*Span) (Finding, bool) {
	var top *Span // the shortest failing span: the timeout that was hit
	for _, s := range ts {
		// A caller's timeout is at least a second; faster failures are errors.
		if s.Error && (top == nil || s.Duration < top.Duration) && s.Duration >= time.Second {
			top = s
		}
	}
	if top == nil {
		return Finding{}, false
	}
	var worst *Span
	for _, s := range ts {
		if s.Kind != "client" || s.Duration < hungCallFloor || s.Duration < 3*top.Duration {
			continue
		}
		if worst == nil || s.Duration > worst.Duration {
			worst = s
		}
	}
	if worst == nil {
		return Finding{}, false
	}
	peer := strings.TrimPrefix(externalPeer(worst), "external:")
	if peer == "" {
		peer = firstNonEmpty(worst.Attrs["server.address"], worst.Attrs["net.peer.name"], worst.Attrs["peer.service"], worst.Name)
	}
	target := firstNonEmpty(worst.Attrs["url.full"], worst.Attrs["http.url"], peer)
	q := fmt.Sprintf("call to %s took %.1f s while the caller gave up after %.1f s (%s): the call has no timeout", target, worst.Duration.Seconds(), top.Duration.Seconds(), firstNonEmpty(top.Service, "caller"))
	f := Finding{Kind: KindErrorSpan, Family: FamilyTraces, Service: worst.Service, ErrorType: ErrTimeout, Signature: "hung-call",
		Time: worst.Start, LastTime: worst.Start, Count: 1, Quote: Quote(q, 240), Peer: peer,
		Attrs: map[string]string{"peer": peer, "duration_ms": fmt.Sprint(worst.Duration.Milliseconds()), "caller_timeout_ms": fmt.Sprint(top.Duration.Milliseconds()),
			"trace_id": worst.TraceID, "operation": worst.Name, "span_kind": "client"}}
	return f, true
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
