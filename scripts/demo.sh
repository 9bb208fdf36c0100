#!/usr/bin/env bash
# The main job on the project's own demo model: sets up and builds, writes the
# demo LeNet-style CNN (and a bundled copy whose expected outputs come from a
# plain-loop reference) with the project's writers, runs it with et-run
# (profiling + intermediate outputs, bundled verification), and prints with
# et-inspect the per-kernel table linked to the demo's ETRecord and the time
# per op type; it also writes an HTML report and a Chrome trace. Then the same
# network lowered to one XNNPACK delegate: et-run interprets the delegate on
# the host, verifies it against the plain-loop reference, and et-inspect shows
# the time of every node inside the delegate, linked to lenet.py.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
out=build/demo
build/examples/etkit-make-demo "$out"

echo "== et-run: the demo CNN, bundled test case 0, 10 recorded runs after 2 warmups"
build/tools/et-run "$out/lenet.bpte" --verify --iterations 10 --warmup 2 \
  --etdump "$out/lenet.etdp" --debug-level intermediates --print-outputs

echo
echo "== et-inspect: the 10 runs per kernel, linked to the ETRecord (module path and source line)"
build/tools/et-inspect --etdump "$out/lenet.etdp" --etrecord "$out/lenet.etrecord" --block Execute \
  --source --columns event_name,p50,avg,max,module,source

echo
echo "== et-inspect --group-by op-type: where the time goes"
build/tools/et-inspect --etdump "$out/lenet.etdp" --etrecord "$out/lenet.etrecord" --block Execute \
  --group-by op-type

build/tools/et-inspect --etdump "$out/lenet.etdp" --etrecord "$out/lenet.etrecord" \
  --debug-buffer "$out/lenet.etdp.debug.bin" --program "$out/lenet.bpte" \
  --html "$out/report.html" --format chrome-trace -o "$out/trace.json"
echo
echo "== et-run: the demo CNN lowered to XNNPACK (one delegate call), bundled test case 0, 10 runs"
build/tools/et-run "$out/lenet_xnnpack.bpte" --verify --iterations 10 --warmup 2 --etdump "$out/lenet_xnnpack.etdp"
echo
echo "== et-inspect: inside the delegate, per XNNPACK node, linked to lenet.py through the nodes' debug handles"
build/tools/et-inspect --etdump "$out/lenet_xnnpack.etdp" --etrecord "$out/lenet_xnnpack.etrecord" --block Execute \
  --source --columns event_name,p50,avg,module,source

echo
echo "intermediate outputs logged: $(build/tools/et-dump-decode "$out/lenet.etdp" --jsonl | grep -c '"debug_event"') tensors in $out/lenet.etdp.debug.bin ($(stat -c %s "$out/lenet.etdp.debug.bin") bytes)"
echo "wrote $out/report.html (open it in a browser) and $out/trace.json (Perfetto, chrome://tracing)"
