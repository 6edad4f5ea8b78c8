#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan, in build-fuzz with
# ccache), writes their seed corpora, and runs each target for a while
# (docs/fuzzing.md). Fails on any crash, sanitizer report, leak, input that
# runs longer than the timeout, or allocation over the memory limit; the
# input that did it is left in build-fuzz/artifacts/.
#
#   scripts/fuzz.sh [--seconds N] [--jobs J] [TARGET...]
#
# --seconds: per target (default 60); --jobs: targets run at once (default:
# the number of CPUs); TARGETs: a subset of container text json check sim
# replay why.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
jobs=$(nproc)
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(container text json check sim replay why)

# The limits every target runs under.
rss_limit_mb=2048     # whole process
malloc_limit_mb=2048  # one allocation
timeout_s=10          # one input

scripts/install-deps.sh
build=build-fuzz
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); else launcher=(); fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  "${launcher[@]}" -DRACETRACK_FUZZ=ON -DRACETRACK_WERROR=ON -DRACETRACK_BUILD_TESTS=OFF \
  -DRACETRACK_BUILD_BENCH=OFF -DRACETRACK_BUILD_VIEWER=OFF -DRACETRACK_BUILD_CUDA=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target fuzz_all

rm -rf "$build/seeds"
"$build/fuzz/fuzz_make_seeds" "$build/seeds" traces/samples tests/fuzz_regressions
mkdir -p "$build/artifacts" "$build/logs"
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
command -v llvm-symbolizer >/dev/null && export ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer)

# One target: its growing corpus first (new inputs go there), then the
# seeds and the saved regressions.
run_target() {
  local t=$1 corpus=$build/corpus/$1
  mkdir -p "$corpus"
  local regressions=()
  [ -d "tests/fuzz_regressions/$t" ] && regressions=("tests/fuzz_regressions/$t")
  "$build/fuzz/fuzz_$t" "$corpus" "$build/seeds/$t" "${regressions[@]}" \
    -max_total_time="$seconds" -rss_limit_mb=$rss_limit_mb -malloc_limit_mb=$malloc_limit_mb \
    -timeout=$timeout_s -artifact_prefix="$build/artifacts/$t-" -print_final_stats=1 \
    >"$build/logs/$t.log" 2>&1
}

echo "fuzz: ${targets[*]}, ${seconds} s each, $jobs at a time (rss ${rss_limit_mb} MB, one allocation" \
  "${malloc_limit_mb} MB, ${timeout_s} s an input)"
failed=()
# In batches of $jobs (every target runs equally long).
for ((i = 0; i < ${#targets[@]}; i += jobs)); do
  batch=("${targets[@]:i:jobs}")
  pids=()
  for t in "${batch[@]}"; do
    run_target "$t" &
    pids+=($!)
  done
  for k in "${!batch[@]}"; do
    t=${batch[$k]}
    if wait "${pids[$k]}"; then
      echo "fuzz: $t: ok, $(grep -o 'number_of_executed_units: *[0-9]*' "$build/logs/$t.log" | grep -o '[0-9]*$') inputs run"
    else
      echo "fuzz: $t: FAILED (log $build/logs/$t.log)"
      grep -E "ERROR: |SUMMARY|runtime error|Test unit written" "$build/logs/$t.log" | head -5 || true
      failed+=("$t")
    fi
  done
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]} (inputs in $build/artifacts/)"
  exit 1
fi
echo "fuzz: every target ran clean"
