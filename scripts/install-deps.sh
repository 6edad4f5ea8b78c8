#!/usr/bin/env bash
# Installs what racetrack needs to build and test: Debian packages, then the
# Python packages some tests use (from PyPI). Idempotent: skips apt when every
# package is installed and pip when every wheel is at its version.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libprotobuf-dev protobuf-compiler libzstd-dev zlib1g-dev
  libcli11-dev libboost-dev libboost-graph-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev nlohmann-json3-dev
  qt6-base-dev qt6-base-dev-tools libqt6opengl6-dev libgl-dev
  fonts-dejavu-core fontconfig
  clang-format python3 python3-jsonschema
  clang libclang-rt-14-dev llvm  # scripts/fuzz.sh: libFuzzer and llvm-symbolizer
)

# From PyPI, for tests:
# - triton bundles nvdisasm (racetrack modes) and compiles the Triton test
#   kernels ahead of time; nvidia-cufile is a real CUDA library's fatbin to
#   analyse (tests/code). ~290 MB to download, ~1 GB installed.
# - perfetto carries Perfetto's full trace schema, which checks what
#   `racetrack export` writes (tests/export/verify_export.py).
# - torch (PyPI's wheel, with its CUDA libraries: ~3.5 GB to download and
#   install, about 45 s here) runs the real-PyTorch tests on the CPU
#   (tests/python/test_real_torch.py, test_values_real_torch.py).
# - dask and distributed run `racetrack check --dask` and its LocalCluster
#   test (tests/dask).
wheels=(triton==3.9.0 nvidia-cufile==1.17.1.22 perfetto==0.59.1 torch==2.15.0 dask==2026.8.0
  distributed==2026.8.0)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} Debian packages present"
else
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

stale=()
for w in "${wheels[@]}"; do
  python3 -c "import importlib.metadata as m, sys; sys.exit(m.version('${w%%==*}') != '${w##*==}')" 2>/dev/null ||
    stale+=("$w")
done
if [ ${#stale[@]} -eq 0 ]; then
  echo "install-deps: all ${#wheels[@]} Python packages present"
else
  echo "install-deps: pip installing ${stale[*]}"
  python3 -m pip install --quiet --root-user-action=ignore "${stale[@]}"
fi
