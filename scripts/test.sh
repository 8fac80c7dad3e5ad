#!/usr/bin/env bash
# The one test command (make test): every package once. The packages that run
# goroutines against shared state ($RACE_PKGS) run under the race detector,
# the rest without it, so nothing runs twice. The two runs go at the same
# time: most tests wait on simulated backends and Slack's edit throttle, not
# on the CPU, so one run alone leaves a 2-CPU machine half idle. Each run's
# output is printed whole when both have ended; the exit code is the first
# failure's. A package may take longer than go test's default 10 minutes on
# a loaded 2-CPU machine.
set -uo pipefail
GO=${GO:-go}
read -r -a race_pkgs <<<"${RACE_PKGS:?RACE_PKGS is not set}"
race_paths=$("$GO" list "${race_pkgs[@]}") || exit 1
mapfile -t others < <("$GO" list ./... | grep -vxF "$race_paths")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$GO" test -count=1 -timeout 20m "${others[@]}" >"$out/plain" 2>&1 &
plain=$!
"$GO" test -race -count=1 -timeout 20m "${race_pkgs[@]}" >"$out/race" 2>&1 &
race=$!
rc=0
wait "$plain" || rc=$?
wait "$race" || { r=$?; [ "$rc" -ne 0 ] || rc=$r; }
echo "== go test (without -race)"
cat "$out/plain"
echo "== go test -race ${race_pkgs[*]}"
cat "$out/race"
exit "$rc"
