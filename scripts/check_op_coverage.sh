#!/usr/bin/env bash
# Compares the operators an ExecuTorch checkout defines kernels or
# out-variants for with the kernels et-run registers (--list-kernels), and
# prints each one et-run lacks:
#   kernels/portable/functions.yaml, kernels/quantized/quantized.yaml,
#   backends/cortex_m/ops/operators.yaml, backends/cadence/aot/functions*.yaml:
#     every `- op:` / `- func:` entry (namespace aten unless one is given);
#   backends/cadence/aot/ops_registrations.py, backends/cortex_m/ops/operators.py,
#   exir/passes/_quant_patterns_and_replacements.py, kernels/quantized/**.py:
#     every `<lib>.define("schema")` whose arguments include a mutable tensor
#     (`Tensor(a!)`: the out variants and in-place ops a program calls; the
#     functional forms never reach a .pte). The namespace is the one of
#     `<lib> = Library("ns", ...)` in the same file, else <lib> without `_lib`.
# Output: one line per missing op, "<op>\t<file>", with "\t(allowed)" for
# the ones docs/tools/et-run.md lists as intentionally not provided (the
# allow-list below); a summary on standard error.
# usage: check_op_coverage.sh EXECUTORCH_DIR [ET_RUN]
#   ET_RUN defaults to $ET_RUN, then build/tools/et-run beside this script,
#   then et-run on PATH.
# Exit: 0 nothing missing beyond the allow-list, 1 something is, 2 usage or
# an expected file is absent from the checkout.
set -euo pipefail
export LC_ALL=C  # one sort order everywhere

# Intentionally not provided (docs/tools/et-run.md, "Operators of backends' flows").
allowed=(
  'cadence::idma_*'                         # DMA transfers: nothing to compute on the host
  'cadence::linalg_svd*'                    # LAPACK-backed, outside the inference path
  'cadence::quantized_conv.*'               # the vision backend's (.out, .per_tensor_out): no generic kernel
  'cadence::quantized_relu_per_tensor.out'  # HiFi's schema does not match the kernel it names
)

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 EXECUTORCH_DIR [ET_RUN]" >&2
  exit 2
fi
root=${1%/}
et_run=${2:-${ET_RUN:-}}
if [ -z "$et_run" ]; then
  et_run="$(dirname "$0")/../build/tools/et-run"
  [ -x "$et_run" ] || et_run=$(command -v et-run || true)
fi
if [ -z "$et_run" ] || [ ! -x "$et_run" ]; then
  echo "$0: et-run not found (pass it as the second argument or set ET_RUN)" >&2
  exit 2
fi

need() {
  if [ ! -f "$root/$1" ]; then
    echo "$0: $root/$1: no such file (is $root an ExecuTorch checkout?)" >&2
    exit 2
  fi
}

# "<op>\t<file>" for each entry of a kernel yaml file.
yaml_ops() {
  sed -nE 's/^- (op|func):[[:space:]]*([A-Za-z0-9_:.]+).*/\2/p' "$root/$1" |
    while read -r op; do
      case $op in *::*) ;; *) op="aten::$op" ;; esac
      printf '%s\t%s\n' "${op%.default}" "$1"
    done
}

# "<op>\t<file>" for each define() with a mutable tensor argument. Python
# joins adjacent string literals; so does the sed before the search.
python_ops() {
  local flat var ns name schema line
  flat=$(tr '\n' ' ' < "$root/$1" | sed -E 's/"[[:space:]]*"//g')
  declare -A namespace=()
  while read -r var ns; do
    [ -n "$var" ] && namespace[$var]=$ns
  done < <(grep -oE '[A-Za-z_][A-Za-z0-9_]*[[:space:]]*=[[:space:]]*([A-Za-z_.]*\.)?Library\([[:space:]]*"[A-Za-z0-9_]+"' <<<"$flat" |
             sed -E 's/^([A-Za-z0-9_]+)[^"]*"([^"]+)"/\1 \2/' || true)
  while IFS= read -r line; do
    var=${line%%.define*}
    schema=${line#*\"}
    schema=${schema%\"}
    [[ ${schema%%->*} =~ Tensor\([a-z]+!\) ]] || continue
    name=${schema%%(*}
    name=${name//[[:space:]]/}
    case $name in
      *::*) ;;
      *) ns=${namespace[$var]:-${var%_lib}}; name="$ns::$name" ;;
    esac
    printf '%s\t%s\n' "${name%.default}" "$1"
  done < <(grep -oE '[A-Za-z_][A-Za-z0-9_]*\.define\([[:space:]]*"[^"]*"' <<<"$flat" || true)
}

required() {
  local f
  for f in kernels/portable/functions.yaml kernels/quantized/quantized.yaml backends/cortex_m/ops/operators.yaml; do
    need "$f"
    yaml_ops "$f"
  done
  local cadence_yaml=("$root"/backends/cadence/aot/functions*.yaml)
  [ -f "${cadence_yaml[0]}" ] || need backends/cadence/aot/functions.yaml
  for f in "${cadence_yaml[@]}"; do yaml_ops "${f#"$root"/}"; done
  for f in backends/cadence/aot/ops_registrations.py backends/cortex_m/ops/operators.py \
           exir/passes/_quant_patterns_and_replacements.py; do
    need "$f"
    python_ops "$f"
  done
  if [ -d "$root/kernels/quantized" ]; then
    while IFS= read -r f; do python_ops "${f#"$root"/}"; done < <(find "$root/kernels/quantized" -name '*.py' | sort)
  fi
}

is_allowed() {
  local pattern
  for pattern in "${allowed[@]}"; do
    # shellcheck disable=SC2053  # the pattern is a glob on purpose
    [[ $1 == $pattern ]] && return 0
  done
  return 1
}

have=$("$et_run" --list-kernels)
declare -A registered=()
while IFS= read -r op; do registered[$op]=1; done <<<"$have"

# Each op once, with the first file that names it.
ops=$(required | sort -t $'\t' -k1,1 -u)
total=0 missing=0 excused=0
while IFS=$'\t' read -r op file; do
  [ -n "$op" ] || continue
  total=$((total + 1))
  [ -n "${registered[$op]:-}" ] && continue
  if is_allowed "$op"; then
    excused=$((excused + 1))
    printf '%s\t%s\t(allowed)\n' "$op" "$file"
  else
    missing=$((missing + 1))
    printf '%s\t%s\n' "$op" "$file"
  fi
done <<<"$ops"

echo "check_op_coverage: $total operators, $missing missing, $excused not provided on purpose" >&2
[ "$missing" -eq 0 ]
