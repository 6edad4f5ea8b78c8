"""racetrack's PyTorch integration: tells `racetrack capture` what every ATen
operator reads and writes, which caching-allocator blocks are live, and what
the host touches, through NVTX ranges and marks (see README.md).

    import racetrack_torch
    racetrack_torch.enable()          # or run under `racetrack capture --torch`
    racetrack_torch.label(x, "activation layer3.fc1 output")

Importing this package does not import torch; enable() does.
"""

import threading

__all__ = ["enable", "disable", "is_enabled", "label", "external_access", "external_done", "record_values",
           "name_modules", "stop_values"]

_lock = threading.Lock()
_tracer = None
_this_thread = threading.local()  # .mode: the dispatch mode pushed on this thread
_values = None  # (recorder, context, mode) while values are recorded


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


def record_values(path, model=None, name="model", stacks=False):
    """Writes a digest of every operator's inputs and outputs, and of every
    .grad accumulated into `model`'s parameters, to `path` (JSON lines) for
    `racetrack diff BASELINE RUN`. `model` names modules ("model.layers.0");
    without it, modules are named by class. Records operators on the calling
    thread and on the autograd threads of backward calls made from it.
    Call stop_values() to finish the file."""
    global _values
    import torch

    from . import dispatch
    from .digests import Digests
    from .value_context import ValueContext
    from .values import ValueRecorder

    if _values is not None:
        raise RuntimeError("racetrack: values are recorded already; call stop_values() first")
    context = ValueContext(torch)
    recorder = ValueRecorder(torch, path, context, Digests(torch), stacks=stacks)
    if model is not None:
        context.name_modules(model, name)
        recorder.watch_gradients(model, name)
    mode = dispatch.create_mode(recorder)
    mode.__enter__()
    _values = (recorder, context, mode)


def name_modules(model, name="model"):
    """While values are recorded (record_values, or `racetrack capture
    --torch --values`): names model's modules "<name>.<path>" and records
    its parameters' gradients."""
    if _values is not None:
        recorder, context, _ = _values
        context.name_modules(model, name)
        recorder.watch_gradients(model, name)


def stop_values():
    """Finishes the values file started by record_values() (on the same thread)."""
    global _values
    if _values is None:
        return
    recorder, context, mode = _values
    _values = None
    recorder.enabled = False
    from . import dispatch

    if dispatch.is_current_mode(mode):
        mode.__exit__(None, None, None)
    context.close()
    recorder.close()
