package redact

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// corpusLines are the log lines of the tuning scenarios (about 8,400 lines,
// 2.7 MB): what the engine masks on a busy investigation.
func corpusLines(b *testing.B) ([]string, int) {
	b.Helper()
	files, err := filepath.Glob("../testdata/scenarios/*/logs.json")
	if err != nil || len(files) == 0 {
		b.Skip("no scenario logs")
	}
	var lines []string
	size := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		var body struct {
			Streams []struct {
				Values [][2]string `json:"values"`
			} `json:"streams"`
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			b.Fatalf("%s: %v", f, err)
		}
		for _, s := range body.Streams {
			for _, v := range s.Values {
				lines = append(lines, v[1])
				size += len(v[1])
			}
		}
	}
	return lines, size
}

// BenchmarkRedactLogLines masks every log line of the corpus once per
// iteration: ns/op is one pass over the corpus, MB/s the throughput,
// ns/line the cost of one line. The dense run masks the same lines with a
// credential planted in one line of ten.
func BenchmarkRedactLogLines(b *testing.B) {
	lines, size := corpusLines(b)
	r := New(Options{})
	r.Register("s3cr3t-registered-value")
	dense := make([]string, len(lines))
	planted := []string{"password=correcthorsebattery", "Authorization: Bearer " + jwt, "key " + googleKey, "DD_API_KEY=" + datadogKey,
		"postgres://orders:p4ssw0rd@db:5432/orders", `{"client_secret":"SUPERSECRETVALUE99"}`}
	for i, l := range lines {
		dense[i] = l
		if i%10 == 0 {
			dense[i] = l + " " + planted[i/10%len(planted)]
		}
	}
	for _, c := range []struct {
		name  string
		lines []string
	}{{"scenario-logs", lines}, {"one-in-ten-with-secret", dense}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for _, l := range c.lines {
					_ = r.String(l)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(c.lines)), "ns/line")
		})
	}
}
