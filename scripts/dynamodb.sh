#!/usr/bin/env bash
# DynamoDB Local (AWS's own emulator) for tests, without Docker.
#
#   scripts/dynamodb.sh install   resolve com.amazonaws:DynamoDBLocal and its dependencies through Maven (cached)
#   scripts/dynamodb.sh start     start it on loopback (in memory, or in DYNAMODB_DATA if set); prints the endpoint URL
#   scripts/dynamodb.sh stop      stop it
#   scripts/dynamodb.sh url       print the endpoint URL
set -euo pipefail

VERSION=${DYNAMODB_LOCAL_VERSION:-2.6.1}
PORT=${DYNAMODB_PORT:-18000}
CACHE=${AGENTMEM_CACHE:-/var/tmp/agentmem}
HOME_DIR="$CACHE/dynamodb-local-$VERSION"
RUN_DIR="$CACHE/dynamodb-run-$PORT"

log() { echo "dynamodb.sh: $*" >&2; }
url() { echo "http://127.0.0.1:$PORT"; }

install() {
  if [ -f "$HOME_DIR/.installed" ]; then return; fi
  command -v mvn >/dev/null || { log "mvn is required"; exit 1; }
  command -v java >/dev/null || { log "java 17+ is required"; exit 1; }
  log "resolving DynamoDB Local $VERSION through Maven into $HOME_DIR"
  rm -rf "$HOME_DIR.tmp" && mkdir -p "$HOME_DIR.tmp/lib" "$HOME_DIR.tmp/native"
  cat > "$HOME_DIR.tmp/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>agentmem</groupId><artifactId>dynamodb-local</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>com.amazonaws</groupId><artifactId>DynamoDBLocal</artifactId><version>$VERSION</version></dependency>
  </dependencies>
</project>
POM
  (cd "$HOME_DIR.tmp" && mvn -q -B dependency:copy-dependencies -DoutputDirectory=lib >/dev/null) ||
    { log "could not resolve DynamoDBLocal $VERSION through Maven"; exit 1; }
  # sqlite4java looks for its native library under its plain name.
  local so; so=$(ls "$HOME_DIR.tmp/lib"/libsqlite4java-linux-amd64-*.so | head -1)
  cp "$so" "$HOME_DIR.tmp/native/libsqlite4java-linux-amd64.so"
  rm -rf "$HOME_DIR" && mv "$HOME_DIR.tmp" "$HOME_DIR"
  touch "$HOME_DIR/.installed"
}

up() { [ "$(curl -s -o /dev/null -w '%{http_code}' "$(url)" 2>/dev/null)" = 400 ]; }

start() {
  install
  if up; then log "already running at $(url)"; url; return; fi
  rm -rf "$RUN_DIR" && mkdir -p "$RUN_DIR"
  cd "$RUN_DIR"
  local storage=(-inMemory)
  if [ -n "${DYNAMODB_DATA:-}" ]; then
    mkdir -p "$DYNAMODB_DATA"
    storage=(-dbPath "$(cd "$DYNAMODB_DATA" && pwd)")
  fi
  nohup java -Xmx512m -Djava.library.path="$HOME_DIR/native" -cp "$HOME_DIR/lib/*" \
    com.amazonaws.services.dynamodbv2.local.main.ServerRunner "${storage[@]}" -sharedDb -port "$PORT" \
    >"$RUN_DIR/server.log" 2>&1 &
  echo $! >"$RUN_DIR/pid"
  local t0=$SECONDS
  until up; do
    if ! kill -0 "$(cat "$RUN_DIR/pid")" 2>/dev/null || [ $((SECONDS - t0)) -gt 60 ]; then
      log "did not start; log:"; tail -n 20 "$RUN_DIR/server.log" >&2; exit 1
    fi
    sleep 0.2
  done
  log "up at $(url) after $((SECONDS - t0)) s"
  url
}

stop() {
  if [ -f "$RUN_DIR/pid" ]; then
    local pid; pid=$(cat "$RUN_DIR/pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$RUN_DIR"
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  url) url ;;
  *) echo "usage: $0 install|start|stop|url" >&2; exit 2 ;;
esac
