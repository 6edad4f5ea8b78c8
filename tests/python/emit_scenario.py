"""Writes the NVTX calls racetrack_torch makes for a small offload scenario
(fake tensors, real tracer), one per line: "push<TAB>text", "mark<TAB>text"
or "pop". The C++ test tests/capture/assembler_python_test.cpp feeds them to
the trace assembler, so the two sides of the message grammar cannot drift.

    python3 emit_scenario.py OUT
"""

import sys

from fakes import FakeOp, FakeTensor, RecordingSink
from racetrack_torch.stacks import StackWalker
from racetrack_torch.tracer import OpTracer

STREAM = 0x5000  # the compute stream's handle in the C++ test
ACTIVATION, WEIGHT, OUTPUT, PINNED = 0x7F0000000000, 0x7F0000010000, 0x7F0000020000, 0x90000


class FixedStack(StackWalker):
    def __init__(self):
        super().__init__(())

    def frames(self):
        return ["train.py:42 forward", "train.py:90 step"]


def main(path):
    sink = RecordingSink()
    tracer = OpTracer(sink, FakeTensor, lambda device_index: STREAM, stack_walker=FixedStack(), stacks=True)
    activation = FakeTensor(ACTIVATION, [1024])
    weight = FakeTensor(WEIGHT, [1024])
    output = FakeTensor(OUTPUT, [1024])
    pinned = FakeTensor(PINNED, [1024], device="cpu", pinned=True)

    mul = FakeOp("mul.Tensor(Tensor self, Tensor other) -> Tensor", lambda *a, **k: output)
    add_ = FakeOp("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
                  lambda *a, **k: activation)
    cpu_sum = FakeOp("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
                     lambda *a, **k: FakeTensor(0xA0000, [1], device="cpu"))
    tracer.run(mul, (activation, weight), {})      # reads both, writes a fresh output
    tracer.run(add_, (activation, output), {})     # in place: activation rw
    tracer.run(cpu_sum, (pinned,), {})            # the host reads a pinned buffer
    tracer.label(activation, "layer3 activation")
    del output
    tracer.flush()

    with open(path, "w") as out:
        for kind, message in sink.calls:
            out.write(kind if message is None else f"{kind}\t{message}")
            out.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
