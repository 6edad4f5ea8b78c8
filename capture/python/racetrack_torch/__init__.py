"""racetrack's PyTorch integration: tells `racetrack capture` what every ATen
operator reads and writes, which caching-allocator blocks are live, and what
the host touches, through NVTX ranges and marks (see README.md).

    import racetrack_torch
    racetrack_torch.enable()          # or run under `racetrack capture --torch`
    racetrack_torch.label(x, "activation layer3.fc1 output")

Importing this package does not import torch; enable() does.
"""

import threading

__all__ = ["enable", "disable", "is_enabled", "label", "external_access", "external_done"]

_lock = threading.Lock()
_tracer = None
_this_thread = threading.local()  # .mode: the dispatch mode pushed on this thread


def enable(stacks=False):
    """Starts tracing (idempotent). Pushes the dispatch mode on the calling
    thread; backward threads inherit it from the thread that calls
    .backward(); call enable() again in any other thread that runs operators.
    stacks=True adds each operator's Python stack (slower); once on, it stays on."""
    global _tracer
    from . import dispatch

    with _lock:
        if _tracer is None:
            tracer = dispatch.create_tracer()
            tracer.enabled = False  # until a mode is in place
            _tracer = tracer
    if getattr(_this_thread, "mode", None) is None:
        mode = dispatch.create_mode(_tracer)
        mode.__enter__()
        _this_thread.mode = mode
    with _lock:
        _tracer.stacks = _tracer.stacks or bool(stacks)
        _tracer.enabled = True


def disable():
    """Stops tracing. The calling thread's mode is popped when it is on top of
    its stack; elsewhere modes stay but pass every operator straight through."""
    if _tracer is None:
        return
    _tracer.enabled = False
    _tracer.flush()
    mode = getattr(_this_thread, "mode", None)
    if mode is not None:
        from . import dispatch

        if dispatch.is_current_mode(mode):
            mode.__exit__(None, None, None)
            _this_thread.mode = None


def is_enabled():
    return _tracer is not None and _tracer.enabled


def label(tensor, text):
    """Names the block holding `tensor` in reports and the viewer (no-op when disabled)."""
    if _tracer is not None:
        _tracer.label(tensor, text)


def external_access(agent, tensor, mode="w", done_event=None):
    """Declares that `agent`, outside CUDA streams (an RDMA/GPUDirect load, a
    forked writer, another process), reads ("r"), writes ("w") or both ("rw")
    `tensor`'s bytes from now on. Its completion is observed at the next
    record of `done_event` (a torch.cuda.Event), or else at
    external_done(agent). racetrack check reports stream work that touches the
    bytes before, or unordered with, that point (no-op when disabled)."""
    if _tracer is not None:
        _tracer.external_access(agent, tensor, mode, done_event)


def external_done(agent):
    """The host observed that `agent` finished its accesses (no-op when disabled)."""
    if _tracer is not None:
        _tracer.external_done(agent)
