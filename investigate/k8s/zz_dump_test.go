package k8s

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/autoheal/autoheal/scenario"
	"github.com/autoheal/autoheal/sim/k8smcp"
)

func TestZZDump(t *testing.T) {
	dir := os.Getenv("DUMP_SCENARIO")
	if dir == "" {
		t.Skip()
	}
	s, err := scenario.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	url, stop, err := k8smcp.StartWith(s, k8smcp.Options{ListOutput: os.Getenv("DUMP_OUTPUT")})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c := New(Config{URL: url, Namespace: os.Getenv("DUMP_NS")})
	defer c.Close()
	res, err := c.Call(context.Background(), ToolWorkloadStatus, nil)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("SUMMARY:", res.Summary)
	for _, f := range res.Findings {
		b, _ := json.Marshal(f.Attrs)
		fmt.Printf("- %s %s [%s/%s] %s n=%d %s..%s\n    %s\n    %s\n", f.Kind, f.Service, f.Signature, f.ErrorType, fmt.Sprintf("%s:%d", f.File, f.Line), f.Count, f.Time.Format("15:04:05"), f.LastTime.Format("15:04:05"), f.Quote, b)
	}
	if os.Getenv("DUMP_DATA") != "" {
		b, _ := json.MarshalIndent(res.Data, "", "  ")
		fmt.Println(string(b))
	}
}
