#!/usr/bin/env bash
# Times et-dump-decode against Debian's flatc on a synthetic ETDump of
# 1.5 million events (~107 MB). Usage: bench/run_decode_bench.sh [BUILD_DIR]
# (a Release build with -DETKIT_BUILD_BENCH=ON; default build-bench).
# Prints, per tool and mode: median and min/max wall time over RUNS runs,
# input throughput, and peak RSS (from /usr/bin/time, Debian's `time`).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-bench}
runs=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$build/bench/etkit-bench-make-etdump" "$work/big.etdp"
size=$(stat -c %s "$work/big.etdp")
echo "input: $size bytes"

measure() {  # name, command...
  local name=$1; shift
  local times=() rss=0
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>&1
    read -r t m <"$work/time"
    times+=("$t")
    (( m > rss )) && rss=$m
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  median=$(echo "$sorted" | sed -n "$(( (runs + 1) / 2 ))p")
  min=$(echo "$sorted" | head -1)
  max=$(echo "$sorted" | tail -1)
  awk -v n="$name" -v med="$median" -v lo="$min" -v hi="$max" -v rss="$rss" -v size="$size" 'BEGIN {
    printf "%-32s median %6.2f s (min %.2f, max %.2f)  %7.1f MB/s  peak RSS %6.1f MB (%.2fx the file)\n",
      n, med, lo, hi, size / 1e6 / med, rss / 1024, rss * 1024 / size }'
}

measure "et-dump-decode" "$build/tools/et-dump-decode" "$work/big.etdp"
measure "et-dump-decode --pretty" "$build/tools/et-dump-decode" --pretty "$work/big.etdp"
measure "et-dump-decode --jsonl" "$build/tools/et-dump-decode" --jsonl "$work/big.etdp"
# flatc writes <name>.json into -o; it always indents.
measure "flatc --json (indented)" flatc --json --strict-json --raw-binary --size-prefixed -o "$work/flatc" \
  schemas/etdump.fbs -- "$work/big.etdp"
