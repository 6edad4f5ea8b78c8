"""What racetrack_torch adds per ATen operator, against plain PyTorch and an
empty TorchDispatchMode (the floor of any Python dispatch-mode tracer),
and what recording values for `racetrack diff` adds on top (`capture --torch
--values`, as a ratio to `--torch` alone), measured in the same run. Small in-place ops: the launch-bound case.
On CUDA when available (run it under `racetrack capture` for the NVTX cost
too), else on CPU.

    PYTHONPATH=capture/python python3 bench/torch_overhead.py [--ops N]
"""

import argparse
import os
import sys
import tempfile
import time

try:
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
except ImportError:
    print("torch_overhead: PyTorch is not installed; nothing to measure")
    sys.exit(0)

import racetrack_torch


class EmptyMode(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def per_op_us(x, ops, repeats=5):
    def step():
        for _ in range(ops // 2):
            x.add_(1).mul_(0.5)
        if x.is_cuda:
            torch.cuda.synchronize()

    step()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - start)
    return best / ops * 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ops", type=int, default=4000)
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.randn(64, device=device)

    plain = per_op_us(x, args.ops)
    with EmptyMode():
        empty = per_op_us(x, args.ops)
    racetrack_torch.enable()
    traced = per_op_us(x, args.ops)
    with tempfile.TemporaryDirectory() as directory:
        racetrack_torch.record_values(os.path.join(directory, "values.jsonl"))
        values = per_op_us(x, args.ops)
        racetrack_torch.stop_values()
    racetrack_torch.enable(stacks=True)
    stacks = per_op_us(x, args.ops)
    racetrack_torch.disable()

    print(f"per ATen op on {device} ({args.ops} small in-place ops, best of 5):")
    print(f"  plain                    {plain:7.2f} us")
    print(f"  empty dispatch mode      {empty:7.2f} us  ({empty / plain:.2f}x plain)")
    print(f"  racetrack_torch          {traced:7.2f} us  ({traced / plain:.2f}x plain, "
          f"{traced / empty:.2f}x the empty mode)")
    print(f"  racetrack_torch + values {values:7.2f} us  ({values / traced:.2f}x racetrack_torch alone)")
    print(f"  racetrack_torch + stacks {stacks:7.2f} us  ({stacks / plain:.2f}x plain)")


if __name__ == "__main__":
    main()
