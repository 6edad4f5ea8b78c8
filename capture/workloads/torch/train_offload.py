#!/usr/bin/env python3
"""A small MLP-transformer training loop with activation offloading and
recompute, in the style of Megatron-LM's fine-grained activation offloading
(FGAO; docs/offload-hazards.md §1).

Each block's input is the only activation kept for backward, and it is kept
on the host: in forward it is copied to a pinned buffer on the offload (D2H)
stream, after that stream joined the compute stream, and an event marks the
copy done. In backward the block is recomputed from the reloaded input. The
reload of the next group is prefetched on the reload (H2D) stream at the end
of each block's backward (the reload stream first joins the compute stream, so
its allocations never reuse blocks compute still reads), and the block that
has nothing prefetched (the last one) is reloaded inline on the compute
stream after waiting on its offload event.

--reload inline reloads every group inline (with the wait); --race
inline-reload does so without waiting on the offload event: the race of
Megatron-LM issue 7398 (fixed by PR 7399, the wait). --offload-delay-cycles
keeps the offload stream busy before each copy so that the race shows;
--verify compares the gradients with those of the same model without
offloading.
"""

import argparse
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn

PRESETS = {
    # name: (layers, hidden, batch)
    "default": (4, 1024, 2048),
    "launch_bound": (24, 128, 64),  # tiny kernels: the host's launch path sets the pace
    "compute_bound": (4, 4096, 8192),  # large matrix products: GPU time sets the pace
}


class OffloadGroup:
    """One block input on its way to the host and back."""

    def __init__(self, host_copy, offloaded):
        self.host_copy = host_copy  # pinned buffer written by the D2H
        self.offloaded = offloaded  # event on the offload stream after the D2H
        self.reloaded_tensor = None  # set by a prefetch on the reload stream
        self.reloaded = None  # event on the reload stream after the H2D


class OffloadManager:
    """The offload and reload side streams and the groups in flight."""

    def __init__(self, reload_mode, race, delay_cycles):
        self.offload_stream = torch.cuda.Stream()
        self.reload_stream = torch.cuda.Stream()
        self.prefetch = reload_mode == "prefetch"
        self.wait_for_offload = race != "inline-reload"
        self.delay_cycles = delay_cycles
        self.groups = {}

    def offload(self, layer, x):
        compute = torch.cuda.current_stream()
        torch.cuda.nvtx.range_push(f"offload/layer{layer}")
        self.offload_stream.wait_stream(compute)  # the copy starts after x was written
        with torch.cuda.stream(self.offload_stream):
            if self.delay_cycles:
                torch.cuda._sleep(self.delay_cycles)  # earlier offloads still queued
            host_copy = torch.empty(x.shape, dtype=x.dtype, pin_memory=True)
            host_copy.copy_(x, non_blocking=True)
            offloaded = torch.cuda.Event()
            offloaded.record(self.offload_stream)
        x.record_stream(self.offload_stream)  # x's block is not reused before the copy read it
        self.groups[layer] = OffloadGroup(host_copy, offloaded)
        torch.cuda.nvtx.range_pop()

    def prefetch_group(self, layer):
        """Reload a group on the reload stream, ahead of its use."""
        group = self.groups.get(layer)
        if not self.prefetch or group is None:
            return
        torch.cuda.nvtx.range_push(f"prefetch/layer{layer}")
        # The reload stream's allocations reuse blocks freed by compute:
        # they must come after compute's earlier work (shape C4).
        self.reload_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reload_stream):
            self.reload_stream.wait_event(group.offloaded)
            group.reloaded_tensor = group.host_copy.to("cuda", non_blocking=True)
            group.reloaded = torch.cuda.Event()
            group.reloaded.record(self.reload_stream)
        torch.cuda.nvtx.range_pop()

    def take(self, layer):
        """The block input for backward, on the compute stream."""
        group = self.groups.pop(layer)
        compute = torch.cuda.current_stream()
        if group.reloaded_tensor is not None:
            compute.wait_event(group.reloaded)
            return group.reloaded_tensor
        torch.cuda.nvtx.range_push(f"inline_reload/layer{layer}")
        if self.wait_for_offload:
            compute.wait_event(group.offloaded)  # Megatron-LM PR 7399
        reloaded = group.host_copy.to("cuda", non_blocking=True)
        torch.cuda.nvtx.range_pop()
        return reloaded


class Block(nn.Module):
    """Pre-norm MLP block: x + fc2(gelu(fc1(norm(x))))."""

    def __init__(self, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(hidden)
        self.fc1 = nn.Linear(hidden, 4 * hidden)
        self.fc2 = nn.Linear(4 * hidden, hidden)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class OffloadedBlock(torch.autograd.Function):
    """Runs a block keeping only its input, offloaded; recomputes it in backward."""

    @staticmethod
    def forward(ctx, x, block, manager, layer):
        y = block(x)
        manager.offload(layer, x)
        ctx.block, ctx.manager, ctx.layer = block, manager, layer
        return y

    @staticmethod
    def backward(ctx, grad_y):
        x = ctx.manager.take(ctx.layer).detach().requires_grad_(True)
        with torch.enable_grad():
            y = ctx.block(x)  # recompute
        torch.autograd.backward(y, grad_y)  # also accumulates the block's parameter gradients
        ctx.manager.prefetch_group(ctx.layer - 1)
        return x.grad, None, None, None


class Model(nn.Module):
    def __init__(self, layers, hidden, manager):
        super().__init__()
        self.embed = nn.Linear(hidden, hidden)
        self.blocks = nn.ModuleList(Block(hidden) for _ in range(layers))
        self.head = nn.Linear(hidden, hidden)
        self.manager = manager
        self.offload = True

    def forward(self, batch):
        x = self.embed(batch)
        for layer, block in enumerate(self.blocks):
            torch.cuda.nvtx.range_push(f"fwd/layer{layer}")
            x = OffloadedBlock.apply(x, block, self.manager, layer) if self.offload else block(x)
            torch.cuda.nvtx.range_pop()
        return self.head(x)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=10, help="measured steps")
    parser.add_argument("--warmup", type=int, default=3, help="steps before measuring (warm the allocators)")
    parser.add_argument("--layers", type=int)
    parser.add_argument("--hidden", type=int)
    parser.add_argument("--batch", type=int, help="tokens per step")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--launch-bound", action="store_true", help="small sizes, many layers")
    size.add_argument("--compute-bound", action="store_true", help="large matrix products")
    parser.add_argument("--reload", choices=["prefetch", "inline"], default="prefetch")
    parser.add_argument("--race", choices=["none", "inline-reload"], default="none",
                        help="inline-reload: reload inline without waiting on the offload (issue 7398)")
    parser.add_argument("--offload-delay-cycles", type=int, default=0,
                        help="GPU cycles the offload stream sleeps before each copy")
    parser.add_argument("--verify", action="store_true", help="compare gradients with a run without offloading")
    parser.add_argument("--print-step-time", action="store_true", help="print step_ms=<mean of measured steps>")
    args = parser.parse_args()
    if args.race == "inline-reload":
        args.reload = "inline"
    preset = "launch_bound" if args.launch_bound else "compute_bound" if args.compute_bound else "default"
    layers, hidden, batch = PRESETS[preset]
    args.layers = args.layers or layers
    args.hidden = args.hidden or hidden
    args.batch = args.batch or batch
    if args.steps < 1 or args.warmup < 0 or min(args.layers, args.hidden, args.batch) < 1:
        parser.error("--steps, --layers, --hidden and --batch must be positive")
    return args


def train_step(model, optimizer, batch, target):
    optimizer.zero_grad(set_to_none=True)
    torch.cuda.nvtx.range_push("forward")
    loss = F.mse_loss(model(batch), target)
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_push("backward")
    loss.backward()
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_push("optimizer")
    optimizer.step()
    torch.cuda.nvtx.range_pop()


def gradients(model, batch, target, offload):
    model.zero_grad(set_to_none=True)
    model.offload = offload
    F.mse_loss(model(batch), target).backward()
    model.offload = True
    return [p.grad.detach().clone() for p in model.parameters()]


def max_relative_error(got, want):
    worst = 0.0
    for g, w in zip(got, want):
        scale = w.abs().max().clamp_min(1e-12)
        worst = max(worst, ((g - w).abs().max() / scale).item())
    return worst


def main():
    args = parse_args()
    if not torch.cuda.is_available():
        sys.exit("train_offload.py: needs a CUDA GPU (torch.cuda.is_available() is False)")
    torch.manual_seed(0)
    torch.set_float32_matmul_precision("high")
    manager = OffloadManager(args.reload, args.race, args.offload_delay_cycles)
    with torch.device("cuda"):  # initialise on the GPU: the large sizes are slow to build on the CPU
        model = Model(args.layers, args.hidden, manager)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)

    def new_batch():  # different data every step, so stale pinned bytes differ
        return (torch.randn(args.batch, args.hidden, device="cuda"),
                torch.randn(args.batch, args.hidden, device="cuda"))

    for _ in range(args.warmup):  # also grows the caching allocators to their steady size
        train_step(model, optimizer, *new_batch())
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(args.steps):
        train_step(model, optimizer, *new_batch())
    torch.cuda.synchronize()
    step_ms = (time.perf_counter() - start) * 1e3 / args.steps

    print(f"train_offload: layers={args.layers} hidden={args.hidden} batch={args.batch} "
          f"reload={args.reload} race={args.race} steps={args.steps}")
    if args.verify:
        batch, target = new_batch()
        offloaded = gradients(model, batch, target, offload=True)
        reference = gradients(model, batch, target, offload=False)
        error = max_relative_error(offloaded, reference)
        verdict = "GRADIENTS CORRUPTED (the race manifested)" if error > 1e-3 else "gradients intact"
        print(f"verify: max_rel_err={error:.3g}: {verdict}")
    if args.print_step_time:
        print(f"step_ms={step_ms:.3f}")


if __name__ == "__main__":
    main()
