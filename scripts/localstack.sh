#!/usr/bin/env bash
# LocalStack (the community runtime, from PyPI) for tests, without Docker.
#
#   scripts/localstack.sh install   create its Python virtual environment and DynamoDB Local's layout (cached)
#   scripts/localstack.sh start     start it on loopback and wait until its services run; prints the endpoint URL
#   scripts/localstack.sh stop      stop it and drop its state
#   scripts/localstack.sh url       print the endpoint URL
#   scripts/localstack.sh env       print the environment an AWS SDK needs to use it (export lines)
#   scripts/localstack.sh python    print the venv's Python (it has boto3; localstack/smoke.py checks a running one)
#
# localstack-core[runtime] 2026.3.0 and every dependency come pinned with
# hashes from localstack/requirements.txt into a virtual environment keyed on
# that file and the Python version (3.12 or newer: LocalStack's code uses
# 3.12 syntax; LOCALSTACK_PYTHON picks the interpreter). It runs in host mode
# with state under a run directory removed by stop (in memory for DynamoDB).
#
# LocalStack's DynamoDB runs DynamoDB Local, which it would download at run
# time. Instead it finds, where it looks for preinstalled packages, the
# DynamoDB Local that scripts/dynamodb.sh resolves through Maven (behind a
# launcher jar), a no-op in place of its Java agent (the agent only lifts the
# 20 GSI limit), and the JDK of `java` as its Java.
#
# Services: LOCALSTACK_SERVICES (default below), each loaded at its first
# request; DynamoDB's (which starts DynamoDB Local) before start returns.
# LOCALSTACK_INIT=1 also runs localstack/init/ready.d as the Docker setup does
# (awslocal is then the venv's AWS CLI with the endpoint set) and waits for it;
# the tests create their own tables, buckets and queues and need none of it.
# Nothing reaches outside loopback: LocalStack's DNS server, certificate
# download, analytics and license-catalog look-ups are off or pointed at a
# closed loopback port.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
. "$HERE/lib.sh"

VERSION=2026.3.0 # localstack-core, as pinned in localstack/requirements.txt
PORT=${LOCALSTACK_PORT:-14566}
SERVICES=${LOCALSTACK_SERVICES:-s3,sqs,dynamodb,events,cloudformation,iam,sts,ssm,logs,sns,cloudwatch,apigateway}
INIT=${LOCALSTACK_INIT:-0}
START_TIMEOUT=${LOCALSTACK_START_TIMEOUT:-300}
REGION=${AWS_REGION:-${AWS_DEFAULT_REGION:-us-east-1}}
DDB_VERSION=${DYNAMODB_LOCAL_VERSION:-2.6.1}
CACHE=${AGENTMEM_CACHE:-/var/tmp/agentmem}
LOCK="$ROOT/localstack/requirements.txt"
DDB_HOME="$CACHE/dynamodb-local-$DDB_VERSION" # scripts/dynamodb.sh's
DDB_LAYOUT="$CACHE/localstack-dynamodb-local-$DDB_VERSION"
RUN_DIR="$CACHE/localstack-run-$PORT"

log() { echo "localstack.sh: $*" >&2; }
url() { echo "http://127.0.0.1:$PORT"; }

aws_env() {
  echo "export AWS_ENDPOINT_URL=$(url)"
  echo "export AWS_REGION=$REGION AWS_DEFAULT_REGION=$REGION"
  echo "export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test"
}

# find_python: the first interpreter of 3.12 or newer (LOCALSTACK_PYTHON, then
# python3.13 and python3.12 on PATH, then pyenv's, then python3).
find_python() {
  local pyenv=${PYENV_ROOT:-$HOME/.pyenv} c
  for c in "${LOCALSTACK_PYTHON:-}" python3.13 python3.12 "$pyenv"/versions/3.13*/bin/python3 \
      "$pyenv"/versions/3.12*/bin/python3 python3; do
    [ -n "$c" ] || continue
    if "$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
      "$c" -c 'import sys; print(sys.executable)'
      return
    fi
  done
  log "LocalStack $VERSION needs Python 3.12 or newer (set LOCALSTACK_PYTHON)"
  return 1
}

venv_dir() {
  local py=$1 pyver key
  pyver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  key=$( (cat "$LOCK"; echo "$pyver") | sha256sum | cut -c1-12)
  echo "$CACHE/localstack-$VERSION-py$pyver-$key"
}

java_home() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then echo "$JAVA_HOME"; return; fi
  dirname "$(dirname "$(readlink -f "$(command -v java)")")"
}

install_venv() {
  [ -f "$VENV/.installed" ] && return
  log "installing LocalStack $VERSION into $VENV"
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check --require-hashes --no-deps -r "$LOCK" >&2 ||
    { log "pip could not install $LOCK"; rm -rf "$VENV"; return 1; }
  touch "$VENV/.installed"
}

# install_catalog: LocalStack's index of the AWS service specs, which it would
# otherwise build at its first start (20 s and more); it loads it from its
# static libs.
install_catalog() {
  compgen -G "$VENV/localstack-static/service-catalog-*.dill" >/dev/null && return
  log "building LocalStack's service catalog index"
  rm -rf "$VENV/localstack-static" && mkdir -p "$VENV/localstack-static.tmp" "$VENV/localstack-cache"
  env OVERRIDE_IN_DOCKER=0 FILESYSTEM_ROOT="$VENV/localstack-fs" "$VENV/bin/python" -c '
import os, sys
from localstack.aws.spec import _get_catalog_filename, build_service_index_cache
build_service_index_cache(os.path.join(sys.argv[1], _get_catalog_filename()))' "$VENV/localstack-static.tmp"
  mv "$VENV/localstack-static.tmp" "$VENV/localstack-static"
}

# install_dynamodb_layout: DynamoDB Local laid out as LocalStack's installer
# leaves it (DynamoDBLocal.jar, DynamoDBLocal_lib/ with the native library,
# ddb-local-loader-0.1.jar as the -javaagent).
install_dynamodb_layout() {
  [ -f "$DDB_LAYOUT/.installed" ] && return
  command -v javac >/dev/null && command -v jar >/dev/null || { log "a JDK (javac, jar) is required"; return 1; }
  DYNAMODB_LOCAL_VERSION=$DDB_VERSION "$HERE/dynamodb.sh" install
  log "laying out DynamoDB Local $DDB_VERSION for LocalStack in $DDB_LAYOUT"
  local d="$DDB_LAYOUT.tmp" j
  rm -rf "$d" && mkdir -p "$d/DynamoDBLocal_lib" "$d/build/classes/agentmem"
  cp "$DDB_HOME/native/libsqlite4java-linux-amd64.so" "$d/DynamoDBLocal_lib/"
  {
    echo "Main-Class: com.amazonaws.services.dynamodbv2.local.main.ServerRunner"
    echo "Class-Path: ."
    for j in "$DDB_HOME"/lib/*.jar; do
      ln -s "$j" "$d/DynamoDBLocal_lib/"
      echo "  DynamoDBLocal_lib/${j##*/}"
    done
  } >"$d/build/launcher.mf"
  cat >"$d/build/NoopAgent.java" <<'JAVA'
package agentmem;

/** Stands in for LocalStack's DynamoDB Local agent; changes nothing. */
public final class NoopAgent {
  public static void premain(String args, java.lang.instrument.Instrumentation inst) {}
}
JAVA
  printf 'Premain-Class: agentmem.NoopAgent\n' >"$d/build/agent.mf"
  javac -nowarn --release 11 -d "$d/build/classes" "$d/build/NoopAgent.java"
  (cd "$d/build" && jar --create --file ../DynamoDBLocal.jar --manifest launcher.mf &&
    jar --create --file ../ddb-local-loader-0.1.jar --manifest agent.mf -C classes .)
  rm -rf "$d/build" "$DDB_LAYOUT" && mv "$d" "$DDB_LAYOUT"
  # the symlinks point into DDB_HOME, which did not move
  touch "$DDB_LAYOUT/.installed"
}

install() {
  PY=$(find_python)
  VENV=$(venv_dir "$PY")
  mkdir -p "$CACHE"
  install_venv
  install_catalog
  install_dynamodb_layout
}

# answers: the gateway serves its health endpoint.
answers() { curl -sf --max-time 5 -o /dev/null "$(url)/_localstack/health" 2>/dev/null; }

# up: every service of SERVICES is available (or running), DynamoDB answers
# (its first request starts DynamoDB Local) and, with INIT, the ready.d
# scripts have completed.
up() {
  curl -sf --max-time 5 "$(url)/_localstack/health" 2>/dev/null | "$VENV/bin/python" -c '
import json, sys
services = json.load(sys.stdin).get("services", {})
sys.exit(any(services.get(s) not in ("available", "running") for s in sys.argv[1].split(",")))' "$SERVICES" \
    2>/dev/null || return 1
  if [[ ,$SERVICES, == *,dynamodb,* ]]; then
    [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 120 -X POST "$(url)/" \
      -H 'Content-Type: application/x-amz-json-1.0' -H 'X-Amz-Target: DynamoDB_20120810.ListTables' \
      -H "Authorization: AWS4-HMAC-SHA256 Credential=test/20260101/$REGION/dynamodb/aws4_request, SignedHeaders=host, Signature=0" \
      -d '{}' 2>/dev/null)" = 200 ] || return 1
  fi
  [ "$INIT" = 0 ] || curl -sf --max-time 5 "$(url)/_localstack/init/ready" 2>/dev/null | grep -q '"completed": true'
}

start() {
  install
  if up; then log "already running at $(url)"; url; return; fi
  rm -rf "$RUN_DIR" && mkdir -p "$RUN_DIR/bin"
  # host mode keeps everything under FILESYSTEM_ROOT; preinstalled packages
  # are looked up in its usr/lib/localstack
  local fs="$RUN_DIR/fs" libs="$RUN_DIR/fs/usr/lib/localstack"
  mkdir -p "$libs/dynamodb-local" "$libs/java" "$fs/etc/localstack/init" "$fs/var/lib/localstack"
  ln -s "$DDB_LAYOUT" "$libs/dynamodb-local/2"
  ln -s "$(java_home)" "$libs/java/21"
  ln -s "$VENV"/localstack-static/* "$libs/"
  ln -s "$VENV/localstack-cache" "$fs/var/lib/localstack/cache"
  [ "$INIT" = 0 ] || ln -s "$ROOT/localstack/init/ready.d" "$fs/etc/localstack/init/ready.d"
  cat >"$RUN_DIR/bin/awslocal" <<SH
#!/bin/sh
AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=$REGION \\
  exec "$VENV/bin/aws" --endpoint-url "$(url)" "\$@"
SH
  chmod +x "$RUN_DIR/bin/awslocal"
  local closed=http://127.0.0.1:1 # nothing listens there: any call home fails at once
  # LocalStack's main, less its one DNS look-up (whether s3.<LOCALSTACK_HOST>
  # resolves, for internal S3 clients): they use localhost
  local MAIN='import localstack.utils.aws.aws_stack as s
s.CACHE_S3_HOSTNAME_DNS_STATUS = False
from localstack.runtime.main import main
main()'
  start_server "$RUN_DIR" answers env PATH="$RUN_DIR/bin:$PATH" \
    OVERRIDE_IN_DOCKER=0 FILESYSTEM_ROOT="$fs" \
    GATEWAY_LISTEN="127.0.0.1:$PORT" LOCALSTACK_HOST="127.0.0.1:$PORT" \
    SERVICES="$SERVICES" \
    DYNAMODB_IN_MEMORY=1 DYNAMODB_HEAP_SIZE="${DYNAMODB_HEAP_SIZE:-512m}" SQS_ENDPOINT_STRATEGY=path AWS_DEFAULT_REGION="$REGION" \
    DNS_ADDRESS=0 SKIP_SSL_CERT_DOWNLOAD=1 DISABLE_EVENTS=1 API_ENDPOINT="$closed" ANALYTICS_API="$closed" \
    "$VENV/bin/python" -c "$MAIN" || { stop; return 1; }
  local t0=$SECONDS
  until up; do
    if ! kill -0 "$(cat "$RUN_DIR/pid")" 2>/dev/null || [ $((SECONDS - t0)) -gt "$START_TIMEOUT" ]; then
      log "LocalStack answers but its services did not come up in $START_TIMEOUT s; log:"
      tail -n 20 "$RUN_DIR/server.log" >&2
      stop
      return 1
    fi
    sleep 0.5
  done
  log "up at $(url) (services $SERVICES; log $RUN_DIR/server.log)"
  url
}

descendants() {
  local p
  for p in $(pgrep -P "$1" || true); do echo "$p"; descendants "$p"; done
}

# stop: LocalStack stops DynamoDB Local itself on TERM; whatever of its
# children is left after that (a KILL after 30 s) is ended too.
stop() {
  local kids=""
  if [ -f "$RUN_DIR/pid" ]; then kids=$(descendants "$(cat "$RUN_DIR/pid")"); fi
  stop_server "$RUN_DIR"
  for k in $kids; do kill "$k" 2>/dev/null || true; done
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  url) url ;;
  env) aws_env ;;
  python) install && echo "$VENV/bin/python" ;;
  *) echo "usage: $0 install|start|stop|url|env|python" >&2; exit 2 ;;
esac
