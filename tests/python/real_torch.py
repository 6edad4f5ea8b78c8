"""The real PyTorch for the tests that need it: None where it is not
installed, unless RACETRACK_REQUIRE_TORCH=1 (set by ctest, whose machines
install it), where its absence is an error."""

import os

try:
    import torch
except ImportError:  # pragma: no cover - depends on the machine
    if os.environ.get("RACETRACK_REQUIRE_TORCH") == "1":
        raise
    torch = None


class Sink:
    """Stands in for torch.cuda.nvtx: keeps the messages the tracer sends."""

    def __init__(self):
        self.calls = []

    def range_push(self, message):
        self.calls.append(("push", message))

    def range_pop(self):
        self.calls.append(("pop", None))

    def mark(self, message):
        self.calls.append(("mark", message))
