#!/usr/bin/env bash
# Compares what tracing costs in et-run with what it costs in another
# runner: ExecuTorch's executor_runner built without and with its event
# tracer (scripts/build_official_runner.sh ... --etdump FLATCC_DIR), say.
# Each round runs the four processes (other, other traced, et-run, et-run
# --etdump) once, in an order that rotates from round to round, each timed
# whole: wall time with bash's clock, CPU time with `perf stat` (task-clock,
# all threads) when perf is installed. The cost of a traced event is
# (traced - untraced) / events per round, its median over the rounds
# printed per runner, and et-run's over the other's. events: the events in
# et-run's ETDump (the same for both runners on portable programs: per
# execution, each kernel's event, its OPERATOR_CALL and Method::execute).
# Peak RSS of each traced run comes from one more run under /usr/bin/time.
#
# usage: compare_tracing.sh --other PATH --other-traced PATH [options] PROGRAM.pte
#   --other PATH             the other runner, built without tracing (required)
#   --other-traced PATH      the same runner built with tracing (required)
#   --other-args ARGS        both builds' arguments, {} standing for the
#                            program and {n} for --executions (default: the
#                            official "--model_path={} --num_executions={n}")
#   --other-etdump-args ARGS the traced build's further arguments, {etdump}
#                            standing for its dump (default: "--etdump_path={etdump}")
#   --et-run PATH            et-run to use (default: et-run on PATH)
#   --rounds N               rounds (default 11)
#   --executions N           executions per process (default 100000)
# ARGS is split on spaces: a path in it must have none. et-dump-decode is
# taken from beside --et-run, else from PATH.
# Exit: 0 compared, 1 a runner failed (its stderr is shown), 2 usage.
set -euo pipefail

usage() {
  sed -n '15,28p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

other="" other_traced="" other_args='--model_path={} --num_executions={n}' etdump_args='--etdump_path={etdump}'
et_run=et-run rounds=11 executions=100000 program=""
while [ $# -gt 0 ]; do
  case "$1" in
    --other) other=${2-}; shift 2 || usage ;;
    --other-traced) other_traced=${2-}; shift 2 || usage ;;
    --other-args) other_args=${2-}; shift 2 || usage ;;
    --other-etdump-args) etdump_args=${2-}; shift 2 || usage ;;
    --et-run) et_run=${2-}; shift 2 || usage ;;
    --rounds) rounds=${2-}; shift 2 || usage ;;
    --executions) executions=${2-}; shift 2 || usage ;;
    -h|--help) usage ;;
    -*) echo "$0: unknown option $1" >&2; usage ;;
    *) [ -z "$program" ] || { echo "$0: one program at a time" >&2; exit 2; }; program=$1; shift ;;
  esac
done
[ -n "$other" ] && [ -n "$other_traced" ] && [ -n "$program" ] || usage
case "$rounds$executions" in *[!0-9]*) echo "$0: --rounds and --executions take a count" >&2; exit 2 ;; esac
[ "$rounds" -ge 1 ] && [ "$executions" -ge 1 ] || { echo "$0: --rounds and --executions must be at least 1" >&2; exit 2; }
for bin in "$other" "$other_traced" "$et_run"; do
  command -v "$bin" >/dev/null || { echo "$0: no such runner: $bin" >&2; exit 2; }
done
[ -f "$program" ] || { echo "$0: no such program: $program" >&2; exit 2; }
decode=$(dirname "$(command -v "$et_run")")/et-dump-decode
[ -x "$decode" ] || decode=et-dump-decode
command -v "$decode" >/dev/null || { echo "$0: et-dump-decode is neither beside $et_run nor on PATH" >&2; exit 2; }
have_perf=0
if command -v perf >/dev/null && perf stat -x, -e task-clock -o /dev/null true 2>/dev/null; then have_perf=1; fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
other_dump=$scratch/other.etdp et_dump=$scratch/et-run.etdp

# The command line of one of the four runs.
command_of() {
  local args=${other_args//\{\}/$program}
  args=${args//\{n\}/$executions}
  case $1 in
    other) echo "$other $args" ;;
    other_traced) echo "$other_traced $args ${etdump_args//\{etdump\}/$other_dump}" ;;
    et) echo "$et_run $program --iterations $executions -q" ;;
    et_traced) echo "$et_run $program --iterations $executions -q --etdump $et_dump" ;;
  esac
}

# "wall_ms cpu_ms" of one run (cpu_ms 0 without perf); exits 1 if it fails.
time_run() {
  local cmd start end cpu=0
  cmd=$(command_of "$1")
  # Each traced run writes a new dump, not one over the last run's (freeing
  # the old file's blocks is no part of either runner's cost).
  case $1 in other_traced) rm -f "$other_dump" ;; et_traced) rm -f "$et_dump" ;; esac
  start=$EPOCHREALTIME
  # shellcheck disable=SC2086  # a word list on purpose
  if ((have_perf)); then
    perf stat -x, -e task-clock -o "$scratch/perf" $cmd >/dev/null 2>"$scratch/stderr" || failed "$cmd"
  else
    $cmd >/dev/null 2>"$scratch/stderr" || failed "$cmd"
  fi
  end=$EPOCHREALTIME
  ((have_perf)) && cpu=$(awk -F, '/task-clock/ { print $1 }' "$scratch/perf")
  awk -v s="${start/,/.}" -v e="${end/,/.}" -v c="$cpu" 'BEGIN { printf "%.3f %.3f\n", (e - s) * 1000, c }'
}
failed() {
  echo "$0: failed: $1" >&2
  cat "$scratch/stderr" >&2
  exit 1
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

runs=(other other_traced et et_traced)
declare -A times
for ((r = 0; r < rounds; r++)); do
  for k in 0 1 2 3; do
    run=${runs[$(((k + r) % 4))]}
    times[$run]+="$(time_run "$run");"
  done
done
[ -s "$et_dump" ] || { echo "$0: et-run wrote no ETDump" >&2; exit 1; }
events=$("$decode" --jsonl "$et_dump" | wc -l) || { echo "$0: $decode cannot read et-run's ETDump" >&2; exit 1; }

# Per round: (traced - untraced) / events in ns, for field 1 (wall) or 2 (cpu).
per_event() {
  paste -d' ' <(tr ';' '\n' <<<"${times[$1]}" | sed '/^$/d') <(tr ';' '\n' <<<"${times[$2]}" | sed '/^$/d') |
    awk -v f="$3" -v n="$events" '{ printf "%.1f\n", ($(f + 2) - $f) * 1e6 / n }' | median
}
peak_rss() {
  if ! command -v /usr/bin/time >/dev/null; then echo "-"; return; fi
  # shellcheck disable=SC2086
  /usr/bin/time -f %M -o "$scratch/rss" $(command_of "$1") >/dev/null 2>&1 || failed "$(command_of "$1")"
  awk '{ printf "%.1f MiB\n", $1 / 1024 }' "$scratch/rss"
}

other_wall=$(per_event other other_traced 1) et_wall=$(per_event et et_traced 1)
echo "$(basename "$program"): $executions executions, $events events, $rounds rounds, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
printf '%-10s %22s %22s %16s\n' runner "wall ns/event" "CPU ns/event" "peak RSS traced"
if ((have_perf)); then
  other_cpu=$(per_event other other_traced 2) et_cpu=$(per_event et et_traced 2)
else
  other_cpu=- et_cpu=-
fi
printf '%-10s %22s %22s %16s\n' other "$other_wall" "$other_cpu" "$(peak_rss other_traced)"
printf '%-10s %22s %22s %16s\n' et-run "$et_wall" "$et_cpu" "$(peak_rss et_traced)"
awk -v a="$et_wall" -v b="$other_wall" -v c="$et_cpu" -v d="$other_cpu" 'BEGIN {
  printf "et-run/other: wall %s, CPU %s\n", (b > 0 ? sprintf("%.3f", a / b) : "-"), (d + 0 > 0 ? sprintf("%.3f", c / d) : "-") }'
