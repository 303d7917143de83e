#!/usr/bin/env bash
# openapi-check.sh: validates the API's OpenAPI document
# (pkg/transport/contract/openapi.json) as OpenAPI 3.1 with openapi-spec-validator,
# a standard validator from PyPI: the document against the OpenAPI 3.1
# schema, and each Schema Object against the 3.1 JSON Schema dialect. The
# tool lives in a virtual environment of the cache, installed the first time
# from scripts/openapi-requirements.txt (pinned, with hashes); later runs
# reuse it and need no network.
#
#   scripts/openapi-check.sh           install if needed, then validate
#   scripts/openapi-check.sh install   install only
#
# The Go tests keep the document true to the handler (route table, grants,
# real responses, the error table); this checks that it is valid OpenAPI.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${AGENTMEM_CACHE:-/var/tmp/agentmem}
LOCK="$ROOT/scripts/openapi-requirements.txt"
SPEC="$ROOT/pkg/transport/contract/openapi.json"

log() { echo "openapi-check.sh: $*" >&2; }

# find_python: OPENAPI_PYTHON, else python3 (3.9 or newer).
find_python() {
  local c
  for c in "${OPENAPI_PYTHON:-}" python3; do
    [ -n "$c" ] || continue
    if "$c" -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
      "$c" -c 'import sys; print(sys.executable)'
      return
    fi
  done
  log "Python 3.9 or newer is required (python3 on PATH, or OPENAPI_PYTHON)"
  return 1
}

# venv_dir: one environment per lock file and Python version.
venv_dir() {
  local pyver key
  pyver=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  key=$( (cat "$LOCK"; echo "$pyver") | sha256sum | cut -c1-12)
  echo "$CACHE/openapi-spec-validator-py$pyver-$key"
}

install() {
  [ -f "$VENV/.installed" ] && return
  log "installing openapi-spec-validator into $VENV"
  mkdir -p "$CACHE"
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check --require-hashes --no-deps -r "$LOCK" >&2 ||
    { log "pip could not install $LOCK"; rm -rf "$VENV"; return 1; }
  touch "$VENV/.installed"
}

PY=$(find_python)
VENV=$(venv_dir)
install
[ "${1:-}" = install ] && exit 0
"$VENV/bin/openapi-spec-validator" --schema 3.1 --validation-errors all "$SPEC"
