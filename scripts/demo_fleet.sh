#!/usr/bin/env bash
# The et-fleet demo: builds the tools and the device-lab generator
# (examples/make_fleet_lab.cpp), writes a small lab of ETDumps (3 devices x
# 3 builds of the demo LeNet, 5 executions each, the last build with a 30%
# slower relu.out), then shows the wide table by device, the long table as a
# SQLite database with one of the documented queries, the HTML view by build
# (heat-coloured cells, a sparkline per op type), and the gate over one
# device's build history (which finds the relu.out regression: exit 1).
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 --target et-fleet etkit-make-demo etkit-make-fleet-lab >/dev/null
out=build/fleet-demo
rm -rf "$out"
build/examples/etkit-make-fleet-lab "$out/lab" --slow-op relu.out
build/examples/etkit-make-demo "$out/model" >/dev/null
echo
echo "== operators by device (p50 per device, ratio to pi5, share of each device's time), linked to the ETRecord"
build/tools/et-fleet compare --manifest "$out/lab/manifest.tsv" --by device --etrecord "$out/model/lenet.etrecord" \
  --time-unit us
echo
echo "== the same as Markdown, the three largest op types on pixel8"
build/tools/et-fleet compare --manifest "$out/lab/manifest.tsv" --by device --sort pixel8 --top 3 --format markdown \
  --time-unit us
build/tools/et-fleet compare --manifest "$out/lab/manifest.tsv" --by build --time-unit us --html "$out/by-build.html" \
  -o /dev/null
echo "(the history by build, with a sparkline per op type: $out/by-build.html)"
echo
echo "== the long table as SQLite: average time per op type and device"
build/tools/et-fleet collect --manifest "$out/lab/manifest.tsv" --format sqlite --time-unit us -o "$out/lab.db"
if command -v sqlite3 >/dev/null 2>&1; then
  sqlite3 -header -column "$out/lab.db" \
    "SELECT r.device, e.op_type, COUNT(*) AS samples, AVG(e.duration) AS avg_time FROM events e JOIN runs r USING (run_id) WHERE e.counted GROUP BY r.device, e.op_type ORDER BY r.device, e.op_type;"
fi
echo
echo "== the gate on pixel8's builds: build 003 against 001-002"
status=0
build/tools/et-fleet gate --manifest "$out/lab/manifest.tsv" --where device=pixel8 --order build --time-unit us || status=$?
echo "(exit $status: 1 means a significant regression)"
echo "wrote $out/lab (ETDumps and manifest.tsv), $out/lab.db and $out/by-build.html"
