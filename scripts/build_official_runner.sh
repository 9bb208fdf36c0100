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
#   EXECUTORCH_DIR  a checkout or export of ExecuTorch 0.6 or later; its
#               submodules (third-party/) are not used and may be empty
#   OUTDIR      gets executor_runner, and build/ (kept for rebuilds)
#   --logging   ET_LOG on (ExecuTorch's Debug default) to see why a program
#               fails; off in its Release build, and off by default here
#   --constant-buffer  the deprecated constant_buffer path, for programs with
#               their constants inline (compiled out by ExecuTorch's build)
#   --etdump FLATCC_DIR  trace as EXECUTORCH_ENABLE_EVENT_TRACER does (ETDumpGen,
#               --etdump_path) with flatcc (not in Debian) built in place in
#               FLATCC_DIR (bin/flatcc, lib/libflatccrt.a, include/)
# Exit: 0 built (OUTDIR/executor_runner), 2 usage, a missing tool, or
#       EXECUTORCH_DIR not an ExecuTorch checkout that builds (one line; for
#       a failed build, the log's last lines follow it).
set -euo pipefail

usage() {
  sed -n '12,25p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
fail() {
  echo "$0: $*" >&2
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
[ -d "$et_dir" ] || fail "EXECUTORCH_DIR $et_dir is not a directory"
for f in examples/portable/executor_runner/executor_runner.cpp schema/program.fbs runtime/executor/method.cpp \
         kernels/portable/cpu/op_add.cpp kernels/prim_ops/register_prim_ops.cpp extension/runner_util/inputs.cpp; do
  [ -f "$et_dir/$f" ] || fail "$et_dir is not an ExecuTorch checkout (no $f)"
done
# Before 0.6 the portable operators took ExecuTorch's own optional class, not
# the std::optional register_kernels.cpp declares them with; 0.6 brought the
# c10 headers and the FlatTensor data map this build compiles.
for f in extension/flat_tensor/serialize/flat_tensor.fbs runtime/core/portable_type/c10/c10/macros/Macros.h; do
  [ -f "$et_dir/$f" ] || fail "$et_dir is an ExecuTorch older than 0.6, which is not supported (no $f)"
done
cxx=${CXX:-c++}  # the compiler CMake will pick
for tool in cmake flatc "$cxx"; do
  command -v "$tool" >/dev/null || fail "$tool is missing (scripts/setup.sh installs it)"
done
# Debian's headers stand in for the submodules third-party/flatbuffers and
# third-party/gflags; asked of the compiler, so that a missing package is
# named here rather than in the configure log.
for header in flatbuffers/flatbuffers.h:libflatbuffers-dev gflags/gflags.h:libgflags-dev; do
  echo "#include <${header%%:*}>" | "$cxx" -fsyntax-only -x c++ - 2>/dev/null ||
    fail "<${header%%:*}> is missing: install ${header#*:} (scripts/setup.sh installs it)"
done
if [ -n "$flatcc_dir" ]; then
  for f in bin/flatcc lib/libflatccrt.a include/flatcc/flatcc_builder.h; do
    [ -e "$flatcc_dir/$f" ] || fail "$flatcc_dir is not a built flatcc tree (no $f)"
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
rm -f "$build_dir/build.log"
if ! cmake -S "$repo/bench/official/runner" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
      -DEXECUTORCH_DIR="$et_dir" -DOFFICIAL_LOGGING="$logging" \
      -DOFFICIAL_CONSTANT_BUFFER="$constant_buffer" -DOFFICIAL_FLATCC_DIR="$flatcc_dir" >"$build_dir/configure.log" 2>&1 ||
   ! cmake --build "$build_dir" -j2 >"$build_dir/build.log" 2>&1; then
  # The build's log when the build ran, else the configure log.
  log=$build_dir/build.log
  [ -s "$log" ] || log=$build_dir/configure.log
  echo "$0: building executor_runner from $et_dir failed; the last lines of $log:" >&2
  tail -n 20 "$log" >&2 || true
  exit 2
fi
cp "$build_dir/executor_runner" "$out_dir/executor_runner"
# What was built: version.txt, and the commit when EXECUTORCH_DIR is the top of
# a git work tree (not an export inside some other repository), with its tag
# and whether it has local changes.
version=$(head -n 1 "$et_dir/version.txt" 2>/dev/null || echo "no version.txt")
commit="not a git work tree"
if [ "$(git -C "$et_dir" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$et_dir" && pwd -P)" ]; then
  commit="git $(git -C "$et_dir" rev-parse -q --short --verify HEAD || echo "work tree with no commit")"
  if tag=$(git -C "$et_dir" describe --tags --exact-match --match "v[0-9]*" 2>/dev/null); then commit+=" $tag"; fi
  if [ -n "$(git -C "$et_dir" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    commit+=" with local changes"
  fi
fi
echo "ExecuTorch: $et_dir (version $version, $commit)"
echo "built: $out_dir/executor_runner"
