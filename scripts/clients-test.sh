#!/usr/bin/env bash
# The Go, Python and TypeScript clients' suites and the framework adapters'
# (clients/langgraph, clients/vercel-ai, clients/elizaos) against the real memoryd:
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
# lock file. Then the clients install by name: the TypeScript package packed
# and installed in a temporary project, the Python package pip-installed
# from its folder in a temporary environment, each calling the server.
#
#   CLIENTS_SKIP_ADAPTERS=1 scripts/...  the clients only
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

# python_env DIR: the cached environment of clients/DIR/requirements-test.txt.
python_env() {
  local req="$ROOT/clients/$1/requirements-test.txt" pyver sum venv
  pyver=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  sum=$(sha256sum "$req" | cut -c1-12)
  venv="$CACHE/clients-$1-py$pyver-$sum"
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

# node_env DIR: clients/DIR's node_modules, as its lock file says.
node_env() {
  local dir="$ROOT/clients/$1" sum
  sum=$(sha256sum "$dir/package-lock.json" | cut -c1-64)
  if [ "$(cat "$dir/node_modules/.agentmem-lock" 2>/dev/null)" != "$sum" ]; then
    (cd "$dir" && npm ci --cache "$CACHE/npm" --prefer-offline --no-audit --no-fund --loglevel=error >&2)
    echo "$sum" >"$dir/node_modules/.agentmem-lock"
  fi
}

# Prepare the environments first (slow only the first time), then the servers.
VENV=$(python_env python)
node_env typescript
if [ -z "${CLIENTS_SKIP_ADAPTERS:-}" ]; then
  LG_VENV=$(python_env langgraph)
  node_env vercel-ai
  node_env elizaos
fi
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

# ts_recall: the @agentmem/client installed in the project $1 stores a
# memory and recalls it (what $2 says it was installed from).
ts_recall() {
  (cd "$1" && LABEL="$2" node -e '
      import("@agentmem/client").then(async ({ AgentMemClient }) => {
        const c = new AgentMemClient({ baseUrl: process.env.AGENTMEM_URL, apiKey: "clients-test-agent-x-key-001" });
        const text = process.env.LABEL + " install check " + Date.now();
        await c.create(text);
        const r = await c.search({ query: text, k: 1 });
        if (r.results[0]?.memory.content.text !== text) throw new Error("the installed package did not recall: " + JSON.stringify(r));
        console.log("clients-test.sh: TypeScript package from " + process.env.LABEL + ": ok");
      }).catch((e) => { console.error(e); process.exit(1); });')
}

# install_tests: each client installed by name in a fresh place, calling the server.
install_tests() {
  local tgz
  mkdir -p "$work/pack" "$work/ts-install" "$work/ts-src" "$work/ts-folder"
  tgz=$(cd clients/typescript && npm pack --silent --pack-destination "$work/pack" --cache "$CACHE/npm" | tail -1)
  (cd "$work/ts-install" && echo '{"name":"t","private":true,"type":"module"}' >package.json &&
    npm install --silent --offline --no-audit --no-fund --cache "$CACHE/npm" "$work/pack/$tgz") || return 1
  ts_recall "$work/ts-install" "its packed tarball" || return 1
  # From the folder as a clean clone has it (no node_modules, no dist):
  # prepare builds it, fetching the compiler when the folder has none.
  git ls-files -z clients/typescript | (cd "$(git rev-parse --show-toplevel)" && xargs -0 tar -cf -) | tar -xf - -C "$work/ts-src"
  (cd "$work/ts-folder" && echo '{"name":"t","private":true,"type":"module"}' >package.json &&
    npm install --silent --prefer-offline --no-audit --no-fund --cache "$CACHE/npm" "$work/ts-src/clients/typescript") || return 1
  ts_recall "$work/ts-folder" "its folder in a clean clone" || return 1
  python3 -m venv "$work/py-install" >&2
  "$work/py-install/bin/pip" install -q --disable-pip-version-check --no-index --find-links "$WHEELS" ./clients/python >&2 || return 1
  (cd "$work" && py-install/bin/python -c '
import os, time, agentmem
c = agentmem.Client(os.environ["AGENTMEM_URL"], "clients-test-agent-x-key-001")
text = "pip install check %d" % time.time_ns()
c.create(text)
got = c.search(text, k=1)["results"]
assert got and got[0]["memory"]["content"]["text"] == text, got
print("clients-test.sh: Python package from pip install ./clients/python: ok")')
}
log "clients installed by name"
install_tests || status=1

if [ -z "${CLIENTS_SKIP_ADAPTERS:-}" ]; then
  log "LangGraph adapter"
  (cd clients/langgraph && "$LG_VENV/bin/python" -m pytest -q -p no:cacheprovider) || status=1
  log "Vercel AI SDK adapter"
  (cd clients/vercel-ai && npm test --silent --cache "$CACHE/npm") || status=1
  log "ElizaOS adapter"
  (cd clients/elizaos && npm test --silent --cache "$CACHE/npm") || status=1
fi
exit $status
