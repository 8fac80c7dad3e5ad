#!/usr/bin/env bash
# The real Jaeger the tests run against: v1.75.0 (the approved release; newer
# ones are not), the binary built from github.com/jaegertracing/jaeger/cmd/jaeger
# as a Go tool of the separate module tools/jaeger (its dependency tree stays
# out of the main go.mod), cached in $AUTOHEAL_TOOLS_CACHE (default
# ~/.cache/autoheal-tools) like the Helm tooling.
#
#   scripts/jaeger.sh build   build once (about 10 CPU-minutes cold; cached)
#                             and print the binary's path
#   scripts/jaeger.sh path    print the cached binary's path (exit 1 if absent)
#   scripts/jaeger.sh check   verify tools/jaeger/all-in-one.yaml is the
#                             release's default configuration, listen ports aside
#
# The integration and conformance tests find the binary through $JAEGER_BIN or
# in the cache; without it they skip, except in CI (CI=true) where they fail.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"

JAEGER_VERSION=v1.75.0
MODULE=tools/jaeger
CACHE="${AUTOHEAL_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/autoheal-tools}"
BIN="$CACHE/jaeger-$JAEGER_VERSION/jaeger"
# go.sum must already hold every module: CI never rewrites it.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=readonly"

# built reports whether $BIN is Jaeger at $JAEGER_VERSION (the module
# version recorded in the binary, not just any file at that path).
built() {
  [ -x "$BIN" ] && go version -m "$BIN" 2>/dev/null | grep -qE "^\s+mod\s+github.com/jaegertracing/jaeger\s+$JAEGER_VERSION\b"
}

check() {
  local dir upstream ours
  dir="$(go list -C "$MODULE" -m -f '{{.Dir}}' github.com/jaegertracing/jaeger)"
  upstream="$dir/cmd/jaeger/internal/all-in-one.yaml"
  # Our file with every port variable at its default, without our header and
  # the lines marked as added listen addresses.
  ours="$(sed -E 's/\$\{env:AUTOHEAL_JAEGER_[A-Z_]+_PORT:-([0-9]+)\}/\1/g' "$MODULE/all-in-one.yaml" | grep -v 'autoheal: listen address' | awk 'NR == 1, /^[^#]/ { if (/^#/) next } 1')"
  if diff -u "$upstream" <(cat <<<"$ours"); then
    echo "jaeger: $MODULE/all-in-one.yaml is $JAEGER_VERSION's default configuration (listen ports aside)"
  else
    echo "jaeger: $MODULE/all-in-one.yaml differs from $upstream beyond listen ports" >&2
    return 1
  fi
}

case "${1:-build}" in
  path)
    if built; then echo "$BIN"; else echo "jaeger: no $JAEGER_VERSION binary at $BIN; run scripts/jaeger.sh build" >&2; exit 1; fi
    ;;
  check)
    check
    ;;
  build)
    if built; then
      echo "jaeger: cached $BIN" >&2
    else
      echo "jaeger: building $JAEGER_VERSION into $BIN (go build in $MODULE; a few minutes cold)" >&2
      t0=$(date +%s)
      mkdir -p "$(dirname "$BIN")"
      go build -C "$MODULE" -trimpath -o "$BIN.tmp" github.com/jaegertracing/jaeger/cmd/jaeger
      mv "$BIN.tmp" "$BIN"
      echo "jaeger: built in $(($(date +%s) - t0)) s" >&2
      built || { echo "jaeger: $BIN does not report module version $JAEGER_VERSION" >&2; exit 1; }
    fi
    check >&2
    echo "$BIN"
    ;;
  *)
    echo "usage: scripts/jaeger.sh [build|path|check]" >&2
    exit 2
    ;;
esac
