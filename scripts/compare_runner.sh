#!/usr/bin/env bash
# Compares et-run with another ExecuTorch runner binary (an official
# executor_runner a user built, say) on the same programs: each round runs
# every program once with each runner, the two in alternating order, and
# times the whole process (load and executions) with bash's clock. Prints per
# program the median of each runner over the rounds and their ratio
# other / et-run (above 1: et-run is faster).
#
# usage: compare_runner.sh --other PATH [options] PROGRAM.pte...
#   --other PATH         the runner to compare with (required)
#   --other-args ARGS    its arguments, {} standing for the program and {n}
#                        for --executions (default: the official
#                        executor_runner's "--model_path={} --num_executions={n}")
#   --et-run PATH        et-run to use (default: et-run on PATH)
#   --et-run-args ARGS   more et-run arguments, after the program and
#                        --iterations ({} stands for the program), e.g.
#                        "--data model.ptd" for a program with external data
#   --rounds N           interleaved rounds (default 5)
#   --executions N       executions per process (default 1); et-run gets
#                        --iterations N
# ARGS is split on spaces: a program path in it must have none.
# Exit: 0 compared, 1 a runner failed on a program (its stderr is shown),
#       2 usage.
set -euo pipefail

usage() {
  sed -n '9,23p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

other="" other_args='--model_path={} --num_executions={n}' et_run=et-run et_run_args="" rounds=5 executions=1
programs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --other) other=${2-}; shift 2 || usage ;;
    --other-args) other_args=${2-}; shift 2 || usage ;;
    --et-run) et_run=${2-}; shift 2 || usage ;;
    --et-run-args) et_run_args=${2-}; shift 2 || usage ;;
    --rounds) rounds=${2-}; shift 2 || usage ;;
    --executions) executions=${2-}; shift 2 || usage ;;
    -h|--help) usage ;;
    -*) echo "$0: unknown option $1" >&2; usage ;;
    *) programs+=("$1"); shift ;;
  esac
done
[ -n "$other" ] && [ ${#programs[@]} -gt 0 ] || usage
case "$rounds$executions" in *[!0-9]*) echo "$0: --rounds and --executions take a count" >&2; exit 2 ;; esac
[ "$rounds" -ge 1 ] && [ "$executions" -ge 1 ] || { echo "$0: --rounds and --executions must be at least 1" >&2; exit 2; }
for bin in "$other" "$et_run"; do
  command -v "$bin" >/dev/null || { echo "$0: no such runner: $bin" >&2; exit 2; }
done
for p in "${programs[@]}"; do
  [ -f "$p" ] || { echo "$0: no such program: $p" >&2; exit 2; }
done

stderr_file=$(mktemp)
trap 'rm -f "$stderr_file"' EXIT

# Milliseconds one run of `"$@"` takes; exits 1 if it fails.
time_ms() {
  local start=$EPOCHREALTIME end
  if ! "$@" >/dev/null 2>"$stderr_file"; then
    echo "$0: failed: $*" >&2
    cat "$stderr_file" >&2
    exit 1
  fi
  end=$EPOCHREALTIME
  # EPOCHREALTIME is seconds with six decimals (in the C locale's format).
  awk -v s="${start/,/.}" -v e="${end/,/.}" 'BEGIN { printf "%.3f\n", (e - s) * 1000 }'
}

run_other() {
  local args=${other_args//\{\}/$1}
  args=${args//\{n\}/$executions}
  # shellcheck disable=SC2086  # ARGS is a word list on purpose
  time_ms "$other" $args
}
run_et_run() {
  local args=${et_run_args//\{\}/$1}
  # shellcheck disable=SC2086  # ARGS is a word list on purpose
  time_ms "$et_run" "$1" --iterations "$executions" $args
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

declare -A et_times other_times
for ((r = 0; r < rounds; r++)); do
  for i in "${!programs[@]}"; do
    p=${programs[$i]}
    # Alternate which runner goes first, so neither always gets the warm cache.
    if (((r + i) % 2 == 0)); then
      et_times[$i]+="$(run_et_run "$p") "
      other_times[$i]+="$(run_other "$p") "
    else
      other_times[$i]+="$(run_other "$p") "
      et_times[$i]+="$(run_et_run "$p") "
    fi
  done
done

printf '%-40s %14s %14s %12s\n' program "et-run ms" "other ms" "other/et-run"
for i in "${!programs[@]}"; do
  et=$(printf '%s\n' ${et_times[$i]} | median)
  ot=$(printf '%s\n' ${other_times[$i]} | median)
  awk -v p="$(basename "${programs[$i]}")" -v a="$et" -v b="$ot" \
    'BEGIN { printf "%-40s %14.3f %14.3f %12.2f\n", p, a, b, (a > 0 ? b / a : 0) }'
done
