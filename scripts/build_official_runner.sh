#!/usr/bin/env bash
# Builds ExecuTorch's own executor_runner (examples/portable/executor_runner)
# from EXECUTORCH_DIR, a checkout (nothing of it enters this repository), for
# whole-program comparisons with et-run (scripts/compare_runner.sh; issue #15).
# The runtime, the file data loader, runner_util, prim ops and the portable
# operators the fixtures' programs call are compiled with ExecuTorch's CMake
# Release flags; the schema headers come from Debian's flatc, gflags from
# Debian, and the operator registration torchgen would generate from
# bench/official/runner/register_kernels.cpp. Method and figures:
# docs/performance.md.
#
# usage: build_official_runner.sh EXECUTORCH_DIR OUTDIR [--logging] [--constant-buffer] [--etdump FLATCC_DIR]
#   OUTDIR      gets executor_runner, and build/ (kept for rebuilds)
#   --logging   ET_LOG on (ExecuTorch's Debug default) to see why a program
#               fails; off in its Release build, and off by default here
#   --constant-buffer  the deprecated constant_buffer path, for programs with
#               their constants inline (compiled out by ExecuTorch's build)
#   --etdump FLATCC_DIR  trace as EXECUTORCH_ENABLE_EVENT_TRACER does (ETDumpGen,
#               --etdump_path) with flatcc (not in Debian) built in place in
#               FLATCC_DIR (bin/flatcc, lib/libflatccrt.a, include/)
# Exit: 0 built (OUTDIR/executor_runner), 2 usage, or EXECUTORCH_DIR not an
#       ExecuTorch checkout that builds (the log's last lines are shown).
set -euo pipefail

usage() {
  sed -n '12,22p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

repo=$(cd "$(dirname "$0")/.." && pwd)
positional=() logging=OFF constant_buffer=OFF flatcc_dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --logging) logging=ON; shift ;;
    --constant-buffer) constant_buffer=ON; shift ;;
    --etdump) flatcc_dir=${2-}; shift 2 || usage ;;
    -h|--help) usage ;;
    -*) echo "$0: unknown option $1" >&2; usage ;;
    *) positional+=("$1"); shift ;;
  esac
done
if [ ${#positional[@]} -ne 2 ]; then
  echo "$0: EXECUTORCH_DIR and OUTDIR are required" >&2
  usage
fi
et_dir=${positional[0]} out_dir=${positional[1]}
for f in examples/portable/executor_runner/executor_runner.cpp schema/program.fbs runtime/executor/method.cpp \
         kernels/portable/cpu/op_add.cpp kernels/prim_ops/register_prim_ops.cpp extension/runner_util/inputs.cpp; do
  if [ ! -f "$et_dir/$f" ]; then
    echo "$0: $et_dir is not an ExecuTorch checkout (no $f)" >&2
    exit 2
  fi
done
for tool in cmake flatc; do
  command -v "$tool" >/dev/null || { echo "$0: $tool is missing (scripts/setup.sh installs it)" >&2; exit 2; }
done
if [ -n "$flatcc_dir" ]; then
  for f in bin/flatcc lib/libflatccrt.a include/flatcc/flatcc_builder.h; do
    [ -e "$flatcc_dir/$f" ] || { echo "$0: $flatcc_dir is not a built flatcc tree (no $f)" >&2; exit 2; }
  done
  flatcc_dir=$(cd "$flatcc_dir" && pwd)
fi
et_dir=$(cd "$et_dir" && pwd)
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)
build_dir=$out_dir/build

launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
mkdir -p "$build_dir"
if ! cmake -S "$repo/bench/official/runner" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
      -DEXECUTORCH_DIR="$et_dir" -DOFFICIAL_LOGGING="$logging" \
      -DOFFICIAL_CONSTANT_BUFFER="$constant_buffer" -DOFFICIAL_FLATCC_DIR="$flatcc_dir" >"$build_dir/configure.log" 2>&1 ||
   ! cmake --build "$build_dir" -j2 >"$build_dir/build.log" 2>&1; then
  echo "$0: building executor_runner from $et_dir failed; the last lines of the log:" >&2
  tail -n 20 "$build_dir"/build.log "$build_dir"/configure.log 2>/dev/null >&2 || true
  exit 2
fi
cp "$build_dir/executor_runner" "$out_dir/executor_runner"
echo "ExecuTorch: $et_dir ($(git -C "$et_dir" rev-parse --short HEAD 2>/dev/null || echo "not a git work tree"))"
echo "built: $out_dir/executor_runner"
