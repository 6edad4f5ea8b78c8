"""The thin PyTorch glue: a TorchDispatchMode that hands every ATen operator
to an OpTracer, and the torch-backed pieces the tracer needs.

Only this module imports torch, and only when called.

Where the mode applies. PyTorch keeps the stack of dispatch modes in
thread-local state (c10::impl::TorchDispatchModeTLS). The autograd engine
copies the calling thread's thread-local state (at::ThreadLocalState, which
includes that stack) into the worker threads that run backward, so a mode
pushed on the thread that calls .backward() also sees every backward operator.
Other Python threads that launch GPU work start with an empty stack: call
racetrack_torch.enable() once in each of them.
"""

import os

from .stacks import StackWalker
from .tracer import OpTracer

_mode_class = None


def _racetrack_mode_class():
    """The TorchDispatchMode subclass, defined on first use (it needs torch)."""
    global _mode_class
    if _mode_class is None:
        from torch.utils._python_dispatch import TorchDispatchMode

        class RacetrackDispatchMode(TorchDispatchMode):
            def __init__(self, tracer):
                super().__init__()
                self.tracer = tracer

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                return self.tracer.run(func, args, kwargs or {})

        _mode_class = RacetrackDispatchMode
    return _mode_class


def create_mode(tracer):
    """A dispatch mode feeding `tracer`; enter it (mode.__enter__()) on a thread."""
    return _racetrack_mode_class()(tracer)


def is_current_mode(mode):
    """Whether `mode` is on top of this thread's dispatch mode stack."""
    from torch.utils._python_dispatch import _get_current_dispatch_mode

    return _get_current_dispatch_mode() is mode


def _stream_lookup(torch):
    """stream_of(device index or None) -> the current cudaStream_t as an int."""
    raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw_stream is not None:
        current_device = torch.cuda.current_device

        def stream_of(device_index):
            return raw_stream(current_device() if device_index is None else device_index)
    else:
        current_stream = torch.cuda.current_stream

        def stream_of(device_index):
            return current_stream(device_index).cuda_stream
    return stream_of


def create_tracer(stacks=False):
    """An OpTracer writing NVTX through torch.cuda.nvtx."""
    import torch
    import torch.cuda.nvtx

    internal = (
        os.path.dirname(os.path.abspath(torch.__file__)) + os.sep,
        os.path.dirname(os.path.abspath(__file__)) + os.sep,
    )
    return OpTracer(sink=torch.cuda.nvtx, tensor_type=torch.Tensor, stream_of=_stream_lookup(torch),
                    stack_walker=StackWalker(internal), stacks=stacks)
