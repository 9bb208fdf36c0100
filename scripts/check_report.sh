#!/usr/bin/env bash
# Opens an HTML report in headless Chromium, as a person would look at it,
# with the network blocked, and keeps what the browser saw:
#   OUT_DIR/dom.html        the DOM after the page's script ran
#   OUT_DIR/console.txt     every console message (the report logs none)
#   OUT_DIR/netlog.json     Chromium's network log (a test can list requests)
#   OUT_DIR/screenshot.png  the first WIDTHxHEIGHT pixels of the page
# Prints the report's self-check line and the console message count.
# Exit: 0 the page rendered (status "ok") without console messages,
#       1 it did not, 2 usage (or no such report), 77 Chromium is not
#       installed (skip).
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 REPORT.html[#FRAGMENT] OUT_DIR [WIDTHxHEIGHT]" >&2
  exit 2
fi
# REPORT may carry a URL fragment (report.html#sort=avg-desc); a fragment
# holds no '#', so a file name with one still works.
report=$1
fragment=""
if [ ! -f "$report" ]; then
  case "$1" in *'#'*) report=${1%#*} fragment="#${1##*#}" ;; esac
fi
if [ ! -f "$report" ]; then
  echo "$0: no such report: $report" >&2
  exit 2
fi
report=$(realpath "$report")
out=$2
size=${3:-1400x2000}

# A path as a file: URL path: every byte but the unreserved ones and '/'
# percent-encoded (spaces, '#', '%', non-ASCII).
url_path() {
  local byte encoded=""
  for byte in $(printf '%s' "$1" | od -An -v -tx1); do
    case $byte in
      2[d-f] | 3[0-9] | 4[1-9a-f] | 5[0-9a] | 5f | 6[1-9a-f] | 7[0-9a] | 7e) encoded+=$(printf "\\x$byte") ;;
      *) encoded+="%${byte^^}" ;;
    esac
  done
  printf '%s' "$encoded"
}
url="file://$(url_path "$report")$fragment"

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

timeout 120 "$browser" "${flags[@]}" --log-net-log="$out/netlog.json" --dump-dom "$url" \
  >"$out/dom.html" 2>"$out/chromium.log" || {
  echo "chromium failed (exit $?); its log:"
  tail -n 20 "$out/chromium.log"
  exit 1
}
timeout 120 "$browser" "${flags[@]}" --window-size="${size/x/,}" --screenshot="$out/screenshot.png" \
  "$url" >/dev/null 2>>"$out/chromium.log" || {
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
