#!/usr/bin/env bash
# End-to-end test with a real Alertmanager: alerts posted to its API arrive
# grouped at the bot's webhook (bearer token) and open threads in the Slack
# simulator; resolved alerts update them. Needs Debian's
# prometheus-alertmanager (or ALERTMANAGER_BIN) and a Redis (found or
# started by with-redis.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"

if [ -z "${ALERTMANAGER_BIN:-}" ] && ! command -v prometheus-alertmanager >/dev/null 2>&1 \
   && ! command -v alertmanager >/dev/null 2>&1 && [ ! -x /usr/bin/prometheus-alertmanager ]; then
  echo "alertmanager-e2e: Alertmanager not found; install it with: apt-get install prometheus-alertmanager" >&2
  exit 1
fi
exec ./scripts/with-redis.sh go test -count=1 -run 'TestAlertmanagerEndToEnd' -v ./cmd/bot "$@"
