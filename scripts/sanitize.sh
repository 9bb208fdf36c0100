#!/usr/bin/env bash
# Builds everything with clang under ASan + UBSan in build-asan/ and runs the
# whole test binary there (the CLI tests run the sanitized tools too).
# Memory errors, leaks and undefined behaviour fail the run: UBSan halts on
# its first report, in the tests and in every tool they start.
#   scripts/sanitize.sh [TEST SPEC...]     (Catch2 test names or [tags])
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang++ >/dev/null; then
  echo "sanitize: installing clang" >&2
  sudo_cmd=(); [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends clang >/dev/null
fi
./scripts/setup.sh
CC=clang CXX=clang++ cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Release -DETKIT_SANITIZE=ON \
  -DETKIT_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j"$(nproc)"
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1
build-asan/tests/etkit_tests "$@"
