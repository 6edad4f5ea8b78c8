"""racetrack's sitecustomize: `racetrack capture --torch` puts this directory
first on PYTHONPATH, so Python runs this file at start-up.

With RACETRACK_TORCH=1 it arms a hook that enables racetrack_torch once the
program imports torch (torch itself is not imported here). Then it runs the
next sitecustomize on sys.path, if any, so the user's own is not hidden.
Nothing here may break the program: failures print one "racetrack:" line.
"""

import os
import sys


def _start_racetrack():
    if os.environ.get("RACETRACK_TORCH") != "1":
        return
    try:
        from racetrack_torch import autostart

        autostart.install_from_environment()
    except Exception as error:
        print(f"racetrack: PyTorch tracing is off, the program runs untraced "
              f"({type(error).__name__}: {error})", file=sys.stderr)


def _run_next_sitecustomize():
    """Finds a sitecustomize on sys.path after this directory and runs it as
    Python's site module would have (its errors are printed, not raised)."""
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    entries = [os.path.abspath(entry or os.curdir) for entry in sys.path]
    if here not in entries:
        return
    later = [entry for entry in sys.path[entries.index(here) + 1:]
             if os.path.abspath(entry or os.curdir) != here]
    try:
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", later)
        if spec is None or spec.loader is None:
            return
        module = importlib.util.module_from_spec(spec)
        sys.modules["sitecustomize"] = module
        spec.loader.exec_module(module)
    except Exception as error:
        print(f"Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
              f"{type(error).__name__}: {error}", file=sys.stderr)


_start_racetrack()
_run_next_sitecustomize()
