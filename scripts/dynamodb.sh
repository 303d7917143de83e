#!/usr/bin/env bash
# DynamoDB Local (AWS's own emulator) for tests, without Docker.
#
#   scripts/dynamodb.sh start     start it on loopback (in memory, or in DYNAMODB_DATA if set); prints the endpoint URL
#   scripts/dynamodb.sh stop      stop it
#   scripts/dynamodb.sh url       print the endpoint URL
#
# com.amazonaws:DynamoDBLocal and its dependencies come from Maven Central,
# resolved once and cached; sqlite4java's native library is among them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

VERSION=${DYNAMODB_LOCAL_VERSION:-2.6.1}
PORT=${DYNAMODB_PORT:-18000}
CACHE=${AGENTMEM_CACHE:-/var/tmp/agentmem}
HOME_DIR="$CACHE/dynamodb-local-$VERSION"
RUN_DIR="$CACHE/dynamodb-run-$PORT"

url() { echo "http://127.0.0.1:$PORT"; }
up() { [ "$(curl -s -o /dev/null -w '%{http_code}' "$(url)" 2>/dev/null)" = 400 ]; }

install() {
  [ -f "$HOME_DIR/.installed" ] && return
  echo "dynamodb.sh: resolving DynamoDB Local $VERSION through Maven into $HOME_DIR" >&2
  maven_resolve "$HOME_DIR" "com.amazonaws:DynamoDBLocal:$VERSION"
  # sqlite4java looks for its native library under its plain name.
  mkdir -p "$HOME_DIR/native"
  cp "$(ls "$HOME_DIR"/lib/libsqlite4java-linux-amd64-*.so | head -1)" "$HOME_DIR/native/libsqlite4java-linux-amd64.so"
}

start() {
  install
  if up; then echo "dynamodb.sh: already running at $(url)" >&2; url; return; fi
  rm -rf "$RUN_DIR" && mkdir -p "$RUN_DIR"
  local storage=(-inMemory)
  if [ -n "${DYNAMODB_DATA:-}" ]; then
    mkdir -p "$DYNAMODB_DATA"
    storage=(-dbPath "$(cd "$DYNAMODB_DATA" && pwd)")
  fi
  start_server "$RUN_DIR" up java -Xmx512m -Djava.library.path="$HOME_DIR/native" -cp "$HOME_DIR/lib/*" \
    com.amazonaws.services.dynamodbv2.local.main.ServerRunner "${storage[@]}" -sharedDb -port "$PORT"
  echo "dynamodb.sh: up at $(url)" >&2
  url
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop_server "$RUN_DIR" ;;
  url) url ;;
  *) echo "usage: $0 install|start|stop|url" >&2; exit 2 ;;
esac
