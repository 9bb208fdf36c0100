#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan, no recovery) and
# runs each for SECONDS (default 60), seeded from ../shared/fixtures when
# present and from the saved reproducers. Exits non-zero on any crash, leak,
# timeout or out-of-memory; the reproducer is saved under build-fuzz/findings/<target>/.
#   scripts/fuzz.sh [SECONDS] [TARGET...]     (FUZZ_SEED=N for a reproducible run)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true

if ! command -v clang++ >/dev/null; then
  echo "fuzz: installing clang" >&2
  sudo_cmd=(); [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends clang >/dev/null
fi
./scripts/setup.sh
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DETKIT_FUZZ=ON \
  -DETKIT_BUILD_TESTS=OFF -DETKIT_BUILD_BENCH=OFF >/dev/null
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(sed -n 's/^ *"\([a-z_-]*\):.*/\1/p' tests/fuzz/CMakeLists.txt)
fi
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/#/fuzz-}"

# Seeds: what each target reads, from tests/fuzz/seeds/ and the fixtures
# (absent in a bare clone).
seeds_for() {
  local fixtures=../shared/fixtures
  ls tests/fuzz/seeds/"$1"/* 2>/dev/null
  [ -d "$fixtures" ] || return 0
  case "$1" in
    xnnpack) ls "$fixtures"/pte/*xnnpack*.pte "$fixtures"/wild/pte/*xnnpack*.pte \
                "$fixtures"/wild/pte/djl_spike_*.pte "$fixtures"/wild/pte/simpletm_model.pte ;;
    program) ls "$fixtures"/pte/*.pte "$fixtures"/wild/pte/*.pte ;;
    # Executed twice each under ASan: the small programs only, so a short
    # pass spends its time mutating rather than running MobileNets.
    runner) find "$fixtures"/pte "$fixtures"/wild/pte -name '*.pte' -size -256k ;;
    etdump) ls "$fixtures"/etdump/*.etdp ;;
    bundled) ls "$fixtures"/bpte/*.bpte ;;
    etrecord) ls "$fixtures"/etrecord/*.etrecord ;;
    ptd) ls "$fixtures"/ptd/*.ptd "$fixtures"/wild/ptd/*.ptd ;;
  esac 2>/dev/null
  return 0
}

status=0
for t in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$t
  findings=build-fuzz/findings/$t
  mkdir -p "$corpus" "$findings"
  while read -r seed; do [ -n "$seed" ] && cp -n "$seed" "$corpus/" 2>/dev/null || true; done < <(seeds_for "$t")
  cp -n tests/fuzz/regressions/"$t"/*.bin "$corpus/" 2>/dev/null || true
  echo "fuzz: $t for ${seconds}s" >&2
  if ! build-fuzz/tests/fuzz/fuzz-"$t" "$corpus" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 \
      -artifact_prefix="$findings/" -print_final_stats=1 ${FUZZ_SEED:+-seed="$FUZZ_SEED"} 2> build-fuzz/fuzz-"$t".log; then
    echo "fuzz: $t FAILED: see build-fuzz/fuzz-$t.log and $findings/" >&2
    tail -40 build-fuzz/fuzz-"$t".log >&2
    status=1
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb|cov:" build-fuzz/fuzz-"$t".log | tail -3 >&2 || true
done
exit $status
