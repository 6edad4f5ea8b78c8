#!/usr/bin/env bash
# Installs the Debian packages racetrack needs to build and test, and one
# Python package for a test. Idempotent: skips apt entirely when every
# package is already installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libprotobuf-dev protobuf-compiler libzstd-dev
  libcli11-dev libboost-dev libboost-graph-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev nlohmann-json3-dev
  qt6-base-dev qt6-base-dev-tools libqt6opengl6-dev libgl-dev
  fonts-dejavu-core fontconfig
  clang-format python3 python3-jsonschema
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Perfetto's Python package: its copy of Perfetto's full trace schema checks
# what `racetrack export` writes (tests/export/verify_export.py).
if ! python3 -c 'import perfetto.protos.perfetto.trace.perfetto_trace_pb2' 2>/dev/null; then
  echo "install-deps: pip install perfetto"
  python3 -m pip install --quiet --root-user-action=ignore 'perfetto==0.59.1'
fi
