#!/usr/bin/env bash
# The time from a clean clone to a first recall through each client and
# framework adapter, as a new user would get there: git clone the
# repository into a temporary folder, build memoryd and start it, then for
# each of the Python client, the TypeScript client, LangGraph, the Vercel
# AI SDK and ElizaOS, install it into a new project from the clone's folder
# and run a tiny program, through the framework's own library, that stores
# one memory and recalls it. Prints the seconds of each step and a table.
# A measurement, not a test: make test does not run it (docs/adapters.md
# has the table it printed).
#
#   scripts/first-recall.sh                  clone this checkout's HEAD
#   FIRST_RECALL_SOURCE=URL|DIR scripts/...  clone that instead
#   FIRST_RECALL_COLD=1 scripts/...          empty npm and pip caches
#                                            (fetches every package)
#   FIRST_RECALL_KEEP=1 scripts/...          keep the temporary folder
#
# Caches: npm's under $AGENTMEM_CACHE/npm (--prefer-offline) and the pinned
# Python wheels of scripts/clients-test.sh under $AGENTMEM_CACHE/wheels
# (offline first, PyPI when a wheel is missing); the Go build cache is the
# user's. The script says which were warm. memoryd runs with the hashing
# embedder and no LLM, so no model is fetched.
#
# How each is installed, and why so:
#   - the TypeScript client is built in its folder first (npm ci, whose
#     prepare runs tsc): npm installs a folder dependency without its
#     devDependencies, so a folder install (or an adapter's file:../typescript
#     dependency) from a clean clone cannot build it (tsc: not found);
#   - the Node adapters are installed with --install-links (copied, as from
#     a registry): a symlinked adapter would resolve @agentmem/client and its
#     peer (ai, @elizaos/core) from the clone's folder, where neither is;
#   - LangGraph's adapter depends on the agentmem package, which is this
#     repository's Python client, so both folders go to one pip install.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SOURCE=${FIRST_RECALL_SOURCE:-$ROOT}
CACHE=${AGENTMEM_CACHE:-/var/tmp/agentmem}
log() { echo "first-recall.sh: $*" >&2; }

for tool in git go python3 node npm; do
  command -v "$tool" >/dev/null || { log "$tool is required"; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/agentmem-first-recall.XXXXXX")
pid=""
cleanup() {
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  if [ -n "${FIRST_RECALL_KEEP:-}" ]; then log "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

if [ -n "${FIRST_RECALL_COLD:-}" ]; then
  NPM_CACHE="$work/npm-cache" WHEELS="" PIP_CACHE=(--no-cache-dir)
  caches="cold (empty npm cache, no pip cache, every package fetched)"
else
  NPM_CACHE="$CACHE/npm" WHEELS="$CACHE/wheels" PIP_CACHE=()
  warm() { [ -d "$1" ] && [ -n "$(ls -A "$1" 2>/dev/null)" ] && echo warm || echo empty; }
  caches="npm cache $(warm "$NPM_CACHE"), Python wheels $(warm "$WHEELS")"
fi
gocache=$(go env GOCACHE)
caches+=", Go build cache $([ -d "$gocache" ] && [ -n "$(ls -A "$gocache" 2>/dev/null)" ] && echo warm || echo empty)"
log "caches: $caches"

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a + b }'; }
NPM=(--cache "$NPM_CACHE" --prefer-offline --no-audit --no-fund --loglevel=error)

# pip_install VENV ARGS...: offline from the cached wheels, else from PyPI.
pip_install() {
  local venv=$1; shift
  if [ -n "$WHEELS" ] && "$venv/bin/pip" install -q --disable-pip-version-check --no-index --find-links "$WHEELS" "$@" >/dev/null 2>&1; then
    return 0
  fi
  "$venv/bin/pip" install -q --disable-pip-version-check "${PIP_CACHE[@]}" ${WHEELS:+--find-links "$WHEELS"} "$@" >&2
}

# node_project DIR: an empty ES-module project.
node_project() { mkdir -p "$1" && echo '{"name":"first-recall","private":true,"type":"module"}' >"$1/package.json"; }

t0=$(now)
git clone -q "$SOURCE" "$work/agentmem"
t_clone=$(now)
REPO="$work/agentmem"
(cd "$REPO" && go build -o "$work/memoryd" ./cmd/memoryd)
t_build=$(now)

KEY=first-recall-org-key-000001
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
env DATA_DIR="$work/data" PORT="$port" ADDR=127.0.0.1 API_KEYS="$KEY=first-recall" BACKEND= INDEX= \
  EMBEDDER=hash LLM_PROVIDER=none "$work/memoryd" >"$work/memoryd.log" 2>&1 </dev/null &
pid=$!
for _ in $(seq 1 300); do
  grep -q "listening on" "$work/memoryd.log" && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/memoryd.log" >&2; exit 1; }
  sleep 0.1
done
grep -q "listening on" "$work/memoryd.log" || { log "memoryd did not start"; cat "$work/memoryd.log" >&2; exit 1; }
t_start=$(now)
export AGENTMEM_URL="http://127.0.0.1:$port" AGENTMEM_API_KEY="$KEY"
base=$(secs "$t0" "$t_start")
log "clone $(secs "$t0" "$t_clone") s, build memoryd $(secs "$t_clone" "$t_build") s, start $(secs "$t_build" "$t_start") s"

declare -a rows=()
# row NAME INSTALL_SECONDS RUN_SECONDS [SHARED_SECONDS]: a line of the table;
# the total adds the clone, build and start, and any shared step it needed.
row() { rows+=("| $1 | $2 | $3 | $(add "$(add "$base" "${4:-0}")" "$(add "$2" "$3")") |"); }

# Python client: pip install ./clients/python.
a=$(now)
python3 -m venv "$work/py"
pip_install "$work/py" "$REPO/clients/python"
b=$(now)
"$work/py/bin/python" - <<'EOF'
import os, agentmem
c = agentmem.Client(os.environ["AGENTMEM_URL"], os.environ["AGENTMEM_API_KEY"])
c.create("Ada's favourite tea is jasmine")
hits = c.search("which tea does Ada like", k=1)["results"]
assert hits and "jasmine" in hits[0]["memory"]["content"]["text"], hits
print("python client: recalled:", hits[0]["memory"]["content"]["text"])
EOF
row "Python client (\`pip install ./clients/python\`)" "$(secs "$a" "$b")" "$(secs "$b" "$(now)")"

# LangGraph: the adapter and the Python client, one pip install; a store
# put, then a search by meaning.
a=$(now)
python3 -m venv "$work/lg"
pip_install "$work/lg" -c "$REPO/clients/langgraph/requirements-test.txt" "$REPO/clients/python" "$REPO/clients/langgraph"
b=$(now)
"$work/lg/bin/python" - <<'EOF'
import os
from agentmem import Client
from agentmem_langgraph import AgentMemStore
store = AgentMemStore(Client(os.environ["AGENTMEM_URL"], os.environ["AGENTMEM_API_KEY"]))
store.put(("users", "ada", "memories"), "coffee", {"text": "Ada drinks her coffee black, no sugar"})
hits = store.search(("users", "ada"), query="how does Ada take her coffee", limit=1)
assert hits and "black" in hits[0].value["text"], hits
print("langgraph: recalled:", hits[0].value["text"])
EOF
row "LangGraph (\`AgentMemStore\`)" "$(secs "$a" "$b")" "$(secs "$b" "$(now)")"

# The TypeScript client, built in its folder (shared by the Node adapters).
a=$(now)
(cd "$REPO/clients/typescript" && npm ci "${NPM[@]}" >&2)
ts_build=$(secs "$a" "$(now)")
log "TypeScript client built in its folder (npm ci, prepare): $ts_build s"

a=$(now)
node_project "$work/ts"
(cd "$work/ts" && npm install --install-links "${NPM[@]}" "$REPO/clients/typescript" >&2)
b=$(now)
(cd "$work/ts" && node --input-type=module -e '
import { AgentMemClient } from "@agentmem/client";
const c = new AgentMemClient({ baseUrl: process.env.AGENTMEM_URL, apiKey: process.env.AGENTMEM_API_KEY });
await c.create("Grace keeps her spare keys in the blue drawer");
const r = await c.search({ query: "where are the spare keys", k: 1 });
if (!r.results[0]?.memory.content.text.includes("blue drawer")) throw new Error(JSON.stringify(r));
console.log("typescript client: recalled:", r.results[0].memory.content.text);')
row "TypeScript client (built, then \`npm install --install-links\`)" "$(add "$ts_build" "$(secs "$a" "$b")")" "$(secs "$b" "$(now)")"

# Vercel AI SDK: generateText with the SDK's mock model, which calls the
# remember tool, then recall.
a=$(now)
node_project "$work/vercel"
(cd "$work/vercel" && npm install --install-links "${NPM[@]}" "$REPO/clients/vercel-ai" ai@5.0.277 zod@3.25.76 >&2)
b=$(now)
(cd "$work/vercel" && node --input-type=module -e '
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV2 } from "ai/test";
import { AgentMemClient } from "@agentmem/client";
import { memoryTools } from "@agentmem/vercel-ai";
const client = new AgentMemClient({ baseUrl: process.env.AGENTMEM_URL, apiKey: process.env.AGENTMEM_API_KEY });
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const calls = [{ tool: "remember", input: { text: "Linus waters the office ferns on Mondays" } }, { tool: "recall", input: { query: "who waters the ferns" } }];
let step = 0;
const model = new MockLanguageModelV2({ doGenerate: async () => {
  const c = calls[step++];
  if (!c) return { content: [{ type: "text", text: "done" }], finishReason: "stop", usage, warnings: [] };
  return { content: [{ type: "tool-call", toolCallId: `call-${step}`, toolName: c.tool, input: JSON.stringify(c.input) }], finishReason: "tool-calls", usage, warnings: [] };
} });
const res = await generateText({ model, tools: memoryTools(client), stopWhen: stepCountIs(4), prompt: "remember, then recall" });
const recalled = res.steps.flatMap((s) => s.toolResults)[1]?.output;
if (!String(recalled).includes("ferns on Mondays")) throw new Error(JSON.stringify(recalled));
console.log("vercel ai: recalled:", recalled);')
row "Vercel AI SDK (\`memoryTools\`)" "$(secs "$a" "$b")" "$(secs "$b" "$(now)")" "$ts_build"

# ElizaOS: a real AgentRuntime whose memory is agentmem; createMemory,
# then searchMemories.
a=$(now)
node_project "$work/eliza"
(cd "$work/eliza" && npm install --install-links "${NPM[@]}" "$REPO/clients/elizaos" @elizaos/core@1.7.2 >&2)
b=$(now)
(cd "$work/eliza" && node --input-type=module -e '
import { AgentRuntime, ChannelType, stringToUuid } from "@elizaos/core";
import { AgentMemClient } from "@agentmem/client";
import { agentmemPlugin, InMemoryDelegate } from "@agentmem/elizaos";
const client = new AgentMemClient({ baseUrl: process.env.AGENTMEM_URL, apiKey: process.env.AGENTMEM_API_KEY });
const rt = new AgentRuntime({ character: { name: "first-recall", bio: ["a new agent"] }, plugins: [agentmemPlugin({ client, delegate: new InMemoryDelegate() })], logLevel: "error" });
await rt.initialize({ skipMigrations: true });
const ids = { entityId: stringToUuid("user-ada"), roomId: stringToUuid("room-ada"), worldId: stringToUuid("world-ada") };
await rt.ensureConnection({ ...ids, userName: "ada", name: "Ada", source: "first-recall", type: ChannelType.GROUP, messageServerId: stringToUuid("server-ada") });
await rt.createMemory({ ...ids, agentId: rt.agentId, content: { text: "Ada is learning the cello", source: "first-recall" } }, "messages");
const found = await rt.searchMemories({ tableName: "messages", roomId: ids.roomId, query: "which instrument is Ada learning", embedding: [], count: 1 });
if (!found[0]?.content.text.includes("cello")) throw new Error(JSON.stringify(found));
console.log("elizaos: recalled:", found[0].content.text);
await rt.stop?.();
process.exit(0);')
row "ElizaOS (\`AgentRuntime\` + plugin)" "$(secs "$a" "$b")" "$(secs "$b" "$(now)")" "$ts_build"

echo
echo "Clean clone to first recall; caches: $caches."
echo "Clone $(secs "$t0" "$t_clone") s, build memoryd $(secs "$t_clone" "$t_build") s, start it $(secs "$t_build" "$t_start") s (in every total);"
echo "the Node adapters' totals include building the TypeScript client in its folder ($ts_build s)."
echo
echo "| through | install (s) | store and recall (s) | clean clone to first recall (s) |"
echo "| --- | ---: | ---: | ---: |"
printf '%s\n' "${rows[@]}"
