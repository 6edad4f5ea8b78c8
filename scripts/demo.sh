#!/usr/bin/env bash
# Installs what racetrack needs, builds it and runs the demo: the Megatron-LM
# inline-reload race (issue 7398) found, explained and fixed.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target racetrack

rt=build/cli/racetrack
race=traces/samples/megatron_inline_reload.race.pbtxt
fixed=$(mktemp --suffix=.rtrace)
trap 'rm -f "$fixed"' EXIT

echo "== the trace: a two-layer offload + recompute step"
"$rt" info "$race" | head -20
echo
echo "== racetrack check (exit status 1: a hazard was found)"
status=0
"$rt" check "$race" --emit-fixed "$fixed" || status=$?
[ "$status" -eq 1 ] || { echo "demo: expected check to find the race (exit 1), got $status" >&2; exit 1; }
echo
echo "== racetrack sim: the race corrupts the reloaded activation; the fix's cost"
status=0
"$rt" sim "$race" --adversarial --apply-fixes || status=$?
[ "$status" -eq 1 ] || { echo "demo: expected the race to manifest (exit 1), got $status" >&2; exit 1; }
echo
echo "== the same trace with the suggested fix applied checks clean"
"$rt" check "$fixed"
