#!/usr/bin/env bash
# ctest install.consumer: installs the build tree into a temporary prefix and
# builds tests/install/consumer against it twice, with find_package(etkit) and
# with pkg-config, then runs both consumers.
#   test_install.sh <build dir> <cmake> <c++ compiler>
set -euo pipefail
build=$1 cmake=$2 cxx=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

"$cmake" --install "$build" --prefix "$prefix" >/dev/null

# Nothing installed may point back into the source or build tree.
if grep -rl -e "$(cd "$here/../.." && pwd)" -e "$(cd "$build" && pwd)" "$prefix/lib" "$prefix/include" >/dev/null; then
  echo "install: files under $prefix refer to the source or build tree:" >&2
  grep -rl -e "$(cd "$here/../.." && pwd)" -e "$(cd "$build" && pwd)" "$prefix/lib" "$prefix/include" >&2
  exit 1
fi

expect() {  # expect <consumer binary>
  local out
  out=$("$1")
  printf '%s\n' "$out"
  local want=$'identifier ET12\nmethods 1\nforward([1, 2]) = [3, 8]'
  if [ "$out" != "$want" ]; then
    echo "install: $1 printed something else; expected:" >&2
    printf '%s\n' "$want" >&2
    exit 1
  fi
}

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
"$cmake" -S "$here/consumer" -B "$tmp/cmake-build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" >/dev/null
"$cmake" --build "$tmp/cmake-build" >/dev/null
expect "$tmp/cmake-build/etkit-consumer"

libdir=$(dirname "$(find "$prefix" -name etkit.pc -path '*/pkgconfig/*')")
export PKG_CONFIG_PATH=$libdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
pkg-config --exists --print-errors etkit
# shellcheck disable=SC2046  # pkg-config's flags are separate words
"$cxx" -std=c++20 -O1 "$here/consumer/main.cpp" -o "$tmp/pc-consumer" $(pkg-config --cflags --libs etkit)
expect "$tmp/pc-consumer"
echo "install: find_package and pkg-config consumers OK"
