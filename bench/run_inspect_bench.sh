#!/usr/bin/env bash
# Times et-inspect on the synthetic ETDump of bench/run_decode_bench.sh (about
# 1.5 million events, ~110 MB, from etkit-bench-make-etdump), next to
# et-dump-decode on the same file.
#
#   bench/run_inspect_bench.sh [BUILD_DIR]     (default: build)
#
# BUILD_DIR must be a Release build with the benchmarks; this script builds
# nothing. Environment: RUNS (timed runs per mode, default 7), EVENTS
# (default 1500000), TMPDIR (where the input goes). Each mode runs once
# untimed (warm page cache), then RUNS rounds run every mode once each. Per
# mode: median wall time with CV and min-max, peak RSS (max over the runs,
# GNU time -v) and RSS / file size; then the targets for the default table
# (under 2 s, peak RSS under 2x the file). Output goes to /dev/null.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
[[ $build = /* ]] || build=$root/$build
runs=${RUNS:-7}
events=${EVENTS:-1500000}

inspect=$build/tools/et-inspect
decode=$build/tools/et-dump-decode
make_etdump=$build/bench/etkit-bench-make-etdump
for f in "$inspect" "$decode" "$make_etdump"; do
  [[ -x $f ]] || { echo "run_inspect_bench.sh: $f not found: build $build first" >&2; exit 2; }
done
command -v /usr/bin/time >/dev/null || { echo "run_inspect_bench.sh: /usr/bin/time not found (apt-get install time)" >&2; exit 2; }
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
[[ $build_type = Release ]] || echo "warning: $build is a '${build_type:-?}' build, not Release" >&2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
file=$work/big.etdp
"$make_etdump" "$file" --events "$events" --debug-buffer "$work/big.bin" >"$work/gen.txt"
size=$(stat -c %s "$file")
written=$(sed -n 's/^.*\.etdp: \([0-9]*\) events.*/\1/p' "$work/gen.txt")
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "commit:  $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min)"
echo "input:   $size bytes, $written events; $runs runs per mode"
echo

names=(
  "et-inspect FILE"
  "et-inspect --format tsv FILE"
  "et-inspect --group-by op-type FILE"
  "et-inspect --format json FILE"
  "et-inspect --debug-buffer BIN FILE"
  "et-dump-decode FILE"
)
mode_command() {  # MODE [PREFIX...]
  local mode=$1; shift
  case $mode in
    0) "$@" "$inspect" "$file" ;;
    1) "$@" "$inspect" --format tsv "$file" ;;
    2) "$@" "$inspect" --group-by op-type "$file" ;;
    3) "$@" "$inspect" --format json "$file" ;;
    4) "$@" "$inspect" --debug-buffer "$work/big.bin" "$file" ;;
    5) "$@" "$decode" "$file" ;;
  esac
}

declare -a out_bytes times peak_kb median_s
for mode in "${!names[@]}"; do
  out_bytes[mode]=$(mode_command "$mode" 2>/dev/null | wc -c)
  times[mode]=""
  peak_kb[mode]=0
done
for _ in $(seq "$runs"); do
  for mode in "${!names[@]}"; do
    t0=$(date +%s%N)
    mode_command "$mode" /usr/bin/time -v -o "$work/time.txt" >/dev/null 2>/dev/null
    t1=$(date +%s%N)
    kb=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$work/time.txt")
    times[mode]+="$(( t1 - t0 )) "
    if (( kb > peak_kb[mode] )); then peak_kb[mode]=$kb; fi
  done
done

echo "| mode | median wall time ± CV (min-max of $runs) | peak RSS | RSS / file | output |"
echo "|---|---|---|---|---|"
for mode in "${!names[@]}"; do
  # shellcheck disable=SC2086  # the times are one space-separated list
  sorted=$(printf '%s\n' ${times[mode]} | sort -n)
  median_s[mode]=$(awk '{ t[NR] = $1 } END {
    printf "%.4f", (NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2) / 1e9 }' <<<"$sorted")
  awk -v name="${names[mode]}" -v med="${median_s[mode]}" -v rss="${peak_kb[mode]}" -v size="$size" \
      -v out="${out_bytes[mode]}" '
    { t[NR] = $1 / 1e9; sum += t[NR]; sq += t[NR] * t[NR] }
    END {
      mean = sum / NR; sd = NR > 1 ? sqrt((sq - NR * mean * mean) / (NR - 1)) : 0
      printf "| `%s` | %.3f s ± %.1f%% (%.3f-%.3f) | %.1f MiB | %.2fx | %.1f MB |\n",
        name, med, 100 * sd / mean, t[1], t[NR], rss / 1024, rss * 1024 / size, out / 1e6 }' <<<"$sorted"
done
echo
awk -v t="${median_s[0]}" -v td="${median_s[5]}" -v rss="${peak_kb[0]}" -v size="$size" 'BEGIN {
  mem = rss * 1024 / size
  printf "default table: %.3f s %s, peak RSS %.2fx the file %s; %.2fx et-dump-decode'\''s time\n",
    t, (t < 2 ? "(met: < 2 s)" : "(MISSED: >= 2 s)"), mem, (mem < 2 ? "(met: < 2x)" : "(MISSED: >= 2x)"), t / td }'
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
