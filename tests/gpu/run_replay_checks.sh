#!/usr/bin/env bash
# GPU checks for `racetrack replay --backend cuda`: sample verdicts, clean and
# injected synth traces, makespan fidelity, issue rate, and traces the
# capture checks left behind (tests/gpu/README.md). Run from the root of the
# bundle that scripts/gpu-bundle.sh stages, on a machine with a GPU and the
# CUDA 13 driver; needs only bash and python3 there.
#
#   bash tests/gpu/run_replay_checks.sh [--sections samples,synth,fidelity,rate,captures]
#                                       [--seeds N] [--repeat N] [--budget-s S] [--work-dir DIR]
#
# Prints a table last; exits 1 when any check failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
if [ ! -x bin/racetrack ] || [ ! -f traces/samples/manifest.json ]; then
  echo "run_replay_checks: $(pwd) is not a bundle root (scripts/gpu-bundle.sh)" >&2
  exit 2
fi
if [ -e lib/NO_RPATH ]; then
  # Bundled without patchelf: the binaries find their libraries this way.
  export LD_LIBRARY_PATH="$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export PYTHONUNBUFFERED=1
exec python3 tests/gpu/run_replay_checks.py "$@"
