#!/usr/bin/env bash
# Installs what racetrack needs, builds it and runs the demo on a sample trace:
# the Megatron-LM inline-reload race (issue 7398).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target racetrack

sample=traces/samples/megatron_inline_reload.race.pbtxt
rt=build/cli/racetrack
set -x
"$rt" info "$sample"
"$rt" dump "$sample"
