#!/usr/bin/env bash
# Times et-dump-decode against Debian's flatc on a synthetic ETDump of about
# 1.5 million events (~109 MB) from etkit-bench-make-etdump.
#
#   bench/run_decode_bench.sh [BUILD_DIR]     (default: build)
#
# BUILD_DIR must be a Release build with the benchmarks (ETKIT_BUILD_BENCH=ON);
# this script builds nothing. Environment: RUNS (timed runs per mode, default
# 7), EVENTS (default 1500000), TMPDIR (where the input and flatc's output go).
# Each mode runs once untimed (warm page cache, output size), then RUNS rounds
# run every mode once each, so that load from other work on the machine
# spreads over all modes. Per mode: median wall time with its spread (CV and
# min-max), input throughput, peak RSS (max over the runs, GNU time -v) and
# RSS / file size; then each et-dump-decode mode's throughput relative to
# flatc's and the two targets (>= 2x flatc's throughput, peak RSS <= 1.5x the
# file). Needs /usr/bin/time (Debian `time`) and flatc (`flatbuffers-compiler`).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
[[ $build = /* ]] || build=$root/$build
runs=${RUNS:-7}
events=${EVENTS:-1500000}

decode=$build/tools/et-dump-decode
make_etdump=$build/bench/etkit-bench-make-etdump
schema=$root/schemas/etdump.fbs
for f in "$decode" "$make_etdump"; do
  [[ -x $f ]] || { echo "run_decode_bench.sh: $f not found: build $build first" >&2; exit 2; }
done
for f in /usr/bin/time flatc; do
  command -v "$f" >/dev/null || { echo "run_decode_bench.sh: $f not found (apt-get install time flatbuffers-compiler)" >&2; exit 2; }
done
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
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min; other work on the machine inflates wall times)"
echo "input:   $size bytes, $written events (+ a $(stat -c %s "$work/big.bin")-byte debug buffer); $runs runs per mode"
if (( size < 100000000 || written <= 1000000 )); then
  echo "warning: the input is smaller than the benchmark's 100 MB / 1,000,000 events" >&2
fi
echo

# The modes. flatc cannot write to stdout: it writes OUTDIR/big.json, indented,
# scalars equal to their defaults left out unless --defaults-json (then the
# same document as et-dump-decode's). The targets compare with mode 4; mode 6
# is et-dump-decode doing flatc's work (the same document, written to a file).
names=(
  "et-dump-decode FILE"
  "et-dump-decode --pretty FILE"
  "et-dump-decode --jsonl FILE"
  "et-dump-decode --debug-buffer BIN FILE"
  "flatc --json --strict-json --raw-binary --size-prefixed -o OUTDIR SCHEMA -- FILE"
  "flatc --json --strict-json --defaults-json --raw-binary --size-prefixed -o OUTDIR SCHEMA -- FILE"
  "et-dump-decode --pretty -o OUTDIR/big.json FILE"
)
flatc_mode=4
defaults_mode=5
to_file_mode=6
mode_command() {  # MODE [PREFIX...]: runs the mode, its command prefixed by PREFIX (e.g. time)
  local mode=$1; shift
  case $mode in
    0) "$@" "$decode" "$file" ;;
    1) "$@" "$decode" --pretty "$file" ;;
    2) "$@" "$decode" --jsonl "$file" ;;
    3) "$@" "$decode" --debug-buffer "$work/big.bin" "$file" ;;
    4) "$@" flatc --json --strict-json --raw-binary --size-prefixed -o "$work/out" "$schema" -- "$file" ;;
    5) "$@" flatc --json --strict-json --defaults-json --raw-binary --size-prefixed -o "$work/out" "$schema" -- "$file" ;;
    6) "$@" "$decode" --pretty -o "$work/out/big.json" "$file" ;;
  esac
}

declare -a out_bytes times peak_kb median_s
for mode in "${!names[@]}"; do  # warm-up: output size (stdout plus files in OUTDIR)
  rm -rf "$work/out" && mkdir "$work/out"
  stdout_bytes=$(mode_command "$mode" | wc -c)
  file_bytes=$(find "$work/out" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
  out_bytes[mode]=$(( stdout_bytes + file_bytes ))
  times[mode]=""
  peak_kb[mode]=0
done
for _ in $(seq "$runs"); do
  for mode in "${!names[@]}"; do
    rm -rf "$work/out" && mkdir "$work/out"
    t0=$(date +%s%N)
    mode_command "$mode" /usr/bin/time -v -o "$work/time.txt" >/dev/null
    t1=$(date +%s%N)
    kb=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$work/time.txt")
    times[mode]+="$(( t1 - t0 )) "
    if (( kb > peak_kb[mode] )); then peak_kb[mode]=$kb; fi
  done
done
rm -rf "$work/out"

echo "| tool and mode | median wall time ± CV (min-max of $runs) | input MB/s | peak RSS | RSS / file | output |"
echo "|---|---|---|---|---|---|"
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
      printf "| `%s` | %.3f s ± %.1f%% (%.3f-%.3f) | %.0f MB/s | %.1f MiB | %.2fx | %.0f MB |\n",
        name, med, 100 * sd / mean, t[1], t[NR], size / 1e6 / med, rss / 1024, rss * 1024 / size, out / 1e6 }' <<<"$sorted"
done

echo
echo "throughput relative to flatc (target >= 2x), peak RSS / file size (target <= 1.5x):"
for mode in 0 1 2 3 "$to_file_mode"; do
  awk -v n="${names[mode]}" -v t="${median_s[mode]}" -v tf="${median_s[flatc_mode]}" -v rss="${peak_kb[mode]}" \
      -v size="$size" 'BEGIN {
    speed = tf / t; mem = rss * 1024 / size
    printf "  %-48s %5.2fx flatc %s   RSS %.2fx file %s\n", n, speed, (speed >= 2 ? "(met)" : "(MISSED)"),
      mem, (mem <= 1.5 ? "(met)" : "(MISSED)") }'
done
awk -v t="${median_s[to_file_mode]}" -v tf="${median_s[defaults_mode]}" 'BEGIN {
  printf "  the same document written to a file: et-dump-decode --pretty -o is %.2fx flatc --defaults-json\n", tf / t }'
for mode in "$flatc_mode" "$defaults_mode"; do
  awk -v n="${names[mode]}" -v rss="${peak_kb[mode]}" -v size="$size" 'BEGIN { printf "  %s: RSS %.2fx file\n", n, rss * 1024 / size }'
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
