#!/usr/bin/env bash
# replay --stress at scale: for each injected shape, a synth trace of 10^6
# ops (one hazard injected), replayed with the host backend once without
# --stress and once with it. Prints, per shape, the definite hazards check
# found, how many manifested under --stress (the ratio must be 1), the
# longest hold-back and the pair gap it was sized from, and the stressed
# run's wall time against the unstressed run's (the ratio: what the
# hold-backs cost; the first run of each, without loading and checking).
#
# usage: bench/replay_stress.sh [--ops N] [--seed N] [--shapes "C1 C2 ..."]
#                               [--timing traced|fast] [--racetrack PATH]
set -euo pipefail

ops=1000000 seed=1 shapes="C1 C2 C3 C4 C5" timing=traced
racetrack="$(dirname "$0")/../build/cli/racetrack"
while [ $# -gt 0 ]; do
  case "$1" in
    --ops) ops="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --shapes) shapes="$2"; shift 2 ;;
    --timing) timing="$2"; shift 2 ;;
    --racetrack) racetrack="$2"; shift 2 ;;
    *) echo "replay_stress: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -x "$racetrack" ] || { echo "replay_stress: no racetrack at $racetrack (build it first)" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "racetrack replay --stress benchmark: host backend, --timing $timing, synth --ops $ops --seed $seed, $(nproc) CPUs"
printf '%-6s %9s %12s %12s %12s %12s %12s %9s\n' shape ops definite manifested gap_ms hold_ms stressed_s wall_x
for shape in $shapes; do
  trace="$work/$shape.rtrace"
  "$racetrack" synth -o "$trace" --ops "$ops" --seed "$seed" --inject "$shape" >/dev/null
  # Exit status 1 means a hazard manifested: expected under --stress.
  "$racetrack" replay --timing "$timing" --format json "$trace" >"$work/plain.json" || [ $? -eq 1 ]
  "$racetrack" replay --stress --timing "$timing" --format json "$trace" >"$work/stress.json" || [ $? -eq 1 ]
  python3 - "$shape" "$work/plain.json" "$work/stress.json" <<'PY'
import json, sys
shape, plain, stress = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
definite = [h for h in stress["hazards"] if h["hazard"]["confidence"] == "definite"]
shown = [h for h in definite if h["manifested"]]
gap = max((h["hold_back"]["gap_ns"] or 0 for h in definite), default=0)
hold = max((h["hold_back"]["longest_ns"] for h in definite), default=0)
print("%-6s %9d %12d %12s %12.1f %12.1f %12.2f %8.2fx" % (
    shape, stress["ops"], len(definite), "%d (%.2f)" % (len(shown), len(shown) / len(definite) if definite else 1.0),
    gap / 1e6, hold / 1e6, stress["wall_ns"] / 1e9, stress["wall_ns"] / max(plain["wall_ns"], 1)))
if plain["corrupted_reads"] or any(h["manifested"] for h in plain["hazards"]):
    print("  (the unstressed run showed a hazard too)")
PY
done
echo
echo "manifested: definite hazards that corrupted data under --stress (ratio to definite in brackets);"
echo "gap_ms: the longest pair gap a hold was sized from; hold_ms: the longest hold drawn from;"
echo "wall_x: the --stress run's wall time / the unstressed run's, measured here."
