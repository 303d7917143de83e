#!/usr/bin/env bash
# The LocalStack stage of make test (scripts/test.sh runs it after the main
# tests): the AWS adapters and the event paths against a real LocalStack
# process started by scripts/localstack.sh, without Docker.
#
#   scripts/localstack-stage.sh begin   install (first run: pip, minutes) and start LocalStack in the
#                                       background, so that it overlaps the main tests; returns at once
#   scripts/localstack-stage.sh run     wait for it, then run the stage's tests; when LocalStack could
#                                       not start, print why and how to enable it, and succeed
#   scripts/localstack-stage.sh stop    end a begin still under way and stop LocalStack
#   scripts/localstack-stage.sh all     begin, run and stop, with a local OpenSearch node unless
#                                       OPENSEARCH_URL is set (make localstack-test)
#
# LOCALSTACK_STAGE=0 skips the stage; LOCALSTACK_STAGE=require (make
# localstack-test) makes a LocalStack that cannot start a failure. run needs
# an OpenSearch node (OPENSEARCH_URL; make test's) for the AWS backend's
# index. Once LocalStack is up, any failing test fails the stage. The tests: the localstack package (the AWS
# backend; S3 -> ingest, SQS -> extract, EventBridge -> consolidate), a short
# subset of the DynamoDB store's contract suites (the term-index suite alone
# takes minutes through LocalStack's DynamoDB), the S3 and SQS adapters, the
# server's DynamoDB backend, and memoryd and memctl on the AWS store.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=${AGENTMEM_CACHE:-/var/tmp/agentmem}
export LOCALSTACK_PORT=${LOCALSTACK_PORT:-14566}
STATE="$CACHE/localstack-stage-$LOCALSTACK_PORT"
ENABLED=${LOCALSTACK_STAGE:-1}

# The adapter tests that run against LocalStack, and their packages.
ADAPTER_TESTS='^(TestStoreContract|TestRelationContract|TestRecordContract|TestKeyContract|TestUsageContract|TestKeySecretNotStored|TestBlobs|TestJobsThroughSQS|TestConversationContextOnDynamoDB|TestAWSStoreWithEmbeddedIndex|TestServerOnDynamoDB)$'
ADAPTER_PKGS=(./pkg/store/dynamodb/ ./pkg/blob/s3/ ./pkg/queue/sqs/ ./pkg/wiring/server/ ./cmd/memoryd/)
# Three quarters of the store suite's time through LocalStack is its bulk
# delete cases (one table each); DynamoDB Local runs them in the main stage.
ADAPTER_SKIP='^TestStoreContract$/^bulk_delete'

say() { echo "localstack stage: $*" >&2; }

descendants() {
  local p
  for p in $(pgrep -P "$1" || true); do echo "$p"; descendants "$p"; done
}

begin() {
  [ "$ENABLED" != 0 ] || return 0
  rm -rf "$STATE" && mkdir -p "$STATE"
  # Its output and exit status are kept for run. The install (pip, the
  # first time) yields the CPU to the tests; the server starts as usual.
  bash -c '{ nice -n 10 scripts/localstack.sh install && scripts/localstack.sh start >"$1/url"; } 2>"$1/start.log"
    echo $? >"$1/rc"' _ "$STATE" \
    </dev/null >/dev/null 2>&1 &
  echo $! >"$STATE/pid"
  say "LocalStack installs and starts in the background (log $STATE/start.log)"
}

run() {
  if [ "$ENABLED" = 0 ]; then say "skipped (LOCALSTACK_STAGE=0)"; return 0; fi
  # A begin of an earlier make test whose LocalStack is gone is stale.
  if [ ! -f "$STATE/pid" ] || { [ "$(cat "$STATE/rc" 2>/dev/null)" = 0 ] &&
    ! curl -sf --max-time 5 -o /dev/null "$(tail -n 1 "$STATE/url")/_localstack/health"; }; then
    begin
  fi
  local t0=$SECONDS
  while [ ! -f "$STATE/rc" ] && kill -0 "$(cat "$STATE/pid")" 2>/dev/null; do sleep 1; done
  [ $((SECONDS - t0)) -lt 2 ] || say "waited $((SECONDS - t0)) s for LocalStack after the main tests"
  local rc url why
  rc=$(cat "$STATE/rc" 2>/dev/null || echo 1)
  url=$(tail -n 1 "$STATE/url" 2>/dev/null || true)
  if [ "$rc" != 0 ] || [ -z "$url" ]; then
    why=$(grep -E '^localstack\.sh: ' "$STATE/start.log" 2>/dev/null | tail -n 1 | sed 's/^localstack\.sh: //' || true)
    [ -n "$why" ] || why=$(tail -n 1 "$STATE/start.log" 2>/dev/null || echo "scripts/localstack.sh start failed")
    if [ "$ENABLED" = require ]; then say "LocalStack could not start: $why"; return 1; fi
    say "SKIPPED, make test goes on: LocalStack could not start ($why)." \
      "To enable the stage: Python 3.12 or newer on PATH or in LOCALSTACK_PYTHON, pip with access to PyPI, a JDK and Maven;" \
      "scripts/localstack.sh start shows the details; LOCALSTACK_STAGE=0 skips the stage without this message."
    return 0
  fi
  say "LocalStack is up at $url; running the stage's tests"
  eval "$(scripts/localstack.sh env)"
  export LOCALSTACK_URL=$url REQUIRE_LOCALSTACK=1 DYNAMODB_ENDPOINT=$url S3_ENDPOINT=$url SQS_ENDPOINT=$url \
    REQUIRE_DYNAMODB=1 REQUIRE_SQS=1 REQUIRE_OPENSEARCH=1
  local out1 out2 rc1=0 rc2=0 t1=$SECONDS
  out1=$(mktemp) out2=$(mktemp)
  # Two runs side by side: the event paths wait for EventBridge's first
  # scheduled event (a minute) while the adapter tests run. Under the race
  # detector, as in the main stage, whose compiled packages they reuse.
  go test -race -count=1 ./localstack/ >"$out1" 2>&1 &
  local p1=$!
  go test -race -count=1 -run "$ADAPTER_TESTS" -skip "$ADAPTER_SKIP" "${ADAPTER_PKGS[@]}" >"$out2" 2>&1 || rc2=$?
  wait "$p1" || rc1=$?
  cat "$out1" "$out2"
  if grep -q 'no tests to run' "$out1" "$out2"; then
    say "a package ran none of the stage's tests: ADAPTER_TESTS in $0 is stale"
    rc2=1
  fi
  rm -f "$out1" "$out2"
  say "tests took $((SECONDS - t1)) s"
  [ "$rc1" = 0 ] && [ "$rc2" = 0 ]
}

stop() {
  [ "$ENABLED" != 0 ] || return 0
  if [ -f "$STATE/pid" ]; then
    local pid kids
    pid=$(cat "$STATE/pid")
    kids=$(descendants "$pid")
    kill $pid $kids 2>/dev/null || true
  fi
  scripts/localstack.sh stop || true
  rm -rf "$STATE"
}

all() {
  trap stop EXIT
  if [ -z "${OPENSEARCH_URL:-}" ]; then
    export OPENSEARCH_PORT=${OPENSEARCH_PORT:-19200}
    trap 'stop; scripts/opensearch.sh stop' EXIT
    begin
    OPENSEARCH_URL=$(scripts/opensearch.sh start)
    export OPENSEARCH_URL
  fi
  run
}

case "${1:-}" in
  begin) begin ;;
  run) run ;;
  stop) stop ;;
  all) all ;;
  *) echo "usage: $0 begin|run|stop|all" >&2; exit 2 ;;
esac
