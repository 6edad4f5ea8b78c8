#!/usr/bin/env bash
# Installs what racetrack needs, builds everything and runs the whole test
# suite. With --asan: a separate AddressSanitizer + UndefinedBehaviorSanitizer
# build of the non-GUI, non-CUDA code and its tests.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
scripts/install-deps.sh

jobs=$(nproc)
if [ "$mode" = "--asan" ]; then
  build=build-asan
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DRACETRACK_WERROR=ON \
    -DRACETRACK_BUILD_VIEWER=OFF -DRACETRACK_BUILD_CUDA=OFF -DRACETRACK_BUILD_BENCH=OFF \
    -DRACETRACK_SANITIZE=ON
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
else
  build=build
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRACETRACK_WERROR=ON
fi
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs"
