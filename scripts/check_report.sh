#!/usr/bin/env bash
# Opens an HTML report in headless Chromium, as a person would look at it,
# with the network blocked, and keeps what the browser saw:
#   OUT_DIR/dom.html        the DOM after the page's script ran
#   OUT_DIR/console.txt     every console message (the report logs none)
#   OUT_DIR/netlog.json     Chromium's network log (a test can list requests)
#   OUT_DIR/screenshot.png  the first WIDTHxHEIGHT pixels of the page
# Prints the report's self-check line and the console message count.
# Exit: 0 the page rendered (status "ok") without console messages,
#       1 it did not, 2 usage, 77 Chromium is not installed (skip).
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 REPORT.html[#FRAGMENT] OUT_DIR [WIDTHxHEIGHT]" >&2
  exit 2
fi
browser=${CHROMIUM:-}
if [ -z "$browser" ]; then
  for candidate in chromium chromium-browser; do
    if command -v "$candidate" >/dev/null 2>&1; then browser=$candidate; break; fi
  done
fi
if [ -z "$browser" ]; then
  echo "skip: chromium is not installed (Debian package 'chromium', see scripts/setup.sh)"
  exit 77
fi

# REPORT may carry a URL fragment (report.html#sort=avg-desc).
fragment=""
case "$1" in *'#'*) fragment="#${1#*#}" ;; esac
report=$(realpath "${1%%#*}")
out=$2
size=${3:-1400x2000}
mkdir -p "$out"

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# Off the network: every request goes to a closed local port and no name
# resolves; background services are switched off.
flags=(
  --headless=new --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile"
  --no-first-run --no-default-browser-check --disable-extensions --disable-sync --disable-default-apps
  --disable-background-networking --disable-component-update --disable-domain-reliability
  --disable-client-side-phishing-detection --disable-breakpad
  --proxy-server=127.0.0.1:9 --host-resolver-rules="MAP * ~NOTFOUND"
  --enable-logging=stderr --v=0 --virtual-time-budget=5000
)

timeout 120 "$browser" "${flags[@]}" --log-net-log="$out/netlog.json" --dump-dom "file://$report$fragment" \
  >"$out/dom.html" 2>"$out/chromium.log" || {
  echo "chromium failed (exit $?); its log:"
  tail -n 20 "$out/chromium.log"
  exit 1
}
timeout 120 "$browser" "${flags[@]}" --window-size="${size/x/,}" --screenshot="$out/screenshot.png" \
  "file://$report$fragment" >/dev/null 2>>"$out/chromium.log" || {
  echo "chromium failed to take the screenshot (exit $?)"
  exit 1
}

grep ':CONSOLE' "$out/chromium.log" >"$out/console.txt" || true
messages=$(wc -l <"$out/console.txt")
status=$(grep -o 'id="report-status" data-status="[a-z]*">[^<]*' "$out/dom.html" | sed 's/.*data-status="//; s/">/: /' || true)
echo "report-status: ${status:-missing}"
echo "console messages: $messages"
if [ "$messages" -ne 0 ]; then cat "$out/console.txt"; fi
case "$status" in
  ok:*) [ "$messages" -eq 0 ] ;;
  *) exit 1 ;;
esac
