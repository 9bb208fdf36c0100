#!/usr/bin/env bash
# The main job on the project's own demo model: sets up and builds, writes the
# demo LeNet-style CNN (and a bundled copy whose expected outputs come from a
# plain-loop reference) with the project's writers, runs it with et-run
# (profiling + intermediate outputs, bundled verification), and prints a short
# summary of the ETDump it wrote.
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
echo "== $out/lenet.etdp: mean time per kernel over the 10 runs (from et-dump-decode --jsonl)"
printf "%-48s %12s\n" "instruction  kernel" "mean (us)"
build/tools/et-dump-decode "$out/lenet.etdp" --jsonl | awk '
  /"run_name":"Execute"/ && /"name":"native_call_/ {
    match($0, /"name":"[^"]*"/); name = substr($0, RSTART + 8, RLENGTH - 9)
    match($0, /"instruction_id":[0-9]+/); id = substr($0, RSTART + 17, RLENGTH - 17)
    match($0, /"start_time":[0-9]+/); start = substr($0, RSTART + 13, RLENGTH - 13)
    match($0, /"end_time":[0-9]+/); end = substr($0, RSTART + 11, RLENGTH - 11)
    key = sprintf("%3d  %s", id, name); total[key] += end - start; count[key]++
  }
  END { for (key in total) printf "%-48s %12.2f\n", key, total[key] / count[key] / 1000 }' | sort -n
echo
echo "intermediate outputs logged: $(build/tools/et-dump-decode "$out/lenet.etdp" --jsonl | grep -c '"debug_event"') tensors in $out/lenet.etdp.debug.bin ($(stat -c %s "$out/lenet.etdp.debug.bin") bytes)"
