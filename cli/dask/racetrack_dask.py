"""Runs `racetrack check` on many traces on a Dask cluster (docs/distributed.md).

`racetrack check --dask ADDRESS TRACES...` runs this script: each trace is
checked by `racetrack check --format json` on a Dask worker, which needs the
same `racetrack` binary and the traces at the same paths (a shared file
system); the reports come back to `racetrack`, which merges them exactly as
it merges its own pool's. ADDRESS is a scheduler (tcp://host:8786), or
local:N for a LocalCluster of N worker processes on this machine.

Output on stdout, one JSON document:
  {"results": [{"path": ..., "error": null | "...", "report": {...} | null}],
   "workers": N, "seconds": S}
Progress goes to stderr. Exit status 2 when the cluster cannot be reached.
"""

import argparse
import json
import subprocess
import sys
import time


def worker_memory_args():
    """--max-memory-mib for the check: the Dask worker's own memory limit, so
    that several workers on one machine cannot together exhaust it."""
    try:
        from distributed import get_worker

        limit = get_worker().memory_manager.memory_limit
    except (ImportError, ValueError, AttributeError):
        return []
    return ["--max-memory-mib", str(max(16, int(limit) >> 20))] if limit else []


def check_trace(racetrack, worker_args, path):
    """On a worker: one trace's check report, or why it has none."""
    try:
        proc = subprocess.run([racetrack, "check", "--format", "json", *worker_memory_args(), *worker_args, path],
                              capture_output=True, text=True)
    except OSError as e:
        return {"path": path, "error": f"cannot run {racetrack} on this worker: {e}", "report": None}
    if proc.returncode in (0, 1):
        try:
            return {"path": path, "error": None, "report": json.loads(proc.stdout)}
        except ValueError as e:
            return {"path": path, "error": f"the worker's report is not JSON: {e}", "report": None}
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    why = lines[-1] if lines else f"racetrack check exited with status {proc.returncode}"
    return {"path": path, "error": why, "report": None}


def connect(address):
    """A Dask client for ADDRESS; local:N starts a LocalCluster of N processes."""
    from distributed import Client, LocalCluster

    if address.startswith("local:"):
        workers = int(address.split(":", 1)[1])
        if workers < 1:
            raise ValueError("local:N needs N >= 1")
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        return Client(cluster), cluster
    return Client(address, timeout="10s"), None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scheduler", required=True, help="tcp://host:port, or local:N")
    parser.add_argument("--racetrack", required=True, help="the racetrack binary the workers run")
    parser.add_argument("--worker-arg", action="append", default=[],
                        help="an argument passed on to each worker's racetrack check")
    parser.add_argument("traces", nargs="+")
    args = parser.parse_args(argv)
    try:
        from distributed import as_completed
    except ImportError:
        print("racetrack check --dask: the Python package 'distributed' is not installed "
              "(pip install dask distributed)", file=sys.stderr)
        return 2
    started = time.monotonic()
    try:
        client, cluster = connect(args.scheduler)
    except (OSError, ValueError, TimeoutError) as e:
        print(f"racetrack check --dask: cannot reach the Dask scheduler {args.scheduler}: {e}",
              file=sys.stderr)
        return 2
    try:
        workers = len(client.scheduler_info().get("workers", {}))
        futures = client.map(check_trace, [args.racetrack] * len(args.traces),
                             [args.worker_arg] * len(args.traces), args.traces, pure=False)
        by_path = {}
        for done, future in enumerate(as_completed(futures), 1):
            result = future.result()
            by_path[result["path"]] = result
            print(f"checked {done}/{len(args.traces)} traces on {workers} Dask worker(s)",
                  file=sys.stderr, flush=True)
        results = [by_path[p] for p in args.traces]
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    json.dump({"results": results, "workers": workers, "seconds": time.monotonic() - started}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
