#!/usr/bin/env bash
# Runs the performance benchmarks and prints their figures and ratios.
# Benchmarks (not tests) carry every performance target of the product.
set -euo pipefail
cd "$(dirname "$0")/.."

run() { # package pattern benchtime
  go test -run '^$' -bench "$2" -benchtime "$3" "$1" 2>&1 | grep -E '^Benchmark' || true
}

echo "== Investigation engine (harness, local simulators)"
run ./harness 'BenchmarkInvestigateExamples' 20x
echo
echo "== Log templates (Drain) over an hour of logs: 180,000 lines"
run ./investigate/drain 'BenchmarkDrainHourOfLogs' 3x
echo
echo "== Change points over an hour of metrics: 1,000 series of 240 points"
run ./investigate/changepoint 'BenchmarkChangePointHourOfMetrics' 5x
echo
echo "== Round concurrency: 200 ms added to every backend call (target ratio < 0.40)"
run ./harness 'BenchmarkRoundConcurrency' 2x | tee /tmp/autoheal-bench-concurrency.txt
awk '/BenchmarkRoundConcurrency/ { for (i = 1; i <= NF; i++) if ($(i+1) == "ratio") printf "   parallel/sequential wall-time ratio: %s\n", $i }' /tmp/autoheal-bench-concurrency.txt
echo
echo "== Redaction of the tuning scenarios' log lines (the old expression-per-line redactor did about 1 MB/s)"
run ./redact 'BenchmarkRedactLogLines' 10x
echo
echo "== LLM planner prompt tokens (simulator's count; goals: max-request-tokens <= 20000, investigation-tokens <= 60000)"
run ./investigate/llm 'BenchmarkPromptTokens' 1x
echo
echo "== Evidence chart: one PNG of an hour of samples (targets: < 100 ms, <= 200 KB = 204800 png-bytes)"
run ./chart 'BenchmarkChart' 20x
echo
echo "== Work queue enqueue latency on Redis (${REDIS_URL:-redis://127.0.0.1:6379/0})"
run ./sessions 'BenchmarkEnqueue' 3000x
echo
echo "== Slack envelope acks, mentions at 200/s (target p99 < 50 ms)"
run ./bot 'BenchmarkMentionAckLatency' 2000x
echo
echo "== Slack acks at 200 events/s with a Web API answering in 500 ms, one event in ten a command opening a modal"
echo "   (targets: ack p99 < 50 ms; every views.open within the trigger's 3 s; mentions past the lane's queue are shed)"
run ./bot 'BenchmarkSlowSlackAcks' 2000x
for pkg in ./alerts ./cmd/bot; do
  if ls "$pkg"/*_test.go >/dev/null 2>&1 && grep -qs 'func Benchmark' "$pkg"/*_test.go; then
    echo
    echo "== $pkg"
    run "$pkg" . 1x
  fi
done
