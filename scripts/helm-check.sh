#!/usr/bin/env bash
# Checks the Helm chart offline, as CI does:
#
#   1. go test in deploy/helm/validate: the validator rejects broken
#      manifests (typo'd fields, wrong types, selectors that match nothing,
#      unknown port names, root containers, write RBAC…) and every file of
#      testdata/bad-values; it accepts the chart rendered with each ci/ file;
#   2. for each deploy/helm/autoheal/ci/*.yaml: `helm lint --strict`,
#      `helm template` (Helm's own packages, pinned in the validate module)
#      and strict validation of every rendered object against the Kubernetes
#      API types (k8s.io/api, prometheus-operator's ServiceMonitor);
#   3. each bad values file through the same command must fail with the
#      message its "# expect:" line names;
#   4. with HELM_CLI=1 (or a helm binary already cached), the real helm
#      CLI ($HELM_VERSION, built with `go install` from the Go module proxy)
#      lints and renders every ci/ file, and its output must be
#      byte-identical to step 2's.
#
#   5. the Dockerfile is linted (dockerfile-utils from npm, when npx exists);
#      with --image, the Dockerfile's own `go build` line is run and the
#      binary must be static (CGO_ENABLED=0, -trimpath) and start with an
#      empty environment. Docker itself is not needed.
#
# Needs only Go; modules come from the Go module proxy (GOPROXY). Tools are
# cached in $AUTOHEAL_TOOLS_CACHE (default ~/.cache/autoheal-tools).
# Exit status 0 when everything passed; the last line is "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"

CHART=deploy/helm/autoheal
VALIDATE=deploy/helm/validate
KUBE_VERSION="${KUBE_VERSION:-1.31.0}"
HELM_VERSION=v3.22.0
DOCKERFILE_UTILS_VERSION=0.16.3
IMAGE=0
HAVE_FILE="$(command -v file || true)"
[ "${1:-}" = --image ] && IMAGE=1
CACHE="${AUTOHEAL_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/autoheal-tools}"
HELMCHECK="$CACHE/bin/helmcheck"
HELM_BIN="$CACHE/helm-$HELM_VERSION/helm"
# go.sum must already hold every module: CI never rewrites it.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=readonly"

OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
passed=0
failed=0
t0=$(date +%s)
step() { printf '\n== %s (%ss)\n' "$*" "$(($(date +%s) - t0))"; }
ok() { passed=$((passed + 1)); }
ko() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

step "build helmcheck (Helm $HELM_VERSION packages, k8s.io/api)"
mkdir -p "$CACHE/bin"
go build -C "$VALIDATE" -o "$HELMCHECK" ./cmd/helmcheck

step "go test $VALIDATE"
if (cd "$VALIDATE" && go test -count=1 ./...); then ok; else ko "go test in $VALIDATE"; fi

step "lint, render and validate the chart with each ci/ values file (Kubernetes $KUBE_VERSION)"
for f in "$CHART"/ci/*.yaml; do
  name="$(basename "$f" .yaml)"
  if "$HELMCHECK" -chart "$CHART" -kube-version "$KUBE_VERSION" -f "$f" -o "$OUT/$name.yaml" -notes "$OUT/$name.NOTES.txt"; then
    if grep -q "/alerts/alertmanager" "$OUT/$name.NOTES.txt"; then ok; else ko "$f: NOTES.txt does not show the webhook URL"; fi
  else
    ko "$f"
  fi
done

step "bad values must fail, each with its expected message"
for f in "$VALIDATE"/testdata/bad-values/*.yaml; do
  want="$(sed -n 's/^# expect: //p' "$f" | head -n1)"
  if [ -z "$want" ]; then ko "$f has no '# expect:' line"; continue; fi
  if "$HELMCHECK" -chart "$CHART" -kube-version "$KUBE_VERSION" -f "$CHART/ci/minimal-values.yaml" -f "$f" >"$OUT/bad.out" 2>&1; then
    ko "$f: the check passed; it must fail with: $want"
  elif grep -qF -- "$want" "$OUT/bad.out"; then
    echo "ok   $(basename "$f") fails as expected: $want"
    ok
  else
    ko "$f: failed, but without '$want':"; sed 's/^/    /' "$OUT/bad.out" >&2
  fi
done

if [ "${HELM_CLI:-}" = 1 ] && [ ! -x "$HELM_BIN" ]; then
  step "build helm $HELM_VERSION (go install through the Go module proxy; ~10 min cold)"
  GOBIN="$(dirname "$HELM_BIN")" go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
fi
if [ -x "$HELM_BIN" ]; then
  step "helm $HELM_VERSION CLI: lint --strict and template must match helmcheck byte for byte"
  for f in "$CHART"/ci/*.yaml; do
    name="$(basename "$f" .yaml)"
    if ! "$HELM_BIN" lint --strict --quiet --kube-version "$KUBE_VERSION" --namespace autoheal "$CHART" -f "$f" >"$OUT/lint.out" 2>&1; then
      ko "helm lint $f"; cat "$OUT/lint.out" >&2; continue
    fi
    "$HELM_BIN" template autoheal "$CHART" --namespace autoheal --kube-version "$KUBE_VERSION" -f "$f" >"$OUT/$name.helm.yaml"
    if cmp -s "$OUT/$name.yaml" "$OUT/$name.helm.yaml"; then
      echo "ok   helm template $name: identical to helmcheck"; ok
    else
      ko "helm template $f differs from helmcheck's render"; diff "$OUT/$name.helm.yaml" "$OUT/$name.yaml" | head -20 >&2
    fi
  done
  if "$HELMCHECK" validate -namespace autoheal "$OUT"/*.helm.yaml; then ok; else ko "validation of helm's output"; fi
else
  step "helm CLI: skipped (HELM_CLI=1 builds helm $HELM_VERSION into $CACHE)"
fi

if command -v npx >/dev/null 2>&1 && [ "${DOCKERFILE_LINT:-1}" != 0 ]; then
  step "Dockerfile lint (dockerfile-utils $DOCKERFILE_UTILS_VERSION from npm)"
  if npx --yes --quiet "dockerfile-utils@$DOCKERFILE_UTILS_VERSION" lint Dockerfile; then
    echo "ok   Dockerfile"; ok
  else
    ko "Dockerfile lint"
  fi
else
  step "Dockerfile lint: skipped (no npx, or DOCKERFILE_LINT=0)"
fi

if [ "$IMAGE" = 1 ]; then
  step "the image's binary: the Dockerfile's go build, static and runnable without an environment"
  # The build line exactly as the Dockerfile has it, writing to $OUT/bot.
  build="$(grep -o 'go build -trimpath .* ./cmd/bot' Dockerfile)"
  build="${build/-o \/out\/bot/-o $OUT/bot}"
  build="${build//\$\{VERSION\}/helm-check}"
  echo "$build"
  if env CGO_ENABLED=0 GOOS=linux bash -c "$build"; then
    info="$(go version -m "$OUT/bot")"
    if grep -q 'CGO_ENABLED=0' <<<"$info" && grep -q -- '-trimpath=true' <<<"$info"; then
      echo "ok   static binary (CGO_ENABLED=0, -trimpath)${HAVE_FILE:+: $(file -b "$OUT/bot" | cut -d, -f1-4)}"; ok
    else
      ko "the binary is not built like the image's: $info"
    fi
    if env -i "$OUT/bot" help >/dev/null 2>&1; then echo "ok   the binary starts with an empty environment"; ok; else ko "the binary does not start without an environment"; fi
  else
    ko "go build with the Dockerfile's flags"
  fi
fi

step "done"
echo "helm-check: $(($(date +%s) - t0)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
