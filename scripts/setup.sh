#!/usr/bin/env bash
# Installs etkit's build and test dependencies from Debian's packages.
# Idempotent: installs only what is missing, so it is a no-op on a ready machine.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libcli11-dev flatbuffers-compiler libflatbuffers-dev rapidjson-dev
  nlohmann-json3-dev  # tests only: an independent reader of the JSON the tools print
  catch2 libzip-dev libbenchmark-dev
  libsqlite3-dev sqlite3  # et-fleet's database output; the CLI runs the documented example queries in a test
  help2man  # man pages of the tools (skipped with a message when absent)
  zsh  # the syntax check of the generated zsh completions
  dpkg-dev  # dpkg-shlibdeps: the .deb's runtime dependencies (cpack -G DEB)
  graphviz chromium  # et-graph --format svg/png; the HTML report's browser test
  libgflags-dev  # scripts/build_official_runner.sh: ExecuTorch's executor_runner parses its flags with gflags
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
