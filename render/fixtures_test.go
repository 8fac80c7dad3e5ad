package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/autoheal/autoheal/investigate"
)

var (
	t0      = time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)
	action  = ActionValue{IssueKey: "ad-npe", JobID: "1764498000000-0", Channel: "C0INCIDENT", ThreadTS: "1764497400.000900"}
	webBase = "https://github.com"
)

const adFile = "src/ad/src/main/java/oteldemo/AdService.java"

const adDiff = `--- a/src/ad/src/main/java/oteldemo/AdService.java
+++ b/src/ad/src/main/java/oteldemo/AdService.java
@@ -134,7 +134,10 @@ public final class AdService {
       List<Ad> allAds = new ArrayList<>();
-      if (req.getContextKeysCount() > 0) {
+      if (req == null || req.getContextKeysCount() == 0) {
+        allAds = getRandomAds();
+      } else {
         span.addEvent("Constructing Ads using context", attributes);
`

func receipt(seq int, fam investigate.Family, tool, summary string, ok bool, kind investigate.ErrorKind, d time.Duration) investigate.Receipt {
	r := investigate.Receipt{
		Seq: seq, Family: fam, Tool: tool, OK: ok, ErrorKind: kind, Summary: summary,
		Started: t0.Add(time.Duration(seq) * time.Second), Duration: d, Planner: "deterministic",
		Args: map[string]any{"service": "ad", "lookback": "1h"},
	}
	if !ok {
		r.Error = string(kind) + ": request failed"
	}
	return r
}

// codeBugResult is a HIGH code bug: a NullPointerException in
// AdService.java:137 with a patch and a regression test.
func codeBugResult() *investigate.HealResult {
	return &investigate.HealResult{
		Summary: "AdService.getAds dereferences a null request context when no context keys are sent",
		RootCause: investigate.RootCause{
			Description:   "getAds calls req.getContextKeysList() without checking for requests that carry no context keys; since deploy a1b2c3d such requests throw a NullPointerException.",
			Service:       "ad",
			File:          adFile,
			Line:          137,
			Function:      "oteldemo.AdService.getAds",
			ErrorType:     investigate.ErrNullPointer,
			Bucket:        investigate.BucketCodeBug,
			RawConfidence: 0.92,
			ClaimedBand:   investigate.BandHigh,
			Band:          investigate.BandHigh,
		},
		Evidence: []investigate.Finding{
			{Kind: investigate.KindException, Family: investigate.FamilyTraces, Service: "ad", File: "AdService.java", Line: 137, Exception: "java.lang.NullPointerException", Count: 42,
				Quote: "java.lang.NullPointerException: Cannot invoke \"List.size()\" because \"keys\" is null", Time: t0.Add(-20 * time.Minute), LastTime: t0.Add(-time.Minute),
				Frames: []investigate.Frame{{File: "AdService.java", Line: 137, Function: "oteldemo.AdService.getAds"}, {File: "ServerCalls.java", Line: 182, Function: "io.grpc.stub.ServerCalls$UnaryServerCallHandler.onHalfClose"}}},
			{Kind: investigate.KindLogPattern, Family: investigate.FamilyLogs, Service: "ad", Count: 38, Quote: "ERROR AdService - GetAds failed: java.lang.NullPointerException"},
			{Kind: investigate.KindErrorSpan, Family: investigate.FamilyTraces, Service: "frontend", Peer: "ad", Count: 40, Quote: "rpc error: code = Unknown desc = <nil> & failed"},
			{Kind: investigate.KindChangeCorrelation, Family: investigate.FamilyChanges, Service: "ad", Quote: "a1b2c3d Use context keys for targeted ads (09:52)"},
			{Kind: investigate.KindSourceAnchor, Family: investigate.FamilySource, Service: "ad", File: adFile, Line: 137, Quote: "for (String key : req.getContextKeysList()) {"},
			{Kind: investigate.KindMetricAnomaly, Family: investigate.FamilyMetrics, Service: "ad", Quote: "error rate 0% → 31% at 10:00"},
		},
		Fix: investigate.Fix{
			Summary: "Treat a request without context keys like an empty one and serve random ads.",
			Steps:   []string{"Guard the context-key branch in getAds", "Add a regression test for a request without context keys", "Deploy and watch the ad error rate"},
			Patch:   &investigate.Patch{File: adFile, Ref: "main", Diff: adDiff, Explanation: "Falls back to random ads when the request has no context keys."},
			RegressionTest: `@Test void getAdsWithoutContextKeys() {
  var resp = service.getAds(AdRequest.newBuilder().build());
  assertFalse(resp.getAdsList().isEmpty());
}`,
		},
		Timeline: []investigate.Receipt{
			receipt(1, investigate.FamilyTraces, "search_traces", "12 error traces in ad, 9 with exceptions", true, "", 1200*time.Millisecond),
			receipt(2, investigate.FamilyLogs, "query_logs", "38 error lines in ad", true, "", 800*time.Millisecond),
			receipt(3, investigate.FamilyMetrics, "error_rate", "error rate 0% → 31% at 10:00", true, "", 400*time.Millisecond),
			receipt(4, investigate.FamilyChanges, "recent_commits", "1 commit touching ad in the last 24h", true, "", 300*time.Millisecond),
			receipt(5, investigate.FamilySource, "read_source", "AdService.java lines 120-160", true, "", 200*time.Millisecond),
			receipt(6, investigate.FamilyK8s, "pods_list", "", false, investigate.ErrKindTimeout, 10*time.Second),
		},
		ToolsUsed:        []string{"traces", "logs", "metrics", "changes", "source"},
		ToolsUnavailable: []investigate.Unavailable{{Family: investigate.FamilyK8s, Kind: investigate.ErrKindTimeout, Reason: "pods_list timed out after 10s"}},
		ConfidenceNote:   "Error type known, file anchored and source read; traces and logs corroborate.",
		Mode:             investigate.ModeDeterministic,
		ModeNote:         "LLM not configured",
		Started:          t0,
		Wall:             8200 * time.Millisecond,
		IssueKey:         "ad-npe",
		Repo:             "acme/astronomy-shop",
		Ref:              "main",
	}
}

// oomResult is a MEDIUM infrastructure result: the cart pod is OOMKilled and
// the fix raises its memory limit.
func oomResult() *investigate.HealResult {
	return &investigate.HealResult{
		Summary: "cart is OOMKilled: memory limit 512Mi is below its working set",
		RootCause: investigate.RootCause{
			Description: "The cart container restarts with reason OOMKilled every few minutes; its working set reaches the 512Mi limit under normal load.",
			Service:     "cart", ErrorType: investigate.ErrOOM, Bucket: investigate.BucketInfrastructure,
			RawConfidence: 0.8, ClaimedBand: investigate.BandHigh, Band: investigate.BandMedium,
		},
		Evidence: []investigate.Finding{
			{Kind: investigate.KindK8sEvent, Family: investigate.FamilyK8s, Service: "cart", Count: 7, Quote: "Last State: Terminated, Reason: OOMKilled, Exit Code: 137"},
			{Kind: investigate.KindMetricAnomaly, Family: investigate.FamilyMetrics, Service: "cart", Quote: "container_memory_working_set_bytes 510Mi of 512Mi limit"},
			{Kind: investigate.KindManifest, Family: investigate.FamilyK8s, Service: "cart", File: "deploy/cart.yaml", Line: 42, Quote: "memory: 512Mi"},
		},
		Fix: investigate.Fix{
			Summary:      "Raise the cart memory limit to 1Gi.",
			Steps:        []string{"Apply the manifest change", "Watch restarts for 30 minutes"},
			ManifestEdit: &investigate.ManifestEdit{File: "deploy/cart.yaml", Line: 42, Path: "spec.template.spec.containers[cart].resources.limits.memory", OldValue: "512Mi", NewValue: "1Gi", Reason: "working set peaks at 510Mi"},
		},
		Timeline: []investigate.Receipt{
			receipt(1, investigate.FamilyK8s, "pods_list", "cart restarted 7 times (OOMKilled)", true, "", 600*time.Millisecond),
			receipt(2, investigate.FamilyMetrics, "memory_vs_limit", "working set 510Mi of 512Mi", true, "", 500*time.Millisecond),
			receipt(3, investigate.FamilyTraces, "search_traces", "", false, investigate.ErrKindUnauthorized, 90*time.Millisecond),
		},
		ToolsUsed:        []string{"k8s", "metrics"},
		ToolsUnavailable: []investigate.Unavailable{{Family: investigate.FamilyTraces, Kind: investigate.ErrKindUnauthorized, Reason: "Jaeger rejected the token"}},
		ConfidenceNote:   "Clamped to MEDIUM: no second family corroborates the OOM (traces unavailable).",
		Mode:             investigate.ModeLLM,
		Usage:            &investigate.Usage{PromptTokens: 10234, CompletionTokens: 2111, CostUSD: 0.0421, Model: "gpt-4o-mini"},
		Started:          t0,
		Wall:             95 * time.Second,
		Repo:             "acme/astronomy-shop",
	}
}

// lowResult found nothing: most backends were unavailable.
func lowResult() *investigate.HealResult {
	return &investigate.HealResult{
		Summary:   "No errors found for checkout in the last hour",
		RootCause: investigate.RootCause{Service: "checkout", ErrorType: investigate.ErrUnknown, Bucket: investigate.BucketUnknown, Band: investigate.BandLow},
		Timeline: []investigate.Receipt{
			receipt(1, investigate.FamilyLogs, "query_logs", "", false, investigate.ErrKindTimeout, 30*time.Second),
			receipt(2, investigate.FamilyMetrics, "error_rate", "", false, investigate.ErrKindUnreachable, 2*time.Second),
		},
		ToolsUnavailable: []investigate.Unavailable{
			{Family: investigate.FamilyTraces, Kind: investigate.ErrKindNotConfigured, Reason: "set jaeger_url"},
			{Family: investigate.FamilyLogs, Kind: investigate.ErrKindTimeout, Reason: "Loki did not answer within 30s"},
			{Family: investigate.FamilyMetrics, Kind: investigate.ErrKindUnreachable, Reason: "dial tcp 10.0.0.7:9090: connection refused"},
			{Family: investigate.FamilyK8s, Kind: investigate.ErrKindNotConfigured, Reason: "set k8s_mcp_url"},
		},
		ConfidenceNote: "LOW: no error type known and no evidence from any backend. Configuring traces (jaeger_url) would help most.",
		Mode:           investigate.ModeDeterministic,
		Started:        t0,
		Wall:           33 * time.Second,
	}
}

// hugeResult is pathological: everything is far beyond Slack's limits.
func hugeResult(diffBytes int) *investigate.HealResult {
	big := strings.Repeat("x<&>` ", 2000) // 12 KB with every character that needs escaping
	r := codeBugResult()
	r.Summary = strings.Repeat("summary ", 20000)
	r.RootCause.Description = big
	r.RootCause.Service = big
	r.RootCause.File = strings.Repeat("very/long/path/", 400) + "File.java"
	r.RootCause.Function = big
	r.ConfidenceNote = big
	r.ModeNote = big
	r.IssueKey = big
	r.Evidence = nil
	for i := range 500 {
		r.Evidence = append(r.Evidence, investigate.Finding{
			Kind: investigate.KindException, Family: investigate.FamilyTraces, Service: big, File: big, Line: i + 1,
			Exception: big, Function: big, Peer: big, Count: i, Quote: strings.Repeat("q", 10*1024) + big,
			Time: t0, LastTime: t0.Add(time.Minute), Frames: make([]investigate.Frame, 50),
		})
	}
	r.NeedsHuman, r.NeedsHumanReason = true, big
	for range 20 {
		r.Alternatives = append(r.Alternatives, investigate.Alternative{RootCause: investigate.RootCause{Service: big, ErrorType: investigate.ErrTimeout,
			Bucket: investigate.BucketInfrastructure, File: big, Line: 3, Description: big}, Note: big, Evidence: []investigate.Finding{{Quote: big}}})
	}
	r.Timeline = nil
	for i := range 200 {
		r.Timeline = append(r.Timeline, investigate.Receipt{
			Seq: i, Family: investigate.FamilyLogs, Tool: big, Summary: big, OK: i%3 != 0, ErrorKind: investigate.ErrKindToolError,
			Error: big, Duration: time.Second, Args: map[string]any{"query": big, "token": "s3cr3t-token-value", "n": i},
		})
	}
	r.ToolsUsed = make([]string, 1000)
	for i := range r.ToolsUsed {
		r.ToolsUsed[i] = big
	}
	r.ToolsUnavailable = make([]investigate.Unavailable, 1000)
	for i := range r.ToolsUnavailable {
		r.ToolsUnavailable[i] = investigate.Unavailable{Family: investigate.Family(big), Kind: investigate.ErrKindServer, Reason: big}
	}
	steps := make([]string, 1000)
	for i := range steps {
		steps[i] = big
	}
	var diff strings.Builder
	for i := 0; diff.Len() < diffBytes; i++ {
		fmt.Fprintf(&diff, "+ line %d with <html> & `ticks` ``` and a long tail %s\n", i, strings.Repeat("y", i%300))
	}
	r.Fix = investigate.Fix{
		Summary:         big,
		Steps:           steps,
		Patch:           &investigate.Patch{File: big, Diff: diff.String(), Explanation: big},
		ManifestEdit:    &investigate.ManifestEdit{File: big, Line: 1, Path: big, OldValue: big, NewValue: big, Reason: big},
		RegressionTest:  strings.Repeat(big+"\n", 50),
		Remediation:     big,
		AffectedRecords: steps,
		Flake:           &investigate.FlakeReport{Frequency: big, Conditions: big, FirstSeen: t0, LastSeen: t0},
	}
	r.Usage = &investigate.Usage{PromptTokens: 1 << 30, CompletionTokens: 1 << 30, CostUSD: 12345.678, Model: big}
	return r
}
