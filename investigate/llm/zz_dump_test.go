package llm_test

import (
	"encoding/json"
	"os"
	"testing"

	oaisim "github.com/autoheal/autoheal/sim/openai"
)

func TestZZDump(t *testing.T) {
	name := os.Getenv("DUMP")
	if name == "" {
		t.Skip()
	}
	env := startSim(t, oaisim.Options{Model: oaisim.Investigator{}})
	p := newPlanner(t, env)
	res := runScenario(t, example(name), p)
	for i, r := range env.srv.Requests() {
		os.WriteFile("/tmp/req"+string(rune('0'+i))+".json", r.Body, 0o644)
	}
	b, _ := json.MarshalIndent(res, "", " ")
	os.WriteFile("/tmp/res.json", b, 0o644)
}
