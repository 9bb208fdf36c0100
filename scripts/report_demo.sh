#!/usr/bin/env bash
# The visualization demo on the project's demo LeNet: builds the tools, runs
# the CNN with et-run (10 recorded runs after 2 warm-ups, profiling and
# intermediate outputs), then writes with et-inspect an HTML report and a
# Chrome trace, and with et-graph the program graph (DOT, and SVG when
# Graphviz is installed). With Chromium installed, it opens the report
# headless (network blocked) and saves a screenshot; --update-docs copies it
# to docs/report-demo.png.
set -euo pipefail
cd "$(dirname "$0")/.."
update_docs=false
[ "${1:-}" = "--update-docs" ] && update_docs=true

./scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target etkit-make-demo et-run et-inspect et-graph >/dev/null
out=build/report-demo
mkdir -p "$out"
build/examples/etkit-make-demo "$out"
build/tools/et-run "$out/lenet.bpte" --iterations 10 --warmup 2 --etdump "$out/lenet.etdp" \
  --debug-level intermediates --quiet

build/tools/et-inspect "$out/lenet.etdp" --etrecord "$out/lenet.etrecord" --debug-buffer "$out/lenet.etdp.debug.bin" \
  --program "$out/lenet.bpte" --html "$out/report.html" -o "$out/table.txt"
build/tools/et-inspect "$out/lenet.etdp" --etrecord "$out/lenet.etrecord" --format chrome-trace -o "$out/trace.json"
build/tools/et-graph "$out/lenet.bpte" --etdump "$out/lenet.etdp" -o "$out/graph.dot"
if command -v dot >/dev/null 2>&1; then
  build/tools/et-graph "$out/lenet.bpte" --etdump "$out/lenet.etdp" --format svg -o "$out/graph.svg"
fi
echo "wrote $out/report.html, $out/trace.json (open it in Perfetto or chrome://tracing), $out/graph.dot"

status=0
./scripts/check_report.sh "$out/report.html" "$out/browser" 1400x1800 || status=$?
if [ "$status" -eq 0 ] && $update_docs; then
  cp "$out/browser/screenshot.png" docs/report-demo.png
  echo "updated docs/report-demo.png"
fi
[ "$status" -eq 77 ] && exit 0
exit "$status"
