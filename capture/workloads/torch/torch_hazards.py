#!/usr/bin/env python3
"""The five offload hazard shapes C1..C5 in PyTorch (docs/offload-hazards.md
section 3, traces/samples/c*_*.pbtxt), buggy by default, with the one-line
fix under --fixed. C = the compute (current) stream, D = offload stream,
H = reload stream. A GPU sleep keeps the stream of the first racing op busy,
so an unordered second op overtakes it. Each iteration uses its own data and
checks the result on the host; the first iteration only warms the allocators
and is not counted. Exit status 0 whether or not the race manifests.
"""

import argparse
import sys

import torch


class Hazards:
    def __init__(self, elements, sleep_cycles):
        self.n = elements
        self.sleep_cycles = sleep_cycles
        self.d2h = torch.cuda.Stream()
        self.h2d = torch.cuda.Stream()
        self.base = torch.arange(elements, device="cuda", dtype=torch.float32).remainder_(1024)
        self.pinned_a = torch.empty(elements, pin_memory=True)
        self.pinned_b = torch.empty(elements, pin_memory=True)
        self.blocks_reused = 0

    def data(self, seed):
        """A fresh device tensor whose values depend on the seed."""
        return self.base + seed

    def busy(self):
        torch.cuda._sleep(self.sleep_cycles)

    def c1(self, seed, fixed):
        """Reload not waited: the H2D on C reads pinned P before the D2H on D filled it."""
        compute = torch.cuda.current_stream()
        x = self.data(seed)  # X = layer_fwd(inp)
        self.d2h.wait_stream(compute)
        with torch.cuda.stream(self.d2h):
            self.busy()
            self.pinned_a.copy_(x, non_blocking=True)
            offloaded = self.d2h.record_event()
        x.record_stream(self.d2h)
        if fixed:
            compute.wait_event(offloaded)  # Megatron-LM PR 7399
        reloaded = self.pinned_a.to("cuda", non_blocking=True)  # inline reload on C
        dx = reloaded * 1
        torch.cuda.synchronize()
        return int((dx != self.data(seed)).sum())

    def c2(self, seed, fixed):
        """Source freed without record_stream: X's block is reused as Y while the D2H reads X."""
        compute = torch.cuda.current_stream()
        x = self.data(seed)
        self.d2h.wait_stream(compute)
        with torch.cuda.stream(self.d2h):
            self.busy()
            self.pinned_a.copy_(x, non_blocking=True)
        if fixed:
            x.record_stream(self.d2h)  # the allocator defers reusing the block
        x_address = x.data_ptr()
        del x  # X.untyped_storage().resize_(0)
        y = torch.empty(self.n, device="cuda")
        self.blocks_reused += y.data_ptr() == x_address
        y.fill_(-1.0)
        torch.cuda.synchronize()
        return int((self.pinned_a.to("cuda") != self.data(seed)).sum())

    def c3(self, seed, fixed):
        """Pinned buffer recycled: the next offload's D2H writes A while the H2D still reads it."""
        compute = torch.cuda.current_stream()
        self.pinned_a.copy_(self.data(seed))  # microbatch 0's activation, offloaded earlier (synchronous)
        self.h2d.wait_stream(compute)
        with torch.cuda.stream(self.h2d):
            self.busy()
            reloaded = self.pinned_a.to("cuda", non_blocking=True)
            reload_done = self.h2d.record_event()
        # pool.free(A), then microbatch 1's forward offloads Z into A
        z = self.data(-seed)
        self.d2h.wait_stream(compute)
        if fixed:
            self.d2h.wait_event(reload_done)  # reuse A only after the reload read it
        with torch.cuda.stream(self.d2h):
            self.pinned_a.copy_(z, non_blocking=True)
        z.record_stream(self.d2h)
        compute.wait_event(reload_done)
        reloaded.record_stream(compute)
        dx = reloaded * 1
        torch.cuda.synchronize()
        return int((dx != self.data(seed)).sum())

    def c4(self, seed, fixed):
        """Reloaded block reused: R1's block goes to R2's H2D while compute still reads R1."""
        compute = torch.cuda.current_stream()
        self.pinned_a.copy_(self.data(seed))  # two offloaded activations (synchronous copies)
        self.pinned_b.copy_(self.data(-seed))
        self.h2d.wait_stream(compute)
        with torch.cuda.stream(self.h2d):
            r1 = self.pinned_a.to("cuda", non_blocking=True)
            r1_loaded = self.h2d.record_event()
        compute.wait_event(r1_loaded)
        self.busy()
        out1 = r1 * 1
        r1_address = r1.data_ptr()
        del r1  # back to the reload stream's pool, no record_stream(C)
        if fixed:
            self.h2d.wait_stream(compute)  # what FGAO does before each reload
        with torch.cuda.stream(self.h2d):
            r2 = self.pinned_b.to("cuda", non_blocking=True)
            r2_loaded = self.h2d.record_event()
        self.blocks_reused += r2.data_ptr() == r1_address
        compute.wait_event(r2_loaded)
        r2.record_stream(compute)
        out2 = r2 * 1
        torch.cuda.synchronize()
        return int((out1 != self.data(seed)).sum()) + int((out2 != self.data(-seed)).sum())

    def c5(self, seed, fixed):
        """Consumer never waits: a kernel on C reads R before the H2D on H filled it."""
        compute = torch.cuda.current_stream()
        self.pinned_a.copy_(self.data(seed))  # synchronous
        self.h2d.wait_stream(compute)
        with torch.cuda.stream(self.h2d):
            self.busy()
            r = self.pinned_a.to("cuda", non_blocking=True)
            loaded = self.h2d.record_event()
        if fixed:
            compute.wait_event(loaded)
        r.record_stream(compute)
        out = r * 1
        torch.cuda.synchronize()
        return int((out != self.data(seed)).sum())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hazard", required=True, choices=["C1", "C2", "C3", "C4", "C5"])
    parser.add_argument("--fixed", action="store_true")
    parser.add_argument("--iterations", type=int, default=3, help="counted iterations")
    parser.add_argument("--elements", type=int, default=1 << 22, help="floats per tensor")
    parser.add_argument("--sleep-cycles", type=int, default=20_000_000, help="GPU cycles the slow stream sleeps")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("torch_hazards.py: needs a CUDA GPU (torch.cuda.is_available() is False)")

    hazards = Hazards(args.elements, args.sleep_cycles)
    run = getattr(hazards, args.hazard.lower())
    corrupted = 0
    for iteration in range(args.iterations + 1):
        torch.cuda.nvtx.range_push(f"iteration{iteration}")
        bad = run(4096.0 * (iteration + 1), args.fixed)
        torch.cuda.nvtx.range_pop()
        if iteration > 0 and bad:  # iteration 0 warms the allocators
            corrupted += 1
            print(f"iteration {iteration}: {bad} of {args.elements} elements corrupted")
    variant = "fixed" if args.fixed else "buggy"
    verdict = "DATA CORRUPTED (the race manifested)" if corrupted else "data intact"
    print(f"torch {args.hazard} {variant}: {corrupted} of {args.iterations} iterations corrupted: {verdict}")
    if args.hazard in ("C2", "C4"):
        print(f"the freed block was handed out again in {hazards.blocks_reused} of {args.iterations + 1} iterations")
    print(f"corrupted_iterations={corrupted}")


if __name__ == "__main__":
    main()
