package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autoheal/autoheal/scenario"
)

// TestCaptureFidelityOverSets captures every scenario of the sets named in
// CAPTURE_FIDELITY (directories separated by spaces, e.g.
// "testdata/scenarios testdata/holdout"), each investigated live against
// its simulators and kept as an approved Slack job, and checks that every
// capture replays to the live root cause. It takes minutes, so it runs on
// demand: CAPTURE_FIDELITY="…" ./scripts/with-redis.sh go test -run
// TestCaptureFidelityOverSets ./cmd/bot/
func TestCaptureFidelityOverSets(t *testing.T) {
	sets := strings.Fields(os.Getenv("CAPTURE_FIDELITY"))
	if len(sets) == 0 {
		t.Skip("on demand: set CAPTURE_FIDELITY to scenario directories (relative to the repository)")
	}
	for i, s := range sets {
		sets[i] = filepath.Join("../..", s)
	}
	dirs, err := scenario.Discover(sets...)
	if err != nil {
		t.Fatal(err)
	}
	same := 0
	for _, d := range dirs {
		t.Run(filepath.Base(d), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			_, jobID, _, live := liveIncident(t, ctx, d, "approved", nil)
			out := filepath.Join(t.TempDir(), "c")
			if _, stderr, err := runCaptureArgs(t, ctx, jobID, "--out", out, "--no-verify"); err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			if ok, diff := sameRootCause(live.RootCause, replayRootCause(t, ctx, out)); !ok {
				t.Errorf("the capture replays to another root cause: %s", diff)
				return
			}
			same++
		})
	}
	t.Logf("%d of %d captures replay to the live root cause", same, len(dirs))
}
