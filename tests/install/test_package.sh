#!/usr/bin/env bash
# ctest package.deb: builds the .deb with CPack (into a temporary directory)
# and checks its control fields and contents with dpkg-deb.
#   test_package.sh <build dir> <cpack> <man pages: ON|OFF>
set -euo pipefail
build=$1 cpack=$2 man=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$tmp" >/dev/null
debs=("$tmp"/etkit_*.deb)
[ -f "${debs[0]}" ] || { echo "package: no etkit_*.deb in $tmp" >&2; exit 1; }
deb=${debs[0]}
dpkg-deb -I "$deb" >"$tmp/info"
dpkg-deb -c "$deb" | awk '{print $NF}' >"$tmp/contents"

failed=0
need_field() {  # need_field <regex>: a line of the control file
  grep -Eq "^ ?$1" "$tmp/info" || { echo "package: control file lacks /$1/" >&2; failed=1; }
}
need_field 'Package: etkit$'
need_field 'Version: [0-9]+\.[0-9]+\.[0-9]+$'
need_field 'Section: devel$'
need_field 'Maintainer: .+<.+>$'
need_field 'Description: .+'
need_field 'Depends: .*libzip4'
need_field 'Depends: .*libsqlite3-0'  # et-fleet's database output
need_field 'Depends: .*libc6'
# The tools link the C++ runtime statically (tools/CMakeLists.txt: start-up
# cost), so the package does not need libstdc++6 or libgcc-s1.
if grep -Eq '^ ?Depends: .*(libstdc\+\+6|libgcc-s1)' "$tmp/info"; then
  echo "package: Depends names the C++ runtime the tools link statically" >&2; failed=1
fi

need_file() {  # need_file <path in the package>
  grep -qx "./$1" "$tmp/contents" || { echo "package: no $1" >&2; failed=1; }
}
for tool in et-run et-dump-decode et-record-inspect et-inspect et-compare et-graph et-fleet; do
  need_file "usr/bin/$tool"
  need_file "usr/share/bash-completion/completions/$tool"
  need_file "usr/share/zsh/vendor-completions/_$tool"
  [ "$man" = ON ] && need_file "usr/share/man/man1/$tool.1"
done
need_file usr/include/etkit/libcore/support/result.h
need_file usr/include/etkit/runner/method.h
need_file usr/include/etkit/schemas/program_generated.h
need_file usr/share/etkit/schemas/program.fbs
need_file usr/lib/libetkit_core.a
need_file usr/lib/libetkit_runner.a
need_file usr/lib/libetkit_schemas.a
need_file usr/lib/cmake/etkit/etkitConfig.cmake
need_file usr/lib/cmake/etkit/etkitConfigVersion.cmake
need_file usr/lib/cmake/etkit/etkitTargets.cmake
need_file usr/lib/pkgconfig/etkit.pc

# The unpacked tree works where it lands: a tool runs, and pkg-config
# resolves the relocatable etkit.pc to it.
dpkg-deb -x "$deb" "$tmp/root"
"$tmp/root/usr/bin/et-inspect" --version | grep -Eq '^et-inspect [0-9]+\.[0-9]+\.[0-9]+' ||
  { echo "package: usr/bin/et-inspect --version failed" >&2; failed=1; }
cflags=$(PKG_CONFIG_PATH=$tmp/root/usr/lib/pkgconfig pkg-config --cflags etkit)
[[ $cflags == *"-I$tmp/root/usr/lib/pkgconfig/../../include/etkit "* ]] ||
  { echo "package: pkg-config --cflags etkit gave '$cflags'" >&2; failed=1; }

if [ "$failed" -ne 0 ]; then
  cat "$tmp/info" >&2
  exit 1
fi
echo "package: $(basename "$deb") OK ($(wc -l <"$tmp/contents") entries)"
