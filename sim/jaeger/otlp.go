package jaeger

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/autoheal/autoheal/scenario"
)

// OTLP/JSON shapes (opentelemetry-proto JSON mapping as pdata marshals it):
// 64-bit integers are strings, enums are numbers, IDs are lowercase hex.
type tracesData struct {
	ResourceSpans []resourceSpans `json:"resourceSpans"`
}

type resourceSpans struct {
	Resource   resource     `json:"resource"`
	ScopeSpans []scopeSpans `json:"scopeSpans"`
}

type resource struct {
	Attributes []keyValue `json:"attributes,omitempty"`
}

type scopeSpans struct {
	Scope scope      `json:"scope"`
	Spans []otlpSpan `json:"spans"`
}

type scope struct {
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
}

type otlpSpan struct {
	TraceID           string     `json:"traceId"`
	SpanID            string     `json:"spanId"`
	TraceState        string     `json:"traceState,omitempty"`
	ParentSpanID      string     `json:"parentSpanId,omitempty"`
	Name              string     `json:"name"`
	Kind              int        `json:"kind,omitempty"`
	StartTimeUnixNano string     `json:"startTimeUnixNano"`
	EndTimeUnixNano   string     `json:"endTimeUnixNano"`
	Attributes        []keyValue `json:"attributes,omitempty"`
	Events            []event    `json:"events,omitempty"`
	Links             []link     `json:"links,omitempty"`
	Status            status     `json:"status"`
}

type keyValue struct {
	Key   string   `json:"key"`
	Value anyValue `json:"value"`
}

type anyValue struct {
	StringValue *string  `json:"stringValue,omitempty"`
	BoolValue   *bool    `json:"boolValue,omitempty"`
	IntValue    *string  `json:"intValue,omitempty"`
	DoubleValue *float64 `json:"doubleValue,omitempty"`
	BytesValue  *string  `json:"bytesValue,omitempty"`
}

type event struct {
	TimeUnixNano string     `json:"timeUnixNano"`
	Name         string     `json:"name,omitempty"`
	Attributes   []keyValue `json:"attributes,omitempty"`
}

type link struct {
	TraceID    string     `json:"traceId"`
	SpanID     string     `json:"spanId"`
	Attributes []keyValue `json:"attributes,omitempty"`
}

type status struct {
	Message string `json:"message,omitempty"`
	Code    int    `json:"code,omitempty"`
}

// OTLP enum values.
const (
	kindUnspecified = 0
	kindInternal    = 1
	kindServer      = 2
	kindClient      = 3
	kindProducer    = 4
	kindConsumer    = 5

	statusUnset = 0
	statusOK    = 1
	statusError = 2
)

// Jaeger tags that the OTLP translator maps onto span fields.
const (
	tagSpanKind       = "span.kind"
	tagStatusCode     = "otel.status_code"
	tagStatusDesc     = "otel.status_description"
	tagError          = "error"
	tagHTTPStatusCode = "http.status_code"
	tagHTTPStatusMsg  = "http.status_message"
	tagTraceState     = "w3c.tracestate"
	tagScopeName      = "otel.scope.name"
	tagScopeVersion   = "otel.scope.version"
	tagLibraryName    = "otel.library.name"
	tagLibraryVersion = "otel.library.version"
	fieldEvent        = "event"
	attrRefType       = "opentracing.ref_type"
)

// toOTLP converts one trace the way Jaeger's model-to-OTLP translator does:
// one ResourceSpans per process (service.name plus process tags), spans
// grouped by instrumentation scope, tags to attributes except those mapped
// to fields, logs to events, the parent reference to parentSpanId and other
// references to links.
func toOTLP(t *trace) []resourceSpans {
	var (
		order []string
		byPID = map[string]*resourceSpans{}
	)
	for i := range t.raw.Spans {
		s := &t.raw.Spans[i]
		rs, ok := byPID[s.ProcessID]
		if !ok {
			rs = &resourceSpans{Resource: resource{Attributes: resourceAttributes(t.raw.Processes[s.ProcessID])}}
			byPID[s.ProcessID] = rs
			order = append(order, s.ProcessID)
		}
		sc, span := convertSpan(t, s)
		idx := -1
		for j := range rs.ScopeSpans {
			if rs.ScopeSpans[j].Scope == sc {
				idx = j
				break
			}
		}
		if idx < 0 {
			rs.ScopeSpans = append(rs.ScopeSpans, scopeSpans{Scope: sc})
			idx = len(rs.ScopeSpans) - 1
		}
		rs.ScopeSpans[idx].Spans = append(rs.ScopeSpans[idx].Spans, span)
	}
	out := make([]resourceSpans, 0, len(order))
	for _, pid := range order {
		out = append(out, *byPID[pid])
	}
	return out
}

// resourceAttributes are a process's service name and tags as OTLP
// resource attributes.
func resourceAttributes(proc scenario.Process) []keyValue {
	attrs := []keyValue{stringKV("service.name", proc.ServiceName)}
	for _, kv := range proc.Tags {
		attrs = append(attrs, toKeyValue(kv))
	}
	return attrs
}

func convertSpan(t *trace, s *scenario.Span) (scope, otlpSpan) {
	out := otlpSpan{
		TraceID:           t.id.hex32(),
		SpanID:            spanIDHex(s.SpanID),
		Name:              s.OperationName,
		StartTimeUnixNano: strconv.FormatInt(s.StartTime*1000, 10),
		EndTimeUnixNano:   strconv.FormatInt((s.StartTime+s.Duration)*1000, 10),
	}
	var sc scope
	tags := map[string]scenario.KeyValue{}
	for _, kv := range s.Tags {
		if _, dup := tags[kv.Key]; !dup {
			tags[kv.Key] = kv
		}
	}
	mapped := map[string]bool{}
	if kv, ok := tags[tagSpanKind]; ok {
		out.Kind = kindFromJaeger(valueString(kv))
		mapped[tagSpanKind] = true
	}
	if kv, ok := tags[tagTraceState]; ok {
		out.TraceState = valueString(kv)
		mapped[tagTraceState] = true
	}
	for _, names := range [][3]string{{tagScopeName, tagLibraryName, "name"}, {tagScopeVersion, tagLibraryVersion, "version"}} {
		for _, n := range names[:2] {
			if kv, ok := tags[n]; ok {
				if names[2] == "name" && sc.Name == "" {
					sc.Name = valueString(kv)
				} else if names[2] == "version" && sc.Version == "" {
					sc.Version = valueString(kv)
				}
				mapped[n] = true
			}
		}
	}
	out.Status = spanStatus(tags, mapped)
	for _, kv := range s.Tags {
		if !mapped[kv.Key] {
			out.Attributes = append(out.Attributes, toKeyValue(kv))
		}
	}
	for _, l := range s.Logs {
		ev := event{TimeUnixNano: strconv.FormatInt(l.Timestamp*1000, 10)}
		for _, f := range l.Fields {
			if f.Key == fieldEvent && ev.Name == "" {
				ev.Name = valueString(f)
				continue
			}
			ev.Attributes = append(ev.Attributes, toKeyValue(f))
		}
		out.Events = append(out.Events, ev)
	}
	parent := parentRef(s)
	for i, ref := range s.References {
		if i == parent {
			out.ParentSpanID = spanIDHex(ref.SpanID)
			continue
		}
		tid, err := parseTraceID(ref.TraceID)
		if err != nil {
			tid = t.id
		}
		out.Links = append(out.Links, link{
			TraceID:    tid.hex32(),
			SpanID:     spanIDHex(ref.SpanID),
			Attributes: []keyValue{stringKV(attrRefType, strings.ToLower(ref.RefType))},
		})
	}
	return sc, out
}

// parentRef picks the reference Jaeger's Span.ParentSpanID uses: the first
// CHILD_OF in the same trace, else the first FOLLOWS_FROM in the same trace.
func parentRef(s *scenario.Span) int {
	same := func(r scenario.Reference) bool { return r.TraceID == "" || r.TraceID == s.TraceID }
	for i, r := range s.References {
		if r.RefType == "CHILD_OF" && same(r) {
			return i
		}
	}
	for i, r := range s.References {
		if r.RefType == "FOLLOWS_FROM" && same(r) {
			return i
		}
	}
	return -1
}

// spanStatus follows the translator for what an OpenTelemetry SDK records:
// a bool error=true tag wins, then otel.status_code. The scenarios' spans
// were exported by SDKs that set the status explicitly, so an HTTP status
// code alone leaves it unset (the translator's HTTP fallback is for
// Jaeger-native clients), and both APIs agree on which spans failed.
func spanStatus(tags map[string]scenario.KeyValue, mapped map[string]bool) status {
	var (
		st     status
		exists bool
	)
	desc := func() string {
		if kv, ok := tags[tagStatusDesc]; ok {
			mapped[tagStatusDesc] = true
			return valueString(kv)
		}
		return ""
	}
	if kv, ok := tags[tagError]; ok {
		if b, isBool := kv.Value.(bool); isBool && b {
			st.Code, exists = statusError, true
			mapped[tagError] = true
			if d := desc(); d != "" {
				st.Message = d
			} else if m, ok := tags[tagHTTPStatusMsg]; ok {
				st.Message = valueString(m)
			}
		}
	}
	if kv, ok := tags[tagStatusCode]; ok {
		if !exists {
			switch strings.ToUpper(valueString(kv)) {
			case "OK":
				st.Code = statusOK
			case "ERROR":
				st.Code = statusError
			}
			st.Message = desc()
		}
		mapped[tagStatusCode] = true
	}
	return st
}

func kindFromJaeger(k string) int {
	switch k {
	case "client":
		return kindClient
	case "server":
		return kindServer
	case "producer":
		return kindProducer
	case "consumer":
		return kindConsumer
	case "internal":
		return kindInternal
	default:
		return kindUnspecified
	}
}

// asString renders a value as pcommon.Value.AsString does: the memory
// store compares attributes by it.
func (v anyValue) asString() string {
	switch {
	case v.StringValue != nil:
		return *v.StringValue
	case v.BoolValue != nil:
		return strconv.FormatBool(*v.BoolValue)
	case v.IntValue != nil:
		return *v.IntValue
	case v.DoubleValue != nil:
		b, err := json.Marshal(*v.DoubleValue) // ES6 number formatting, as pcommon
		if err != nil {
			return "json: unsupported value: " + strconv.FormatFloat(*v.DoubleValue, 'g', -1, 64)
		}
		return string(b)
	case v.BytesValue != nil:
		return *v.BytesValue
	}
	return ""
}

// TraceToOTLP renders one scenario trace as the OTLP/JSON body of an
// export (POST /v1/traces): what an application instrumented with
// OpenTelemetry would have sent to Jaeger. The real-Jaeger tests load
// scenarios with it; the simulator answers from the same form.
func TraceToOTLP(in scenario.Trace) ([]byte, error) {
	raw := normalizeTrace(in)
	id, err := parseTraceID(raw.TraceID)
	if err != nil {
		return nil, fmt.Errorf("invalid traceID %q: %w", raw.TraceID, err)
	}
	return json.Marshal(tracesData{ResourceSpans: toOTLP(&trace{id: id, raw: raw})})
}

func stringKV(k, v string) keyValue { return keyValue{Key: k, Value: anyValue{StringValue: &v}} }

// toKeyValue maps a Jaeger tag onto an OTLP attribute by its declared type.
func toKeyValue(kv scenario.KeyValue) keyValue {
	out := keyValue{Key: kv.Key}
	switch kv.Type {
	case "bool":
		if b, ok := kv.Value.(bool); ok {
			out.Value.BoolValue = &b
			return out
		}
	case "int64":
		if f, ok := kv.Value.(float64); ok {
			s := strconv.FormatInt(int64(f), 10)
			out.Value.IntValue = &s
			return out
		}
		if n, ok := kv.Value.(json.Number); ok {
			s := n.String()
			out.Value.IntValue = &s
			return out
		}
	case "float64":
		if f, ok := kv.Value.(float64); ok {
			out.Value.DoubleValue = &f
			return out
		}
	case "binary":
		// The v1 JSON model carries binary values base64-encoded already.
		if s, ok := kv.Value.(string); ok {
			if _, err := base64.StdEncoding.DecodeString(s); err == nil {
				out.Value.BytesValue = &s
				return out
			}
		}
	}
	s := valueString(kv)
	out.Value.StringValue = &s
	return out
}

// spanIDHex pads a span ID to the 16 hex digits of OTLP JSON.
func spanIDHex(id string) string {
	if n, err := strconv.ParseUint(id, 16, 64); err == nil {
		return fmt.Sprintf("%016x", n)
	}
	return strings.ToLower(id)
}
