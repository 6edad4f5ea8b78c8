#!/usr/bin/env bash
# Times `racetrack modes` on a large fatbin twice with a fresh cache: the
# first run disassembles and analyses every cubin, the second reads the
# cached result. Prints both and the ratio cached / uncached.
#
# usage: bench/modes_cache.sh [FILE] [--arch SM] [--racetrack PATH]
# FILE defaults to the libcublas.so.13 of the nvidia-cublas wheel (or the
# CUDA toolkit's); a shared library or fatbin of any size works.
set -euo pipefail

file="" arch=() racetrack="$(dirname "$0")/../build/cli/racetrack"
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) arch=(--arch "$2"); shift 2 ;;
    --racetrack) racetrack="$2"; shift 2 ;;
    *) file="$1"; shift ;;
  esac
done
if [ -z "$file" ]; then
  site="$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null || true)"
  for candidate in "$site/nvidia/cu13/lib/libcublas.so.13" /usr/local/cuda/lib64/libcublas.so.13; do
    if [ -f "$candidate" ]; then file="$candidate"; break; fi
  done
fi
if [ -z "$file" ] || [ ! -f "$file" ]; then
  echo "modes_cache: no input; pass a fatbin or shared library (pip install nvidia-cublas gives libcublas.so.13)" >&2
  exit 2
fi

cache="$(mktemp -d)"
trap 'rm -rf "$cache"' EXIT
run() {
  local start end
  start=$(date +%s.%N)
  XDG_CACHE_HOME="$cache" "$racetrack" modes "${arch[@]}" "$file" >"$cache/out.txt"
  end=$(date +%s.%N)
  python3 -c "print($end - $start)"
}
size=$(stat -c %s "$file")
echo "input: $file ($((size / 1048576)) MiB) ${arch[*]}"
first=$(run)
head -1 "$cache/out.txt" | sed 's/^# /summary: /'
second=$(run)
python3 -c "print('uncached: %.2f s\ncached:   %.2f s\nratio cached/uncached: %.4f' % ($first, $second, $second / $first))"
