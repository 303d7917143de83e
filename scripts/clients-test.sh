#!/usr/bin/env bash
# The Go, Python and TypeScript clients' suites against the real memoryd:
# builds memoryd, starts it twice on loopback ports with temporary data
# directories and fixed test keys (one server as is, one limited to one
# request a second per key, for the retry tests), runs the suites, and
# stops the servers whatever the outcome.
#
#   scripts/clients-test.sh            all three suites
#   MEMORYD_BIN=path scripts/...       against that memoryd binary instead
#   CLIENTS_SKIP_GO=1 scripts/...      Python and TypeScript only (make test:
#                                      go test ./... already ran the Go suite
#                                      against a memoryd of its own)
#
# Python: a virtual environment under the cache (AGENTMEM_CACHE), one per
# Python version and requirements file, from pinned wheels kept in the
# cache's wheel directory; a rerun installs nothing, and a new environment
# installs offline when the wheels are there. TypeScript: npm ci with its
# cache under the same directory, skipped while node_modules matches the
# lock file.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE=${AGENTMEM_CACHE:-/var/tmp/agentmem}
WHEELS="$CACHE/wheels"
log() { echo "clients-test.sh: $*" >&2; }

for tool in go python3 node npm; do
  command -v "$tool" >/dev/null || { log "$tool is required"; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/agentmem-clients.XXXXXX")
# Each server's pid is in $work/NAME/pid: start runs in a command
# substitution (a subshell), so a variable could not carry it back.
cleanup() {
  local f p
  for f in "$work"/*/pid; do
    [ -f "$f" ] || continue
    p=$(cat "$f")
    kill "$p" 2>/dev/null || continue
    for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

# The keys the suites use (client/server_test.go, clients/*/tests).
KEYS="clients-test-org-a-key-0001=org-a,clients-test-agent-x-key-001=org-a/x"
KEYS+=",clients-test-agent-y-key-001=org-a/y,clients-test-org-b-key-0001=org-b"
LIMITED_KEYS="clients-test-limited-key-01=org-l"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start NAME KEYS [ENV...]: runs memoryd in the background and prints its URL
# once it listens.
start() {
  local name=$1 keys=$2; shift 2
  local port; port=$(free_port)
  mkdir -p "$work/$name"
  env DATA_DIR="$work/$name/data" PORT="$port" ADDR=127.0.0.1 API_KEYS="$keys" BACKEND= INDEX= \
    EMBEDDER=hash LLM_PROVIDER=none "$@" "$work/memoryd" >"$work/$name/log" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$work/$name/pid"
  for _ in $(seq 1 300); do
    if grep -q "listening on" "$work/$name/log"; then
      echo "http://127.0.0.1:$port"
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  log "memoryd ($name) did not start:"; cat "$work/$name/log" >&2
  return 1
}

python_env() {
  local req="$ROOT/clients/python/requirements-test.txt" pyver sum venv
  pyver=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  sum=$(sha256sum "$req" | cut -c1-12)
  venv="$CACHE/clients-python-py$pyver-$sum"
  if [ ! -f "$venv/.installed" ]; then
    mkdir -p "$WHEELS"
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    if ! "$venv/bin/pip" install -q --disable-pip-version-check --no-index --find-links "$WHEELS" -r "$req" >&2 2>/dev/null; then
      log "fetching the Python test wheels (pinned in $(basename "$req"))"
      python3 -m pip download -q --disable-pip-version-check --only-binary=:all: -d "$WHEELS" -r "$req" >&2
      "$venv/bin/pip" install -q --disable-pip-version-check --no-index --find-links "$WHEELS" -r "$req" >&2
    fi
    touch "$venv/.installed"
  fi
  echo "$venv"
}

node_env() {
  local dir="$ROOT/clients/typescript" sum
  sum=$(sha256sum "$dir/package-lock.json" | cut -c1-64)
  if [ "$(cat "$dir/node_modules/.agentmem-lock" 2>/dev/null)" != "$sum" ]; then
    (cd "$dir" && npm ci --cache "$CACHE/npm" --prefer-offline --no-audit --no-fund --loglevel=error >&2)
    echo "$sum" >"$dir/node_modules/.agentmem-lock"
  fi
}

# Prepare the environments first (slow only the first time), then the servers.
VENV=$(python_env)
node_env
if [ -n "${MEMORYD_BIN:-}" ]; then # another build of memoryd, to try the clients on it
  cp "$MEMORYD_BIN" "$work/memoryd"
else
  go build -o "$work/memoryd" ./cmd/memoryd
fi

AGENTMEM_URL=$(start main "$KEYS")
AGENTMEM_LIMITED_URL=$(start limited "$LIMITED_KEYS" RATE_LIMIT=1 RATE_LIMIT_BURST=2)
export AGENTMEM_URL AGENTMEM_LIMITED_URL
log "memoryd at $AGENTMEM_URL (rate-limited one at $AGENTMEM_LIMITED_URL)"

status=0
if [ -z "${CLIENTS_SKIP_GO:-}" ]; then
  log "Go client"
  go test -count=1 ./pkg/client/ || status=1
fi
log "Python client"
(cd clients/python && "$VENV/bin/python" -m pytest -q -p no:cacheprovider) || status=1
log "TypeScript client"
(cd clients/typescript && npm test --silent --cache "$CACHE/npm") || status=1
(cd clients/typescript && npm run types:check --silent --cache "$CACHE/npm") || status=1
exit $status
