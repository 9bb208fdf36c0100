#!/usr/bin/env bash
# Sets up, builds, and runs the main job on the project's own demo model:
# writes the demo LeNet program, a bundled MLP and a demo ETDump with the
# project's writers, then decodes them with et-dump-decode.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
out=build/demo
build/examples/etkit-make-demo "$out"
echo "== $out/lenet.pte: methods, operators and instruction counts"
build/tools/et-dump-decode "$out/lenet.pte" --pretty | head -n 40
echo "== $out/mlp.bpte: test suites (embedded program omitted)"
build/tools/et-dump-decode "$out/mlp.bpte" --pretty | grep -v '^ *[0-9]*,\?$' | head -n 40
echo "== $out/demo.etdp with its debug buffer, one event per line"
build/tools/et-dump-decode "$out/demo.etdp" --debug-buffer "$out/demo_debug.bin" --max-values 4 --jsonl
