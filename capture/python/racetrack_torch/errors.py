"""One-line reports on stderr: racetrack must never break the traced program."""

import sys


def report(what, error=None):
    """Prints "racetrack: <what> (<Error>: <message>)" as one line on stderr."""
    line = f"racetrack: {what}"
    if error is not None:
        line += f" ({type(error).__name__}: {error})"
    try:
        print(" ".join(line.split()), file=sys.stderr, flush=True)
    except Exception:  # a closed stderr must not break the program either
        pass
