#!/usr/bin/env bash
# Times ExecuTorch's portable kernels against etkit's on the shapes of the
# fixtures' programs (issue #15). The official operators are compiled from
# EXECUTORCH_DIR (a checkout; nothing of it enters this repository) together
# with bench/official/compare_official_kernels.cpp in a Release build (-O3,
# the compiler CMake picks), which prints a Markdown table: operator,
# fixture, shape, official us, ours us, ratio, and whether the outputs are
# identical. Method and figures: docs/performance.md.
#
# usage: compare_official_kernels.sh EXECUTORCH_DIR [options]
#   --build-dir DIR    configure and build there (kept; default: a temporary
#                      directory, removed afterwards). An existing etkit
#                      build directory saves rebuilding the runner.
#   --tolerance F      a case counts as slower when ours > official x (1 + F)
#                      (default 0.10)
#   --budget-ms MS     timing budget per case and side (default 300)
#   --only OP          only operators whose name contains OP
# Exit: 0 every case as fast (within the tolerance) and outputs matching,
#       1 some case slower, its outputs different, or a kernel failed,
#       2 usage, or EXECUTORCH_DIR not an ExecuTorch checkout that builds.
set -euo pipefail

usage() {
  sed -n '10,20p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

repo=$(cd "$(dirname "$0")/.." && pwd)
et_dir="" build_dir="" harness_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=${2-}; shift 2 || usage ;;
    --tolerance|--budget-ms|--only) [ $# -ge 2 ] || usage; harness_args+=("$1" "$2"); shift 2 ;;
    -h|--help) usage ;;
    -*) echo "$0: unknown option $1" >&2; usage ;;
    *) [ -z "$et_dir" ] || { echo "$0: more than one EXECUTORCH_DIR" >&2; usage; }; et_dir=$1; shift ;;
  esac
done
[ -n "$et_dir" ] || { echo "$0: EXECUTORCH_DIR is required" >&2; usage; }
for f in kernels/portable/cpu/op_relu.cpp runtime/core/portable_type/tensor_impl.cpp \
         runtime/core/portable_type/c10/c10/util/irange.h; do
  if [ ! -f "$et_dir/$f" ]; then
    echo "$0: $et_dir is not an ExecuTorch checkout (no $f)" >&2
    exit 2
  fi
done
et_dir=$(cd "$et_dir" && pwd)

if [ -z "$build_dir" ]; then
  build_dir=$(mktemp -d "${TMPDIR:-/tmp}/etkit-official.XXXXXX")
  trap 'rm -rf "$build_dir"' EXIT
fi
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
if ! cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
      -DETKIT_OFFICIAL_EXECUTORCH_DIR="$et_dir" >"$build_dir/configure.log" 2>&1 ||
   ! cmake --build "$build_dir" -j2 --target compare_official_kernels >"$build_dir/build.log" 2>&1; then
  echo "$0: building against $et_dir failed; the last lines of the log:" >&2
  tail -n 20 "$build_dir"/build.log "$build_dir"/configure.log 2>/dev/null >&2 || true
  exit 2
fi

echo "ExecuTorch: $et_dir ($(git -C "$et_dir" rev-parse --short HEAD 2>/dev/null || echo "not a git work tree"))"
compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
echo "compiler: $("$compiler" --version | head -n 1); load average: $(cut -d ' ' -f 1-3 /proc/loadavg)"
echo
status=0
"$build_dir/bench/official/compare_official_kernels" "${harness_args[@]}" || status=$?
echo "load average after: $(cut -d ' ' -f 1-3 /proc/loadavg)"
exit "$status"
