package jaeger

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/autoheal/autoheal/investigate"
)

// otlpResponse is the api_v3 gateway body: {"result": TracesData}.
type otlpResponse struct {
	Result struct {
		ResourceSpans []struct {
			Resource struct {
				Attributes []otlpKV `json:"attributes"`
			} `json:"resource"`
			ScopeSpans []struct {
				Spans []otlpSpan `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	} `json:"result"`
}

type otlpSpan struct {
	TraceID           string   `json:"traceId"`
	SpanID            string   `json:"spanId"`
	ParentSpanID      string   `json:"parentSpanId"`
	Name              string   `json:"name"`
	Kind              otlpEnum `json:"kind"`
	StartTimeUnixNano string   `json:"startTimeUnixNano"`
	EndTimeUnixNano   string   `json:"endTimeUnixNano"`
	Attributes        []otlpKV `json:"attributes"`
	Events            []struct {
		TimeUnixNano string   `json:"timeUnixNano"`
		Name         string   `json:"name"`
		Attributes   []otlpKV `json:"attributes"`
	} `json:"events"`
	Status struct {
		Code    otlpEnum `json:"code"`
		Message string   `json:"message"`
	} `json:"status"`
}

// otlpEnum is an OTLP enum as JSON carries it: a number (OTLP/JSON, pdata)
// or the enum's name (the protobuf JSON mapping some gateways use).
type otlpEnum string

func (e *otlpEnum) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*e = otlpEnum(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("enum: want a number or a name, got %s", b)
	}
	*e = otlpEnum(n.String())
	return nil
}

// StatusIsError reads a span status code in any of its spellings: 2,
// STATUS_CODE_ERROR (OTLP) or ERROR (the otel.status_code tag).
func StatusIsError(code string) bool {
	switch strings.ToUpper(strings.TrimSpace(code)) {
	case "2", "STATUS_CODE_ERROR", "ERROR":
		return true
	}
	return false
}

type otlpKV struct {
	Key   string    `json:"key"`
	Value otlpValue `json:"value"`
}

type otlpValue struct {
	StringValue *string      `json:"stringValue"`
	BoolValue   *bool        `json:"boolValue"`
	IntValue    *json.Number `json:"intValue"`
	DoubleValue *float64     `json:"doubleValue"`
	ArrayValue  *struct {
		Values []otlpValue `json:"values"`
	} `json:"arrayValue"`
}

func (v otlpValue) String() string {
	switch {
	case v.StringValue != nil:
		return *v.StringValue
	case v.BoolValue != nil:
		return strconv.FormatBool(*v.BoolValue)
	case v.IntValue != nil:
		return v.IntValue.String()
	case v.DoubleValue != nil:
		return strconv.FormatFloat(*v.DoubleValue, 'g', -1, 64)
	case v.ArrayValue != nil:
		parts := make([]string, len(v.ArrayValue.Values))
		for i, x := range v.ArrayValue.Values {
			parts[i] = x.String()
		}
		return strings.Join(parts, ",")
	}
	return ""
}

func otlpMap(kvs []otlpKV) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv.Value.String()
	}
	return m
}

// OTLPID reads a trace or span id as lower-case hex: it accepts the hex ids
// of OTLP/JSON and the base64 ids of the protobuf JSON mapping (bot capture
// reads api_v3 answers with it too).
func OTLPID(s string) string {
	if s == "" {
		return ""
	}
	if _, err := hex.DecodeString(s); err == nil && (len(s) == 16 || len(s) == 32) {
		return strings.ToLower(s)
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil && (len(b) == 8 || len(b) == 16) {
		return hex.EncodeToString(b)
	}
	return strings.ToLower(s)
}

func nanos(s string) time.Time {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

var otlpKinds = map[string]string{"1": "internal", "2": "server", "3": "client", "4": "producer", "5": "consumer",
	"SPAN_KIND_INTERNAL": "internal", "SPAN_KIND_SERVER": "server", "SPAN_KIND_CLIENT": "client",
	"SPAN_KIND_PRODUCER": "producer", "SPAN_KIND_CONSUMER": "consumer"}

func fromOTLP(body otlpResponse) []investigate.Span {
	var out []investigate.Span
	for _, rs := range body.Result.ResourceSpans {
		res := otlpMap(rs.Resource.Attributes)
		service := res["service.name"]
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				attrs := otlpMap(s.Attributes)
				start, end := nanos(s.StartTimeUnixNano), nanos(s.EndTimeUnixNano)
				sp := investigate.Span{
					TraceID: OTLPID(s.TraceID), SpanID: OTLPID(s.SpanID), ParentID: OTLPID(s.ParentSpanID),
					Service: service, Name: s.Name, Kind: otlpKinds[string(s.Kind)],
					Start: start, Duration: end.Sub(start), Attrs: attrs, StatusMessage: s.Status.Message,
				}
				for _, e := range s.Events {
					sp.Events = append(sp.Events, investigate.SpanEvent{Name: e.Name, Time: nanos(e.TimeUnixNano), Attrs: otlpMap(e.Attributes)})
				}
				sp.Error = StatusIsError(string(s.Status.Code)) || StatusIsError(attrs["otel.status_code"]) || investigate.IsErrorSpan(attrs, sp.Kind)
				out = append(out, sp)
			}
		}
	}
	return out
}

// searchV3 reads the newest traces (up to depth) of a service in the
// window through the api_v3 gateway. The gateway reads the depth from
// query.num_traces (it ignores query.search_depth and answers 500 without a
// depth) and ignores query.attributes: it cannot filter by status, so the
// caller filters.
func (c *Capability) searchV3(ctx context.Context, svc, op string, start, end time.Time, depth int) ([]investigate.Span, error) {
	q := url.Values{}
	q.Set("query.service_name", svc)
	if op != "" {
		q.Set("query.operation_name", op)
	}
	q.Set("query.start_time_min", start.UTC().Format(time.RFC3339Nano))
	q.Set("query.start_time_max", end.UTC().Format(time.RFC3339Nano))
	q.Set("query.num_traces", strconv.Itoa(depth))
	// Unadjusted traces: Jaeger v1.75 runs its adjusters (sorting, span
	// de-duplication) on the memory store's own copy of a trace, so parallel
	// searches returning the same trace race inside Jaeger and lose spans.
	// Raw traces are only read.
	q.Set("query.raw_traces", "true")
	var body otlpResponse
	if err := c.client.GetJSON(ctx, "/api/v3/traces", q, &body); err != nil {
		if investigate.KindOf(err) == investigate.ErrKindNotFound {
			return nil, nil // the gateway answers 404 when no trace matches
		}
		return nil, err
	}
	return fromOTLP(body), nil
}
