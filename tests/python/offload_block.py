"""A small transformer block trained on the CPU with and without an
activation offload + recompute wrapper, for `racetrack diff`'s tests and
as a worked example (docs/diff.md).

The wrapper recomputes the MLP's activation in backward instead of keeping
its output (Megatron-LM's CheckpointWithoutOutput around moe_act), while
saved-tensor hooks "offload" every tensor autograd saves in the block (a
copy at pack, another at unpack; on a GPU these are the D2H and H2D
copies). With bug=True it reproduces Megatron-LM PR 2123: the saved inputs
are unpacked under the hooks and used as they are, so the recomputation's
nested backward accumulates into the forward-time leaf's .grad, and the
.grad the wrapper returns is None: fc1 and everything before it on that
path get no gradient (docs/offload-hazards.md, section 5)."""

import torch


class OffloadRecompute(torch.autograd.Function):
    @staticmethod
    def forward(ctx, run_function, bug, *args):
        ctx.run_function = run_function
        ctx.bug = bug
        with torch.no_grad():
            outputs = run_function(*args)
        # Detached leaves, saved (and so offloaded by the hooks) for backward.
        ctx.save_for_backward(*[a.detach().requires_grad_(a.requires_grad) for a in args])
        return outputs

    @staticmethod
    def backward(ctx, *grads):
        saved = ctx.saved_tensors
        if ctx.bug:
            inputs = saved  # PR 2123: unpacked leaves wired to the forward-time leaf's accumulator
        else:
            inputs = [x.detach().requires_grad_(x.requires_grad) for x in saved]  # the fix: fresh leaves
        with torch.enable_grad():
            outputs = ctx.run_function(*inputs)
        torch.autograd.backward(outputs, grads)
        return (None, None) + tuple(x.grad for x in inputs)


def offload_hooks():
    """Saved-tensor hooks that move each saved tensor out and back (copies)."""
    return torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t.clone())


class Block(torch.nn.Module):
    def __init__(self, width=16, heads=2):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(width)
        self.qkv = torch.nn.Linear(width, 3 * width)
        self.proj = torch.nn.Linear(width, width)
        self.ln2 = torch.nn.LayerNorm(width)
        self.fc1 = torch.nn.Linear(width, 4 * width)
        self.fc2 = torch.nn.Linear(4 * width, width)
        self.wrapper = None  # None, "offload" or "offload-bug"

    def attention(self, x):
        b, t, w = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, w // self.heads).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-1, -2)) / (w // self.heads) ** 0.5
        return self.proj((scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, w))

    def mlp(self, x):
        h = self.fc1(x)
        if self.wrapper is None:
            a = torch.nn.functional.gelu(h)
        else:
            a = OffloadRecompute.apply(torch.nn.functional.gelu, self.wrapper == "offload-bug", h)
        return self.fc2(a)

    def forward(self, x):
        if self.wrapper is None:
            x = x + self.attention(self.ln1(x))
            return x + self.mlp(self.ln2(x))
        with offload_hooks():
            x = x + self.attention(self.ln1(x))
            return x + self.mlp(self.ln2(x))


def train(wrapper, steps=3, values_path=None):
    """Trains a fresh, seeded block for `steps` steps; returns its losses.
    With values_path, records every operator's values there."""
    import racetrack_torch

    torch.manual_seed(0)
    block = Block()
    block.wrapper = wrapper
    optimizer = torch.optim.SGD(block.parameters(), lr=0.1)
    data = [torch.randn(2, 8, 16) for _ in range(steps)]
    if values_path:
        racetrack_torch.record_values(values_path, model=block, name="block")
    losses = []
    try:
        for x in data:
            optimizer.zero_grad()
            loss = block(x).square().mean()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    finally:
        if values_path:
            racetrack_torch.stop_values()
    return losses
