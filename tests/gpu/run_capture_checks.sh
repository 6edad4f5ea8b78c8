#!/usr/bin/env bash
# GPU checks for `racetrack capture`: verdicts of the captured workloads,
# dropped records and overhead (tests/gpu/README.md). Run from the root of the
# bundle that scripts/gpu-bundle.sh stages, on a machine with a GPU, the
# CUDA 13 driver and PyTorch; needs only bash and python3 there.
#
#   bash tests/gpu/run_capture_checks.sh [--sections cuda,torch,overhead,torch-hazards]
#                                        [--repeats N] [--budget-s S] [--work-dir DIR]
#
# Prints a table last; exits 1 when any check failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
if [ ! -x bin/racetrack ] || [ ! -f capture/workloads/expected.json ]; then
  echo "run_capture_checks: $(pwd) is not a bundle root (scripts/gpu-bundle.sh)" >&2
  exit 2
fi
if [ -e lib/NO_RPATH ]; then
  # Bundled without patchelf: the binaries find their libraries this way.
  export LD_LIBRARY_PATH="$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export PYTHONUNBUFFERED=1
exec python3 tests/gpu/run_capture_checks.py "$@"
