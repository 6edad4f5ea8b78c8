"""What happens around every ATen operator while tracing is on.

CUDA operator (any CUDA tensor argument, or a CUDA factory):
    block-alloc marks for blocks seen for the first time
    range push  "racetrack:op <name> s=0x<stream> <items>"   inputs, known modes
      [stack mark]                                             --torch-stacks
      ... the operator runs, launching its kernels ...
      block-alloc marks for its fresh outputs' blocks
      op-out mark "racetrack:op-out w:..."                     fresh outputs, out= args
    range pop
CPU operator (tensors all on the CPU, pinned or pageable, or a CPU factory):
    ... the operator runs ...
    host mark "racetrack:host <items>"                         what the host touched
Meta and other devices, and pure view operators, pass through untouched.
c10d collectives are operators too, with modes from collectives.py.

Everything torch-specific comes in through the constructor (the NVTX sink, the
tensor class, the current-stream lookup, the stack walker), so this runs and
is tested without PyTorch.
"""

from . import messages
from .errors import report
from .extents import AccessItems, format_item, tensor_span
from .lifetimes import BlockLifetimes
from .modes import WRITE, PlanCache

_CUDA = "cuda"
_HOST = "host"


class OpTracer:
    def __init__(self, sink, tensor_type, stream_of, stack_walker=None, stacks=False):
        """sink: range_push(text) / range_pop() / mark(text), like torch.cuda.nvtx.
        stream_of(device_index or None): the current stream's cudaStream_t as an int.
        stack_walker: frames() -> ["file:line function", ...], used when stacks is on."""
        self.enabled = True
        self.stacks = stacks
        self._sink = sink
        self._tensor_type = tensor_type
        self._stream_of = stream_of
        self._stack_walker = stack_walker
        self._plans = PlanCache()
        self._blocks = BlockLifetimes(self._emit_alloc, self._emit_free)
        self._failure_reported = False

    # -- the operator hook ---------------------------------------------------

    def run(self, func, args, kwargs):
        """Runs func(*args, **kwargs) and tells the capturer what it accesses."""
        if not self.enabled:
            return func(*args, **kwargs)
        try:
            plan = self._plans.get(func)
            call = None if plan.pure_view else self._inspect(plan, args, kwargs)
            if call is not None and call[0] is _CUDA:
                self._sink.range_push(messages.op_range(plan.name, call[1], call[2].items()))
        except Exception as error:
            self._failed(func, error)
            call = None
        if call is None:
            return func(*args, **kwargs)

        kind, stream, accesses = call
        if kind is _HOST:
            result = func(*args, **kwargs)
            try:
                self._after_host_op(plan, args, kwargs, result, accesses)
            except Exception as error:
                self._failed(func, error)
            return result

        # The range is open: whatever happens, pop it.
        try:
            if self.stacks:
                self._emit_stack(func)
            result = func(*args, **kwargs)
            try:
                self._after_cuda_op(plan, args, kwargs, result, stream)
            except Exception as error:
                self._failed(func, error)
            return result
        finally:
            self._sink.range_pop()

    def _inspect(self, plan, args, kwargs):
        """(kind, stream, inputs' AccessItems) before the call, or None to pass through."""
        tensor_type = self._tensor_type
        tensors = []  # (mode, tensor) read or read-written by the call
        for access in plan.before:
            value = _argument(access, args, kwargs)
            if access.is_list and value is not None:
                tensors.extend((access.mode, item) for item in _flatten(value, tensor_type))
            elif isinstance(value, tensor_type):
                tensors.append((access.mode, _unwrapped(value, tensor_type)))

        device_type, device_index = _device_of(tensors, plan, args, kwargs, tensor_type)
        if device_type == "cpu":
            accesses = AccessItems()
            for mode, tensor in tensors:
                accesses.add(mode, tensor_span(tensor))
            return _HOST, None, accesses
        if device_type != _CUDA:
            return None

        stream = self._stream_of(device_index)
        accesses = AccessItems()
        for mode, tensor in tensors:
            if tensor.is_cuda:
                self._blocks.see(tensor.untyped_storage(), stream)
                accesses.add(mode, tensor_span(tensor))
        return _CUDA, stream, accesses

    def _after_cuda_op(self, plan, args, kwargs, result, stream):
        accesses = AccessItems()
        for tensor, written in self._outputs(plan, args, kwargs, result):
            if tensor.is_cuda:
                self._blocks.see(tensor.untyped_storage(), stream)
                if written:
                    accesses.add(WRITE, tensor_span(tensor))
        if accesses:
            self._sink.mark(messages.op_out(accesses.items()))

    def _after_host_op(self, plan, args, kwargs, result, accesses):
        for tensor, written in self._outputs(plan, args, kwargs, result):
            if written and tensor.is_cpu:
                accesses.add(WRITE, tensor_span(tensor))
        if accesses:
            self._sink.mark(messages.host(accesses.items()))

    def _outputs(self, plan, args, kwargs, result):
        """(tensor, written) for fresh outputs and for arguments read after the call."""
        tensor_type = self._tensor_type
        outputs = []
        if plan.fresh_returns:
            returns = (result,) if plan.single_return else result
            written = plan.writes_fresh
            for index, is_list in plan.fresh_returns:
                value = returns[index]
                if is_list:
                    outputs.extend((item, written) for item in _flatten(value, tensor_type))
                elif isinstance(value, tensor_type):
                    outputs.append((_unwrapped(value, tensor_type), written))
        for access in plan.after:
            value = _argument(access, args, kwargs)
            if access.is_list and value is not None:
                outputs.extend((item, True) for item in _flatten(value, tensor_type))
            elif isinstance(value, tensor_type):
                outputs.append((_unwrapped(value, tensor_type), True))
        return outputs

    def _emit_stack(self, func):
        try:
            frames = self._stack_walker.frames() if self._stack_walker is not None else None
            if frames:
                self._sink.mark(messages.stack(frames))
        except Exception as error:
            self._failed(func, error)

    # -- blocks and labels ---------------------------------------------------

    def label(self, tensor, text):
        """Names the block holding `tensor` (its whole storage)."""
        if not self.enabled:
            return
        if not " ".join(str(text).split()):
            raise ValueError("racetrack label text is empty")
        try:
            storage = tensor.untyped_storage()
            address, size = storage.data_ptr(), storage.nbytes()
            if address == 0 or size == 0:
                return
            if tensor.is_cuda:
                self._blocks.see(storage, self._stream_of(tensor.get_device()))
            self._sink.mark(messages.label(address, size, text))
        except Exception as error:
            self._failed("label()", error)

    def external_access(self, agent, tensor, mode, event):
        """An agent outside CUDA streams accesses `tensor`'s bytes (C14)."""
        if not self.enabled:
            return
        if mode not in ("r", "w", "rw"):
            raise ValueError(f"racetrack external access mode {mode!r} is not r, w or rw")
        try:
            span = tensor_span(tensor)
            if span is None:
                return
            handle = 0 if event is None else int(getattr(event, "cuda_event", event))
            self._sink.mark(messages.external(agent, [format_item(mode, span[0], span[1])], handle))
        except ValueError:
            raise
        except Exception as error:
            self._failed("external_access()", error)

    def external_done(self, agent):
        if self.enabled:
            self._sink.mark(messages.external_done(agent))

    def flush(self):
        """Reports blocks found dead since the last check (polling fallback only)."""
        self._blocks.sweep()

    def _emit_alloc(self, address, size, stream):
        self._sink.mark(messages.block_alloc(address, size, stream))

    def _emit_free(self, address, size, stream):
        if self.enabled:
            self._sink.mark(messages.block_free(address, size, stream))

    def _failed(self, func, error):
        if self._failure_reported:
            return
        self._failure_reported = True
        report(f"{func} left untraced; later failures are not reported", error)


def _argument(access, args, kwargs):
    if access.position < len(args):
        return args[access.position]
    return kwargs.get(access.name)


def _unwrapped(tensor, tensor_type):
    """The tensor whose bytes an operator reaches. A wrapper holding no
    storage of its own (the functional collectives' AsyncCollectiveTensor,
    whose data_ptr() is 0) stands for its .elem: the operator waits for the
    collective and runs on that."""
    elem = getattr(tensor, "elem", None)
    if isinstance(elem, tensor_type) and tensor.data_ptr() == 0:
        return elem
    return tensor


def _flatten(value, tensor_type):
    """Tensors of a list, nested lists (c10d's Tensor[][]) included; None items skipped."""
    tensors = []
    for item in value:
        if isinstance(item, tensor_type):
            tensors.append(_unwrapped(item, tensor_type))
        elif isinstance(item, (list, tuple)):
            tensors.extend(_flatten(item, tensor_type))
    return tensors


def _device_of(tensors, plan, args, kwargs, tensor_type):
    """(device type, CUDA index or None) the operator runs on: CUDA if any
    tensor is; else CPU if all are; else a factory's device= argument."""
    candidates = [tensor for _, tensor in tensors]
    for access in plan.after:  # out= tensors exist before the call
        value = _argument(access, args, kwargs)
        if access.is_list and value is not None:
            candidates.extend(_flatten(value, tensor_type))
        elif isinstance(value, tensor_type):
            candidates.append(_unwrapped(value, tensor_type))
    if candidates:
        all_cpu = True
        for tensor in candidates:
            if tensor.is_cuda:
                return _CUDA, tensor.get_device()
            all_cpu = all_cpu and tensor.is_cpu
        return ("cpu" if all_cpu else "other"), None

    device = kwargs.get("device")
    if device is None:
        return "cpu", None
    device_type = getattr(device, "type", None)
    if device_type is not None:
        return device_type, getattr(device, "index", None)
    device_type, _, index = str(device).partition(":")
    return device_type, int(index) if index.isdigit() else None
