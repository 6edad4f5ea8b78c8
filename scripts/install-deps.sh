#!/usr/bin/env bash
# Installs the Debian packages racetrack needs to build and test. Idempotent:
# skips apt entirely when every package is already installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libprotobuf-dev protobuf-compiler libzstd-dev
  libcli11-dev libboost-dev libboost-graph-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev nlohmann-json3-dev
  qt6-base-dev qt6-base-dev-tools libqt6opengl6-dev libgl-dev
  fonts-dejavu-core fontconfig
  clang-format python3
  clang libclang-rt-14-dev llvm  # scripts/fuzz.sh: libFuzzer and llvm-symbolizer
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
