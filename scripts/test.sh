#!/usr/bin/env bash
# The one test command (make test): every package once. The packages that run
# goroutines against shared state ($RACE_PKGS) run under the race detector,
# the rest without it, so nothing runs twice. Both runs happen even when the
# first fails; the exit code is the first failure's. A package may take
# longer than go test's default 10 minutes on a loaded 2-CPU machine.
set -uo pipefail
GO=${GO:-go}
read -r -a race_pkgs <<<"${RACE_PKGS:?RACE_PKGS is not set}"
race_paths=$("$GO" list "${race_pkgs[@]}") || exit 1
mapfile -t others < <("$GO" list ./... | grep -vxF "$race_paths")
rc=0
"$GO" test -count=1 -timeout 20m "${others[@]}" || rc=$?
"$GO" test -race -count=1 -timeout 20m "${race_pkgs[@]}" || { r=$?; [ "$rc" -ne 0 ] || rc=$r; }
exit "$rc"
