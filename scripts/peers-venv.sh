#!/usr/bin/env bash
# peers-venv.sh: prints the Python of the virtual environment that
# make bench-peers runs scripts/bench_peers.py in (LanceDB, Chroma, tantivy,
# numpy, pyarrow), installing it the first time from
# scripts/peers-requirements.txt (pinned, with hashes; about 900 MB); later
# runs reuse it and need no network.
#
#   scripts/peers-venv.sh    install if needed, then print the venv's python
#
# PEERS_PYTHON picks the interpreter (CPython 3.11 to 3.13, the versions the
# lock file has wheels for); the default is python3.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${AGENTMEM_CACHE:-/var/tmp/agentmem}
LOCK="$ROOT/scripts/peers-requirements.txt"

log() { echo "peers-venv.sh: $*" >&2; }

PY=${PEERS_PYTHON:-python3}
if ! "$PY" -c 'import sys; sys.exit(not ((3, 11) <= sys.version_info[:2] <= (3, 13)))' 2>/dev/null; then
  log "CPython 3.11 to 3.13 is required (python3 on PATH, or PEERS_PYTHON); scripts/peers-requirements.txt pins wheels for those"
  exit 1
fi
pyver=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
key=$( (cat "$LOCK"; echo "$pyver") | sha256sum | cut -c1-12)
VENV="$CACHE/bench-peers-py$pyver-$key"
if [ ! -f "$VENV/.installed" ]; then
  log "installing the peers into $VENV (first run only)"
  mkdir -p "$CACHE"
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check --require-hashes --no-deps -r "$LOCK" >&2 ||
    { log "pip could not install $LOCK"; rm -rf "$VENV"; exit 1; }
  "$VENV/bin/python" -c 'import lancedb, chromadb, tantivy, numpy, pyarrow' ||
    { log "the peers do not import"; rm -rf "$VENV"; exit 1; }
  touch "$VENV/.installed"
fi
echo "$VENV/bin/python"
