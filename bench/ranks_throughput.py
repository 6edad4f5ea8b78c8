#!/usr/bin/env python3
"""Throughput of checking many rank traces (docs/distributed.md): one
`racetrack check` process per trace in a loop (the baseline), the local pool
(`racetrack check DIR`) and a Dask LocalCluster (`racetrack check --dask
local:N DIR`), on `racetrack synth --ranks R` traces, in the same run.

    bench/ranks_throughput.py build/cli/racetrack [--ranks 64] [--ops 1000000] [--workers N]

Prints traces/s and ops/s for each, and each one's speed as a ratio to the
loop. The traces (about 19 MB per 10^6 ops) go to a temporary directory,
removed afterwards.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def timed(argv):
    started = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return time.monotonic() - started, proc.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("racetrack")
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--ops", type=int, default=1000000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="racetrack-ranks-")
    try:
        print(f"writing {args.ranks} rank traces of {args.ops} ops ...", file=sys.stderr, flush=True)
        subprocess.run([args.racetrack, "synth", "-o", os.path.join(directory, "rank-%r.rtrace"), "--ranks",
                        str(args.ranks), "--ops", str(args.ops), "--inject", f"C12_bucket:{args.ranks}"],
                       check=True, capture_output=True)
        traces = sorted(os.path.join(directory, f) for f in os.listdir(directory) if f.endswith(".rtrace"))

        loop = 0.0
        for trace in traces:
            seconds, _ = timed([args.racetrack, "check", "--format", "json", trace])
            loop += seconds
        pool, report = timed([args.racetrack, "check", "--format", "json", directory])
        dask, dask_report = timed([args.racetrack, "check", "--format", "json", "--dask",
                                   f"local:{args.workers}", directory])
        merged, merged_dask = json.loads(report), json.loads(dask_report)
        ops = merged["summary"]["ops"]
        same = merged["groups"] == merged_dask["groups"]

        print(f"{len(traces)} traces, {ops} ops in all, {os.cpu_count()} cores; "
              f"pool and Dask reports identical: {same}")
        print(f"{'engine':<34} {'seconds':>8} {'traces/s':>9} {'M ops/s':>8} {'vs loop':>8}")
        for name, seconds in (("one process per trace, in a loop", loop), ("local pool (check DIR)", pool),
                              (f"Dask LocalCluster, {args.workers} workers", dask)):
            print(f"{name:<34} {seconds:8.1f} {len(traces) / seconds:9.2f} {ops / seconds / 1e6:8.2f} "
                  f"{loop / seconds:7.2f}x")
        return 0 if same else 1
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
