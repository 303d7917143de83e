#!/usr/bin/env bash
# Headless Chromium for the memory explorer's browser tests
# (pkg/transport/httpapi/ui), from Debian's "chromium" package through apt: no
# browser download by a test library. Idempotent.
#
#   scripts/browser.sh install   install when missing, check it starts headless, print its path
#   scripts/browser.sh path      print the path of an installed Chromium (exit 1 when none)
set -euo pipefail

log() { echo "browser.sh: $*" >&2; }

find_browser() {
  if [ -n "${CHROME_PATH:-}" ] && [ -x "$CHROME_PATH" ]; then echo "$CHROME_PATH"; return 0; fi
  for name in chromium chromium-browser google-chrome headless-shell; do
    if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return 0; fi
  done
  return 1
}

install() {
  if find_browser >/dev/null; then return 0; fi
  if ! command -v apt-get >/dev/null 2>&1; then
    log "no Chromium, and no apt-get to install Debian's package: install chromium, or set CHROME_PATH"
    exit 1
  fi
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else log "installing chromium needs root"; exit 1; fi
  fi
  log "installing Debian's chromium package (apt)"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >&2
}

# smoke checks that the browser renders a page headless.
smoke() {
  local bin=$1 flags=(--headless --disable-gpu --dump-dom)
  if [ "$(id -u)" = 0 ]; then flags+=(--no-sandbox); fi
  if ! "$bin" "${flags[@]}" 'data:text/html,<p>browser-ok</p>' 2>/dev/null | grep -q browser-ok; then
    log "$bin did not render a page headless"
    exit 1
  fi
}

case "${1:-}" in
  install)
    install
    bin=$(find_browser) || { log "chromium is not on PATH after installing"; exit 1; }
    smoke "$bin"
    echo "$bin"
    ;;
  path)
    find_browser
    ;;
  *)
    echo "usage: $0 install|path" >&2
    exit 2
    ;;
esac
