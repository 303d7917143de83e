#!/usr/bin/env bash
# ElasticMQ, an SQS-compatible server, for tests, without Docker.
#
#   scripts/elasticmq.sh start     start it on loopback (in memory); prints the endpoint URL
#   scripts/elasticmq.sh stop      stop it
#
# org.elasticmq:elasticmq-server_2.13 and its dependencies come from Maven
# Central, resolved once and cached.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

VERSION=${ELASTICMQ_VERSION:-1.6.11}
PORT=${SQS_PORT:-19324}
CACHE=${AGENTMEM_CACHE:-/var/tmp/agentmem}
HOME_DIR="$CACHE/elasticmq-$VERSION"
RUN_DIR="$CACHE/elasticmq-run-$PORT"

url() { echo "http://127.0.0.1:$PORT"; }
up() { curl -s -o /dev/null -XPOST "$(url)/" -H 'Content-Type: application/x-amz-json-1.0' \
  -H 'X-Amz-Target: AmazonSQS.ListQueues' -d '{}' -w '%{http_code}' 2>/dev/null | grep -q 200; }

install() {
  [ -f "$HOME_DIR/.installed" ] && return
  echo "elasticmq.sh: resolving ElasticMQ $VERSION through Maven into $HOME_DIR" >&2
  maven_resolve "$HOME_DIR" "org.elasticmq:elasticmq-server_2.13:$VERSION"
}

start() {
  install
  if up; then echo "elasticmq.sh: already running at $(url)" >&2; url; return; fi
  rm -rf "$RUN_DIR" && mkdir -p "$RUN_DIR"
  cat > "$RUN_DIR/elasticmq.conf" <<CONF
include classpath("application.conf")
node-address { protocol = http, host = 127.0.0.1, port = $PORT, context-path = "" }
rest-sqs { enabled = true, bind-port = $PORT, bind-hostname = "127.0.0.1", sqs-limits = strict }
rest-stats { enabled = false }
CONF
  start_server "$RUN_DIR" up java -Xmx256m -Dconfig.file="$RUN_DIR/elasticmq.conf" -cp "$HOME_DIR/lib/*" org.elasticmq.server.Main
  echo "elasticmq.sh: up at $(url)" >&2
  url
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop_server "$RUN_DIR" ;;
  url) url ;;
  *) echo "usage: $0 install|start|stop|url" >&2; exit 2 ;;
esac
