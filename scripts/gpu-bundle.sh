#!/usr/bin/env bash
# Stages a self-contained folder to run the capture checks on a GPU machine
# that cannot build racetrack (no protobuf there): the racetrack binary, the
# capture library, the CUDA workloads, the PyTorch workloads, the expected
# verdicts, the GPU check scripts, and every shared library they need that is
# not glibc or the driver. tests/gpu/README.md says how to run it.
#
#   scripts/gpu-bundle.sh [BUILD_DIR=build] [OUT_DIR=gpu-bundle]
#
# BUILD_DIR must have racetrack, racetrack_capture and the wl_* workloads
# built. Binaries get RPATH $ORIGIN/../lib and libraries $ORIGIN (patchelf,
# installed with apt when missing and possible); without patchelf the run
# script sets LD_LIBRARY_PATH instead (lib/NO_RPATH marks that case).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-gpu-bundle}
limit_mib=64

die() { echo "gpu-bundle: $*" >&2; exit 1; }
[ -x "$build/cli/racetrack" ] || die "$build/cli/racetrack missing: make -C $build racetrack"
[ -f "$build/capture/libracetrack_capture.so" ] || die "$build/capture/libracetrack_capture.so missing: make -C $build racetrack_capture"
workloads=("$build"/capture/workloads/wl_*)
[ -x "${workloads[0]}" ] || die "no workloads in $build/capture/workloads: make -C $build the wl_* targets"

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/capture/workloads/torch" "$out/tests/gpu"
cp "$build/cli/racetrack" "${workloads[@]}" "$out/bin/"
cp "$build/capture/libracetrack_capture.so" "$out/lib/"
cp capture/workloads/expected.json "$out/capture/workloads/"
cp capture/workloads/torch/*.py "$out/capture/workloads/torch/"
cp tests/gpu/*.sh tests/gpu/*.py tests/gpu/README.md "$out/tests/gpu/"
# The replay checks (run_replay_checks.sh) replay the samples against their manifest.
mkdir -p "$out/traces/samples"
cp traces/samples/*.pbtxt traces/samples/manifest.json "$out/traces/samples/"
# `racetrack capture --torch` looks for its Python package at bin/../python.
if [ -d capture/python ]; then
  mkdir -p "$out/python"
  tar -C capture/python --exclude=__pycache__ -cf - . | tar -C "$out/python" -xf -
else
  echo "gpu-bundle: warning: capture/python is missing, captures with --torch will fail" >&2
fi
# Debug info is not needed there and is most of the size.
strip --strip-debug "$out"/bin/* "$out/lib/libracetrack_capture.so"

# Every library ldd resolves (it lists indirect ones too), except glibc and
# the driver, which the GPU machine has in versions matching its kernel.
part_of_system() {
  case "$1" in
    linux-vdso.so* | ld-linux* | libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | \
      libresolv.so* | libutil.so* | libanl.so* | libmvec.so* | libnsl.so* | libcuda.so* | libnvidia-*) return 0 ;;
  esac
  return 1
}
for file in "$out"/bin/* "$out/lib/libracetrack_capture.so"; do
  while read -r name arrow path _; do
    [ "$arrow" = "=>" ] || continue
    part_of_system "$name" && continue
    if [ "$path" = "not" ]; then
      echo "gpu-bundle: warning: $(basename "$file") needs $name, which ldd cannot find" >&2
    elif [ ! -e "$out/lib/$name" ]; then
      cp -L "$path" "$out/lib/$name"
    fi
  done < <(ldd "$file")
done
# CUPTI comes from the toolkit when ldd could not resolve it.
if [ ! -e "$out/lib/libcupti.so.13" ]; then
  for dir in /usr/local/cuda/lib64 /usr/local/cuda/extras/CUPTI/lib64; do
    if [ -e "$dir/libcupti.so.13" ]; then cp -L "$dir/libcupti.so.13" "$out/lib/"; break; fi
  done
fi
[ -e "$out/lib/libcupti.so.13" ] || echo "gpu-bundle: warning: no libcupti.so.13 bundled" >&2

if ! command -v patchelf > /dev/null && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
  echo "gpu-bundle: installing patchelf" >&2
  apt-get install -y -qq patchelf > /dev/null 2>&1 ||
    { apt-get update -qq > /dev/null 2>&1 && apt-get install -y -qq patchelf > /dev/null 2>&1; } || true
fi
# shellcheck disable=SC2016 # $ORIGIN is for the loader, not the shell
if command -v patchelf > /dev/null; then
  for file in "$out"/bin/*; do patchelf --set-rpath '$ORIGIN/../lib' "$file"; done
  # NVIDIA's own libraries need nothing beside them; leave them untouched.
  for file in "$out"/lib/*.so*; do
    case "$(basename "$file")" in libcu* | libnv*) continue ;; esac
    patchelf --set-rpath '$ORIGIN' "$file"
  done
  # Everything must now resolve inside the bundle (or to glibc / the driver).
  for file in "$out"/bin/* "$out/lib/libracetrack_capture.so"; do
    ldd "$file" | awk -v f="$file" '$3 == "not" && $1 !~ /^libcuda\.so/ { print "gpu-bundle: warning: " f " cannot find " $1 }' >&2
  done
else
  touch "$out/lib/NO_RPATH"
  echo "gpu-bundle: warning: no patchelf, the run script will set LD_LIBRARY_PATH" >&2
fi

"$out/bin/racetrack" --help > /dev/null || die "the bundled racetrack does not run"
# A string only the CUDA replay backend has (sim/replay/src/cuda_backend.cu).
grep -qa "the replay kernels need" "$out/bin/racetrack" ||
  echo "gpu-bundle: warning: racetrack was built without the CUDA replay backend (no nvcc?), the replay checks will fail" >&2
size_kib=$(du -sk "$out" | cut -f1)
echo "gpu-bundle: $out is $((size_kib / 1024)) MiB ($(find "$out" -type f | wc -l) files)"
[ "$size_kib" -le $((limit_mib * 1024)) ] || die "$out is over $limit_mib MiB"
