package llm_test

import (
	"encoding/json"
	"fmt"
	"testing"

	oaisim "github.com/autoheal/autoheal/sim/openai"
)

func TestZZDbg(t *testing.T) {
	env := startSim(t, oaisim.Options{Model: oaisim.Replies(
		oaisim.Answer(answer("ad", "null_pointer", "code_bug", "AdService.java", 137, "HIGH", nil)))})
	p := newPlanner(t, env)
	res := runScenario(t, example("ad-npe-missing-context"), p)
	b, _ := json.MarshalIndent(res.Fix, "", " ")
	fmt.Println(string(b), res.ModeNote, res.RootCause.Function)
	for _, r := range res.Timeline {
		fmt.Println(r.Tool, r.Args, r.OK)
	}
}
