package capture

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/autoheal/autoheal/investigate/jaeger"
	"github.com/autoheal/autoheal/investigate/tap"
	"github.com/autoheal/autoheal/scenario"
)

// traces gathers every trace Jaeger returned (searches and single-trace
// reads, v1 JSON or api_v3 OTLP) into the v1 form of traces.json, each
// trace once with the union of its spans.
func traces(answers []tap.HTTP) ([]scenario.Trace, []string) {
	var (
		order []string
		byID  = map[string]*scenario.Trace{}
		notes []string
	)
	add := func(t scenario.Trace) {
		id := strings.ToLower(strings.TrimLeft(t.TraceID, "0"))
		if have, ok := byID[id]; ok {
			mergeTrace(have, t)
			return
		}
		byID[id] = &t
		order = append(order, id)
	}
	bad := 0
	for _, a := range answers {
		p := a.URL.Path
		switch {
		case strings.Contains(p, "/api/v3/traces"):
			var body otlpBody
			if err := json.Unmarshal(a.Body, &body); err != nil {
				bad++
				continue
			}
			for _, t := range fromOTLP(body) {
				add(t)
			}
		case strings.Contains(p, "/api/traces"):
			var body scenario.Traces
			if err := json.Unmarshal(a.Body, &body); err != nil {
				bad++
				continue
			}
			for _, t := range body.Data {
				add(t)
			}
		}
	}
	if bad > 0 {
		notes = append(notes, fmt.Sprintf("%d Jaeger answers could not be read as traces and were left out", bad))
	}
	out := make([]scenario.Trace, 0, len(order))
	for _, id := range order {
		out = append(out, *byID[id])
	}
	return out, notes
}

// mergeTrace adds the spans of b that a lacks, with their processes.
func mergeTrace(a *scenario.Trace, b scenario.Trace) {
	have := map[string]bool{}
	for _, s := range a.Spans {
		have[s.SpanID] = true
	}
	if a.Processes == nil {
		a.Processes = map[string]scenario.Process{}
	}
	for _, s := range b.Spans {
		if have[s.SpanID] {
			continue
		}
		have[s.SpanID] = true
		proc := b.Processes[s.ProcessID]
		pid := s.ProcessID
		if cur, ok := a.Processes[pid]; ok && cur.ServiceName != proc.ServiceName {
			pid = fmt.Sprintf("%s-%d", s.ProcessID, len(a.Processes)+1)
		}
		a.Processes[pid] = proc
		s.ProcessID = pid
		a.Spans = append(a.Spans, s)
	}
}

// traceFailed reports whether a span of the trace is marked failed.
func traceFailed(t scenario.Trace) bool {
	for _, s := range t.Spans {
		for _, kv := range s.Tags {
			switch kv.Key {
			case "error":
				if b, ok := kv.Value.(bool); ok && b || fmt.Sprint(kv.Value) == "true" {
					return true
				}
			case "otel.status_code":
				if strings.EqualFold(fmt.Sprint(kv.Value), "ERROR") {
					return true
				}
			}
		}
	}
	return false
}

// traceStart is the earliest span start (µs).
func traceStart(t scenario.Trace) int64 {
	var first int64
	for _, s := range t.Spans {
		if first == 0 || s.StartTime < first {
			first = s.StartTime
		}
	}
	return first
}

// byPriority orders traces for the size cap: failing traces first, then
// the rest, newest first within each.
func tracesByPriority(ts []scenario.Trace) []scenario.Trace {
	out := append([]scenario.Trace(nil), ts...)
	sort.SliceStable(out, func(i, j int) bool {
		fi, fj := traceFailed(out[i]), traceFailed(out[j])
		if fi != fj {
			return fi
		}
		return traceStart(out[i]) > traceStart(out[j])
	})
	return out
}

// OTLP/JSON as the api_v3 gateway answers it.
type otlpBody struct {
	Result struct {
		ResourceSpans []struct {
			Resource struct {
				Attributes []otlpKV `json:"attributes"`
			} `json:"resource"`
			ScopeSpans []struct {
				Scope struct {
					Name    string `json:"name"`
					Version string `json:"version"`
				} `json:"scope"`
				Spans []otlpSpan `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	} `json:"result"`
}

type otlpSpan struct {
	TraceID           string          `json:"traceId"`
	SpanID            string          `json:"spanId"`
	ParentSpanID      string          `json:"parentSpanId"`
	Name              string          `json:"name"`
	Kind              json.RawMessage `json:"kind"`
	StartTimeUnixNano string          `json:"startTimeUnixNano"`
	EndTimeUnixNano   string          `json:"endTimeUnixNano"`
	Attributes        []otlpKV        `json:"attributes"`
	Events            []struct {
		TimeUnixNano string   `json:"timeUnixNano"`
		Name         string   `json:"name"`
		Attributes   []otlpKV `json:"attributes"`
	} `json:"events"`
	Links []struct {
		TraceID string `json:"traceId"`
		SpanID  string `json:"spanId"`
	} `json:"links"`
	Status struct {
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	} `json:"status"`
}

type otlpKV struct {
	Key   string `json:"key"`
	Value struct {
		StringValue *string      `json:"stringValue"`
		BoolValue   *bool        `json:"boolValue"`
		IntValue    *json.Number `json:"intValue"`
		DoubleValue *float64     `json:"doubleValue"`
		ArrayValue  *struct {
			Values []json.RawMessage `json:"values"`
		} `json:"arrayValue"`
	} `json:"value"`
}

// jaegerKV turns an OTLP attribute into a Jaeger tag, keeping its type.
func (kv otlpKV) jaegerKV() scenario.KeyValue {
	v := kv.Value
	switch {
	case v.BoolValue != nil:
		return scenario.KeyValue{Key: kv.Key, Type: "bool", Value: *v.BoolValue}
	case v.IntValue != nil:
		n, err := v.IntValue.Int64()
		if err == nil {
			return scenario.KeyValue{Key: kv.Key, Type: "int64", Value: n}
		}
		return scenario.KeyValue{Key: kv.Key, Type: "string", Value: v.IntValue.String()}
	case v.DoubleValue != nil:
		return scenario.KeyValue{Key: kv.Key, Type: "float64", Value: *v.DoubleValue}
	case v.StringValue != nil:
		return scenario.KeyValue{Key: kv.Key, Type: "string", Value: *v.StringValue}
	case v.ArrayValue != nil:
		b, _ := json.Marshal(v.ArrayValue.Values)
		return scenario.KeyValue{Key: kv.Key, Type: "string", Value: string(b)}
	}
	return scenario.KeyValue{Key: kv.Key, Type: "string", Value: ""}
}

// otlpEnum reads an enum given as a number or as its name.
func otlpEnum(raw json.RawMessage, names map[string]int) int {
	var n int
	if json.Unmarshal(raw, &n) == nil {
		return n
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return names[s]
	}
	return 0
}

var (
	otlpKindNames   = map[string]int{"SPAN_KIND_INTERNAL": 1, "SPAN_KIND_SERVER": 2, "SPAN_KIND_CLIENT": 3, "SPAN_KIND_PRODUCER": 4, "SPAN_KIND_CONSUMER": 5}
	otlpStatusNames = map[string]int{"STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2}
	jaegerKinds     = map[int]string{1: "internal", 2: "server", 3: "client", 4: "producer", 5: "consumer"}
)

func micros(nanos string) int64 {
	n, _ := strconv.ParseInt(nanos, 10, 64)
	return n / 1000
}

// fromOTLP converts api_v3 traces to Jaeger's v1 JSON model, as Jaeger's
// OTLP-to-model translator does: the resource becomes the process, kind
// and status become span.kind, otel.status_code (and error=true) tags,
// events become logs with an event field, the parent becomes a CHILD_OF
// reference and links FOLLOWS_FROM references.
func fromOTLP(body otlpBody) []scenario.Trace {
	var (
		order []string
		byID  = map[string]*scenario.Trace{}
	)
	for _, rs := range body.Result.ResourceSpans {
		proc := scenario.Process{}
		for _, kv := range rs.Resource.Attributes {
			if kv.Key == "service.name" && kv.Value.StringValue != nil {
				proc.ServiceName = *kv.Value.StringValue
				continue
			}
			proc.Tags = append(proc.Tags, kv.jaegerKV())
		}
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				tid := jaeger.OTLPID(s.TraceID)
				t, ok := byID[tid]
				if !ok {
					t = &scenario.Trace{TraceID: tid, Processes: map[string]scenario.Process{}}
					byID[tid] = t
					order = append(order, tid)
				}
				pid := ""
				for k, p := range t.Processes {
					if p.ServiceName == proc.ServiceName && len(p.Tags) == len(proc.Tags) {
						pid = k
					}
				}
				if pid == "" {
					pid = fmt.Sprintf("p%d", len(t.Processes)+1)
					t.Processes[pid] = proc
				}
				start := micros(s.StartTimeUnixNano)
				sp := scenario.Span{TraceID: tid, SpanID: jaeger.OTLPID(s.SpanID), OperationName: s.Name, StartTime: start,
					Duration: micros(s.EndTimeUnixNano) - start, ProcessID: pid}
				if s.ParentSpanID != "" {
					sp.References = append(sp.References, scenario.Reference{RefType: "CHILD_OF", TraceID: tid, SpanID: jaeger.OTLPID(s.ParentSpanID)})
				}
				for _, l := range s.Links {
					sp.References = append(sp.References, scenario.Reference{RefType: "FOLLOWS_FROM", TraceID: jaeger.OTLPID(l.TraceID), SpanID: jaeger.OTLPID(l.SpanID)})
				}
				if k := jaegerKinds[otlpEnum(s.Kind, otlpKindNames)]; k != "" {
					sp.Tags = append(sp.Tags, scenario.KeyValue{Key: "span.kind", Type: "string", Value: k})
				}
				if ss.Scope.Name != "" {
					sp.Tags = append(sp.Tags, scenario.KeyValue{Key: "otel.scope.name", Type: "string", Value: ss.Scope.Name})
				}
				if ss.Scope.Version != "" {
					sp.Tags = append(sp.Tags, scenario.KeyValue{Key: "otel.scope.version", Type: "string", Value: ss.Scope.Version})
				}
				switch otlpEnum(s.Status.Code, otlpStatusNames) {
				case 1:
					sp.Tags = append(sp.Tags, scenario.KeyValue{Key: "otel.status_code", Type: "string", Value: "OK"})
				case 2:
					sp.Tags = append(sp.Tags, scenario.KeyValue{Key: "otel.status_code", Type: "string", Value: "ERROR"},
						scenario.KeyValue{Key: "error", Type: "bool", Value: true})
				}
				if s.Status.Message != "" {
					sp.Tags = append(sp.Tags, scenario.KeyValue{Key: "otel.status_description", Type: "string", Value: s.Status.Message})
				}
				for _, kv := range s.Attributes {
					sp.Tags = append(sp.Tags, kv.jaegerKV())
				}
				for _, e := range s.Events {
					l := scenario.SpanLog{Timestamp: micros(e.TimeUnixNano)}
					if e.Name != "" {
						l.Fields = append(l.Fields, scenario.KeyValue{Key: "event", Type: "string", Value: e.Name})
					}
					for _, kv := range e.Attributes {
						l.Fields = append(l.Fields, kv.jaegerKV())
					}
					sp.Logs = append(sp.Logs, l)
				}
				t.Spans = append(t.Spans, sp)
			}
		}
	}
	out := make([]scenario.Trace, 0, len(order))
	for _, id := range order {
		out = append(out, *byID[id])
	}
	return out
}
