#!/usr/bin/env bash
# ElasticMQ, an SQS-compatible server, for tests, without Docker.
#
#   scripts/elasticmq.sh start     start it on loopback (in memory); prints the endpoint URL
#   scripts/elasticmq.sh stop      stop it
#
# It comes from Maven Central (org.elasticmq:elasticmq-server_2.13), resolved
# with its dependencies once and cached.
set -euo pipefail

VERSION=${ELASTICMQ_VERSION:-1.6.11}
PORT=${SQS_PORT:-19324}
CACHE=${AGENTMEM_CACHE:-/var/tmp/agentmem}
HOME_DIR="$CACHE/elasticmq-$VERSION"
RUN_DIR="$CACHE/elasticmq-run-$PORT"

log() { echo "elasticmq.sh: $*" >&2; }
url() { echo "http://127.0.0.1:$PORT"; }

install() {
  if [ -f "$HOME_DIR/.installed" ]; then return; fi
  command -v mvn >/dev/null || { log "mvn is required"; exit 1; }
  log "resolving ElasticMQ $VERSION through Maven into $HOME_DIR"
  rm -rf "$HOME_DIR.tmp" && mkdir -p "$HOME_DIR.tmp/lib"
  cat > "$HOME_DIR.tmp/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>agentmem</groupId><artifactId>elasticmq</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.elasticmq</groupId><artifactId>elasticmq-server_2.13</artifactId><version>$VERSION</version></dependency>
  </dependencies>
</project>
POM
  (cd "$HOME_DIR.tmp" && mvn -q -B dependency:copy-dependencies -DoutputDirectory=lib >/dev/null) ||
    { log "could not resolve ElasticMQ $VERSION through Maven"; exit 1; }
  rm -rf "$HOME_DIR" && mv "$HOME_DIR.tmp" "$HOME_DIR"
  touch "$HOME_DIR/.installed"
}

up() { curl -s -o /dev/null -XPOST "$(url)/" -H 'Content-Type: application/x-amz-json-1.0' \
  -H 'X-Amz-Target: AmazonSQS.ListQueues' -d '{}' -w '%{http_code}' 2>/dev/null | grep -q 200; }

start() {
  install
  if up; then log "already running at $(url)"; url; return; fi
  rm -rf "$RUN_DIR" && mkdir -p "$RUN_DIR"
  cat > "$RUN_DIR/elasticmq.conf" <<CONF
include classpath("application.conf")
node-address { protocol = http, host = 127.0.0.1, port = $PORT, context-path = "" }
rest-sqs { enabled = true, bind-port = $PORT, bind-hostname = "127.0.0.1", sqs-limits = strict }
rest-stats { enabled = false }
CONF
  cd "$RUN_DIR"
  nohup java -Xmx256m -Dconfig.file="$RUN_DIR/elasticmq.conf" -cp "$HOME_DIR/lib/*" org.elasticmq.server.Main \
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
