#!/usr/bin/env bash
# Runs a command with REDIS_URL pointing at a reachable Redis:
# $REDIS_URL if set, else 127.0.0.1:6379 if it answers, else a throwaway
# redis-server on a free port that is stopped when the command ends.
set -euo pipefail

reachable() { # host port
  timeout 1 bash -c "exec 3<>/dev/tcp/$1/$2 && printf 'PING\r\n' >&3 && head -c 5 <&3 | grep -q PONG" 2>/dev/null
}

if [ -n "${REDIS_URL:-}" ]; then
  exec "$@"
fi

if reachable 127.0.0.1 6379; then
  export REDIS_URL=redis://127.0.0.1:6379/0
  exec "$@"
fi

if ! command -v redis-server >/dev/null 2>&1; then
  echo "with-redis: no Redis at 127.0.0.1:6379 and no redis-server binary; install redis-server or set REDIS_URL" >&2
  exit 1
fi

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 16379)
dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
cleanup() { kill "$(cat "$dir/redis.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT
for _ in $(seq 50); do reachable 127.0.0.1 "$port" && break; sleep 0.1; done
export REDIS_URL="redis://127.0.0.1:$port/0"
echo "with-redis: started throwaway redis-server on port $port" >&2
"$@"
