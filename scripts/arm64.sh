#!/usr/bin/env bash
# The arm64 path, exercised on an amd64 machine: the packages with arm64
# assembly (internal/vecdot's NEON kernels) and the embedded index that
# scores with them are cross-compiled for arm64 and their tests run under
# qemu-user (Debian's qemu-user-static, through apt, as scripts/browser.sh
# installs Chromium). Idempotent.
#
#   scripts/arm64.sh test      install qemu when missing, run the arm64 tests
#   scripts/arm64.sh bench     the kernels against the portable loops, under qemu
#
# On an arm64 machine the tests run natively instead.
set -euo pipefail

log() { echo "arm64.sh: $*" >&2; }

GO=${GO:-go}
PKGS=(./internal/vecdot ./pkg/index/bolt)

qemu() {
  if [ "$(uname -m)" = aarch64 ]; then return 0; fi
  if command -v qemu-aarch64-static >/dev/null 2>&1; then return 0; fi
  if ! command -v apt-get >/dev/null 2>&1; then
    log "no qemu-aarch64-static, and no apt-get to install Debian's qemu-user-static: install it"
    exit 1
  fi
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else log "installing qemu-user-static needs root"; exit 1; fi
  fi
  log "installing Debian's qemu-user-static package (apt)"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends qemu-user-static >&2
}

# run executes an arm64 binary, under qemu unless the machine is arm64.
run() {
  if [ "$(uname -m)" = aarch64 ]; then "$@"; else qemu-aarch64-static "$@"; fi
}

build() {
  local dir=$1 pkg=$2
  GOARCH=arm64 CGO_ENABLED=0 $GO vet "$pkg"
  GOARCH=arm64 CGO_ENABLED=0 $GO test -c -o "$dir/$(basename "$pkg").test" "$pkg"
}

case "${1:-}" in
  test)
    qemu
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    for p in "${PKGS[@]}"; do
      build "$dir" "$p"
      log "$p (arm64$( [ "$(uname -m)" = aarch64 ] || echo ', under qemu'))"
      # -test.short: the index's recall and restart tests on their small
      # corpora (emulation is some 30 times slower than native).
      (cd "$p" && run "$dir/$(basename "$p").test" -test.short -test.count=1)
    done
    ;;
  bench)
    qemu
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    build "$dir" ./internal/vecdot
    run "$dir/vecdot.test" -test.run '^$' -test.bench . -test.benchtime 200000x
    ;;
  *)
    echo "usage: $0 test|bench" >&2
    exit 2
    ;;
esac
