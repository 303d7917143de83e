#!/usr/bin/env bash
# A real single-node OpenSearch for tests and benchmarks, without Docker.
#
#   scripts/opensearch.sh install   fetch through Maven and assemble the node (cached)
#   scripts/opensearch.sh start     start it on loopback and wait for green; prints the URL
#   scripts/opensearch.sh stop      stop it and remove its data
#   scripts/opensearch.sh url       print the URL
#
# Everything comes from Maven Central: the minimal distribution
# (org.opensearch.distribution.integ-test-zip:opensearch, which holds only the
# transport module), the lang-painless and analysis-common modules as the jars
# OpenSearch publishes for plugin developers (laid out here as modules with
# their descriptors), and the k-NN plugin zip installed with opensearch-plugin.
# The k-NN zip has no native libraries, so indexes use the Lucene engine.
#
# OpenSearch refuses to run as root; as root the node runs as the system user
# "opensearch" (created if missing). Security is off, the node listens on
# 127.0.0.1 only, heap is OPENSEARCH_HEAP (default 768m).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

VERSION=${OPENSEARCH_VERSION:-2.19.1}
KNN_VERSION=${OPENSEARCH_KNN_VERSION:-${VERSION}.0}
PORT=${OPENSEARCH_PORT:-19200}
HEAP=${OPENSEARCH_HEAP:-768m}
CACHE=${AGENTMEM_CACHE:-/var/tmp/agentmem}
HOME_DIR="$CACHE/opensearch-$VERSION"
RUN_DIR="$CACHE/opensearch-run-$PORT"
M2=${MAVEN_REPO:-$HOME/.m2/repository}
RUN_USER=""
[ "$(id -u)" = 0 ] && RUN_USER=opensearch

log() { echo "opensearch.sh: $*" >&2; }

java_home() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then echo "$JAVA_HOME"; return; fi
  dirname "$(dirname "$(readlink -f "$(command -v java)")")"
}

fetch() { # group:artifact:version[:packaging]
  mvn -q -B dependency:get -Dartifact="$1" -Dtransitive=false >/dev/null ||
    { log "could not fetch $1 through Maven"; exit 1; }
}

m2path() { # group artifact version file
  echo "$M2/${1//.//}/$2/$3/$4"
}

install() {
  if [ -f "$HOME_DIR/.assembled" ]; then return; fi
  command -v mvn >/dev/null || { log "mvn is required"; exit 1; }
  command -v java >/dev/null || { log "java 11+ is required"; exit 1; }
  log "assembling OpenSearch $VERSION with k-NN $KNN_VERSION in $HOME_DIR"
  local asm=9.7 antlr=4.13.1
  fetch "org.opensearch.distribution.integ-test-zip:opensearch:$VERSION:zip"
  fetch "org.opensearch.plugin:opensearch-knn:$KNN_VERSION:zip"
  fetch "org.opensearch.plugin:lang-painless:$VERSION"
  fetch "org.opensearch.plugin:opensearch-scripting-painless-spi:$VERSION"
  fetch "org.opensearch.plugin:analysis-common:$VERSION"
  fetch "org.antlr:antlr4-runtime:$antlr"
  for a in asm asm-util asm-tree asm-commons asm-analysis; do fetch "org.ow2.asm:$a:$asm"; done

  rm -rf "$HOME_DIR" "$HOME_DIR.tmp"
  mkdir -p "$HOME_DIR.tmp"
  unzip -q "$(m2path org.opensearch.distribution.integ-test-zip opensearch "$VERSION" "opensearch-$VERSION.zip")" -d "$HOME_DIR.tmp"
  local node="$HOME_DIR.tmp/opensearch-$VERSION"

  local painless="$node/modules/lang-painless"
  mkdir -p "$painless"
  cp "$(m2path org.opensearch.plugin lang-painless "$VERSION" "lang-painless-$VERSION.jar")" \
     "$(m2path org.opensearch.plugin opensearch-scripting-painless-spi "$VERSION" "opensearch-scripting-painless-spi-$VERSION.jar")" \
     "$(m2path org.antlr antlr4-runtime "$antlr" "antlr4-runtime-$antlr.jar")" "$painless/"
  for a in asm asm-util asm-tree asm-commons asm-analysis; do
    cp "$(m2path org.ow2.asm "$a" "$asm" "$a-$asm.jar")" "$painless/"
  done
  cat > "$painless/plugin-descriptor.properties" <<DESC
description=Painless scripting language (module assembled from Maven Central)
version=$VERSION
name=lang-painless
classname=org.opensearch.painless.PainlessPlugin
java.version=11
opensearch.version=$VERSION
extended.plugins=
has.native.controller=false
DESC
  cat > "$painless/plugin-security.policy" <<'POLICY'
grant {
  permission java.lang.RuntimePermission "createClassLoader";
  permission java.lang.RuntimePermission "getClassLoader";
};
POLICY

  local common="$node/modules/analysis-common"
  mkdir -p "$common"
  cp "$(m2path org.opensearch.plugin analysis-common "$VERSION" "analysis-common-$VERSION.jar")" "$common/"
  cat > "$common/plugin-descriptor.properties" <<DESC
description=Built-in analyzers, including the language analyzers (module assembled from Maven Central)
version=$VERSION
name=analysis-common
classname=org.opensearch.analysis.common.CommonAnalysisPlugin
java.version=11
opensearch.version=$VERSION
extended.plugins=lang-painless
has.native.controller=false
DESC

  OPENSEARCH_JAVA_HOME=$(java_home) "$node/bin/opensearch-plugin" install --batch \
    "file://$(m2path org.opensearch.plugin opensearch-knn "$KNN_VERSION" "opensearch-knn-$KNN_VERSION.zip")" >/dev/null
  mv "$node" "$HOME_DIR"
  rm -rf "$HOME_DIR.tmp"
  touch "$HOME_DIR/.assembled"
  log "assembled"
}

url() { echo "http://127.0.0.1:$PORT"; }

healthy() {
  curl -fsS "$(url)/_cluster/health?wait_for_status=green&timeout=1s" 2>/dev/null | grep -q '"status":"green"'
}

start() {
  install
  if healthy; then log "already running at $(url)"; url; return; fi
  rm -rf "$RUN_DIR"
  mkdir -p "$RUN_DIR/config" "$RUN_DIR/data" "$RUN_DIR/logs" "$RUN_DIR/tmp"
  cp -r "$HOME_DIR/config/." "$RUN_DIR/config/"
  cat > "$RUN_DIR/config/opensearch.yml" <<YML
cluster.name: agentmem-test
node.name: node-1
discovery.type: single-node
network.host: 127.0.0.1
http.port: $PORT
transport.port: $((PORT + 100))
path.data: $RUN_DIR/data
path.logs: $RUN_DIR/logs
action.auto_create_index: false
cluster.routing.allocation.disk.threshold_enabled: false
YML
  sed -i -e "s/^-Xms.*/-Xms$HEAP/" -e "s/^-Xmx.*/-Xmx$HEAP/" \
    -e "s#file=logs/gc.log#file=$RUN_DIR/logs/gc.log#" -e "s#ErrorFile=logs/#ErrorFile=$RUN_DIR/logs/#" \
    -e "s#HeapDumpPath=data#HeapDumpPath=$RUN_DIR/data#" "$RUN_DIR/config/jvm.options"
  local jh; jh=$(java_home)
  local cmd=(env "OPENSEARCH_JAVA_HOME=$jh" "OPENSEARCH_PATH_CONF=$RUN_DIR/config" "OPENSEARCH_TMPDIR=$RUN_DIR/tmp"
    "$HOME_DIR/bin/opensearch" -d -p "$RUN_DIR/pid")
  cd "$RUN_DIR"
  if [ -n "$RUN_USER" ]; then
    id "$RUN_USER" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$RUN_USER"
    chmod 755 "$CACHE"
    chown -R "$RUN_USER" "$RUN_DIR"
    chmod -R a+rX "$HOME_DIR"
    runuser -u "$RUN_USER" -- "${cmd[@]}" >"$RUN_DIR/stdout.log" 2>&1 || { tail -20 "$RUN_DIR/stdout.log" >&2; exit 1; }
  else
    "${cmd[@]}" >"$RUN_DIR/stdout.log" 2>&1 || { tail -20 "$RUN_DIR/stdout.log" >&2; exit 1; }
  fi
  local t0=$SECONDS
  until healthy; do
    # The pid file appears once the JVM has bootstrapped; allow it 60 s.
    if { [ -f "$RUN_DIR/pid" ] && ! kill -0 "$(cat "$RUN_DIR/pid")" 2>/dev/null; } ||
       { [ ! -f "$RUN_DIR/pid" ] && [ $((SECONDS - t0)) -gt 60 ]; }; then
      log "the node exited; last log lines:"
      tail -n 30 "$RUN_DIR/logs/agentmem-test.log" "$RUN_DIR/stdout.log" >&2 || true
      exit 1
    fi
    if [ $((SECONDS - t0)) -gt 180 ]; then
      log "not green after 180 s; last log lines:"
      tail -n 30 "$RUN_DIR/logs/agentmem-test.log" "$RUN_DIR/stdout.log" >&2 || true
      exit 1
    fi
    sleep 0.5
  done
  log "green at $(url) after $((SECONDS - t0)) s"
  url
}

stop() { stop_server "$RUN_DIR"; }

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  url) url ;;
  *) echo "usage: $0 install|start|stop|url" >&2; exit 2 ;;
esac
