#!/usr/bin/env bash
# Sets up, builds (Release) and runs every test through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
# A short fuzz smoke pass (5 s per target, fixed seed) where clang is
# installed; the saved reproducers also run in ctest below, with or without it.
if command -v clang++ >/dev/null 2>&1; then
  FUZZ_SEED=1 ./scripts/fuzz.sh 5
else
  echo "test: fuzz smoke pass skipped (clang++ not installed; scripts/fuzz.sh installs it)"
fi
ctest --test-dir build --output-on-failure -j"$(nproc)"
