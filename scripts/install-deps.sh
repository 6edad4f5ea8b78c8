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
)


# Machine-code access modes (racetrack modes, tests/code): the triton wheel
# bundles nvdisasm and compiles the Triton test kernels ahead of time;
# nvidia-cufile is a real CUDA library's fatbin to test on. ~290 MB to
# download, ~1 GB installed; skipped when both are at these versions.
install_python_wheels() {
  command -v python3 >/dev/null || return 0
  if python3 -c 'import importlib.metadata as m; assert m.version("triton") == "3.9.0" and m.version("nvidia-cufile") == "1.17.1.22"' 2>/dev/null; then
    return 0
  fi
  echo "install-deps: pip installing triton==3.9.0 nvidia-cufile==1.17.1.22"
  python3 -m pip install -q triton==3.9.0 nvidia-cufile==1.17.1.22 ||
    python3 -m pip install -q --break-system-packages triton==3.9.0 nvidia-cufile==1.17.1.22
}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  install_python_wheels
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
install_python_wheels
