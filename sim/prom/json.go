package prom

import (
	jsoniter "github.com/json-iterator/go"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/util/jsonutil"
)

// The bytes of Prometheus' HTTP API: web/api/v1's Response and QueryData
// encoded the way its JSONCodec encodes them (jsoniter in standard-library
// mode, with the codec's encoders for vectors, matrices and labels). That
// package cannot be imported here: it pulls in remote write, scraping and
// the cloud SDKs.

var apiJSON = jsoniter.ConfigCompatibleWithStandardLibrary

// response is web/api/v1.Response.
type response struct {
	Status    string   `json:"status"`
	Data      any      `json:"data,omitempty"`
	ErrorType string   `json:"errorType,omitempty"`
	Error     string   `json:"error,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
	Infos     []string `json:"infos,omitempty"`
}

// queryData is web/api/v1.QueryData without the optional stats and cost;
// the result is encoded before the query is closed and its memory reused.
type queryData struct {
	ResultType parser.ValueType    `json:"resultType"`
	Result     jsoniter.RawMessage `json:"result"`
}

// marshalResult encodes an engine result as web/api/v1/json_codec.go does.
func marshalResult(val parser.Value) ([]byte, error) {
	switch v := val.(type) {
	case promql.Vector:
		return marshalArray(v, writeSample)
	case promql.Matrix:
		return marshalArray(v, writeSeries)
	}
	// The codec has no encoder of its own for scalars and strings: their MarshalJSON is used.
	return apiJSON.Marshal(val)
}

// marshalArray encodes a JSON array with one writer per element.
func marshalArray[T any](elems []T, write func(*jsoniter.Stream, T)) ([]byte, error) {
	stream := apiJSON.BorrowStream(nil)
	defer apiJSON.ReturnStream(stream)
	stream.WriteArrayStart()
	for i, e := range elems {
		if i > 0 {
			stream.WriteMore()
		}
		write(stream, e)
	}
	stream.WriteArrayEnd()
	if stream.Error != nil {
		return nil, stream.Error
	}
	return append([]byte(nil), stream.Buffer()...), nil
}

func writeSeries(stream *jsoniter.Stream, s promql.Series) {
	stream.WriteObjectStart()
	stream.WriteObjectField(`metric`)
	writeLabels(stream, s.Metric)
	writePoints(stream, `values`, len(s.Floats), func(i int) {
		jsonutil.MarshalTimestamp(s.Floats[i].T, stream)
		stream.WriteMore()
		jsonutil.MarshalFloat(s.Floats[i].F, stream)
	})
	writePoints(stream, `histograms`, len(s.Histograms), func(i int) {
		jsonutil.MarshalTimestamp(s.Histograms[i].T, stream)
		stream.WriteMore()
		jsonutil.MarshalHistogram(s.Histograms[i].H, stream)
	})
	stream.WriteObjectEnd()
}

// writePoints writes a series' field of n points, or nothing when n is 0.
func writePoints(stream *jsoniter.Stream, field string, n int, point func(i int)) {
	for i := range n {
		stream.WriteMore()
		if i == 0 {
			stream.WriteObjectField(field)
			stream.WriteArrayStart()
		}
		stream.WriteArrayStart()
		point(i)
		stream.WriteArrayEnd()
	}
	if n > 0 {
		stream.WriteArrayEnd()
	}
}

func writeSample(stream *jsoniter.Stream, s promql.Sample) {
	stream.WriteObjectStart()
	stream.WriteObjectField(`metric`)
	writeLabels(stream, s.Metric)
	stream.WriteMore()
	if s.H == nil {
		stream.WriteObjectField(`value`)
	} else {
		stream.WriteObjectField(`histogram`)
	}
	stream.WriteArrayStart()
	jsonutil.MarshalTimestamp(s.T, stream)
	stream.WriteMore()
	if s.H == nil {
		jsonutil.MarshalFloat(s.F, stream)
	} else {
		jsonutil.MarshalHistogram(s.H, stream)
	}
	stream.WriteArrayEnd()
	stream.WriteObjectEnd()
}

func writeLabels(stream *jsoniter.Stream, lset labels.Labels) {
	stream.WriteObjectStart()
	i := 0
	lset.Range(func(l labels.Label) {
		if i > 0 {
			stream.WriteMore()
		}
		i++
		stream.WriteString(l.Name)
		stream.WriteRaw(`:`)
		stream.WriteString(l.Value)
	})
	stream.WriteObjectEnd()
}

// labelsJSON encodes label sets (the series endpoint) the same way.
type labelsJSON []labels.Labels

// MarshalJSON implements json.Marshaler.
func (ls labelsJSON) MarshalJSON() ([]byte, error) { return marshalArray(ls, writeLabels) }
