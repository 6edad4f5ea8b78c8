"""The values record for `racetrack diff`: for every ATen operator, a digest
of each input and output (digests.py), keyed by a stable identity (phase,
module path, operator, occurrence index; value_context.py), and for every
parameter each `.grad` the autograd engine accumulates.

Written as JSON lines, one record per operator, in the order operators
ran (docs/diff.md has the format):

    {"racetrack_values": 1, "torch": "2.15.0"}
    {"seq": 0, "phase": "forward", "module": "model.fc1", "op": "aten::addmm", "n": 0,
     "t": 1764680000000000000, "thread": 4242, "in": [<digest>, ...], "out": [<digest>, ...]}
    {"seq": 9, "phase": "backward", "module": "model.fc1", "op": "grad", "param": "model.fc1.weight",
     "n": 0, "in": [], "out": [<digest>]}

Digests are computed on the tensor's device and copied back in batches
(one sync per batch of operators). What a custom autograd Function's
backward returns is recorded too (op "returns:<node name>"), when that
backward runs operators (a recomputing checkpoint does). Pure view operators and those outside
the aten namespace (profiler ranges) are not recorded: they compute
nothing."""

import json
import threading
import time

from .errors import report
from .stacks import StackWalker

BATCH = 256
_FORMAT = 1
# A gradient a backward returned as None (no gradient at all).
_NONE = {"hash": "0" * 16, "dtype": "none", "numel": 0, "sum": 0.0, "absmax": 0.0, "nan": 0, "inf": 0}


def _tensors(value, tensor_type, out):
    if isinstance(value, tensor_type):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _tensors(v, tensor_type, out)
    return out


class ValueRecorder:
    def __init__(self, torch, path, context, digests, stacks=False):
        self._torch = torch
        self._file = open(path, "w", encoding="utf-8")
        self._file.write(json.dumps({"racetrack_values": _FORMAT, "torch": torch.__version__}) + "\n")
        self._context = context
        self._digests = digests
        self._walker = StackWalker(_internal_prefixes(torch)) if stacks else None
        self._counts = {}
        self._rows = []
        self._seq = 0
        self._grad_hooks = []
        self.enabled = True
        context.on_custom_returns = self._on_custom_returns

    def run(self, func, args, kwargs):
        """Runs the operator and records its digests: the inputs' queued
        before it runs (in-place operators change them), the outputs' after."""
        if not self.enabled or getattr(func, "is_view", False) or func.namespace != "aten":
            return func(*args, **kwargs)
        tensor = self._torch.Tensor
        inputs = _tensors(args, tensor, [])
        _tensors(list(kwargs.values()), tensor, inputs)
        phase, module = self._context.where()
        if phase in ("forward", "recompute"):
            self._context.note_node(module)
        row = self._row(phase, module, str(func._schema.name), None)
        try:
            row["in"] = [self._digests.add(t) for t in inputs]
        except Exception as error:
            self._failed(error)
            return func(*args, **kwargs)
        result = func(*args, **kwargs)
        try:
            row["out"] = [self._digests.add(t) for t in _tensors(result, tensor, [])]
            self._push(row)
        except Exception as error:
            self._failed(error)
        return result

    def _failed(self, error):
        """A tensor racetrack cannot digest (sparse, meta, ...): the program
        goes on, without values from here on."""
        self.enabled = False
        report("values are no longer recorded", error)

    def watch_gradients(self, model, name):
        """Records every .grad accumulated into model's parameters."""
        for path, parameter in model.named_parameters():
            full = f"{name}.{path}"
            owner = full.rsplit(".", 1)[0]
            if parameter.requires_grad:
                self._grad_hooks.append(parameter.register_post_accumulate_grad_hook(
                    lambda p, full=full, owner=owner: self._on_grad(p, full, owner)))

    def close(self):
        for hook in self._grad_hooks:
            hook.remove()
        self._grad_hooks = []
        self.flush()
        self._file.close()

    def flush(self):
        self._digests.collect()  # fills in the rows' digests, queued or not yet pushed
        for row in self._rows:
            self._file.write(json.dumps(row, allow_nan=False) + "\n")
        self._rows = []
        self._file.flush()

    def _on_grad(self, parameter, full, owner):
        if not self.enabled or parameter.grad is None:
            return
        row = self._row("backward", owner, "grad", full)
        try:
            row["in"] = []
            row["out"] = [self._digests.add(parameter.grad)]
            self._push(row)
        except Exception as error:
            self._failed(error)

    def _on_custom_returns(self, name, module, grads):
        """A custom autograd Function's backward returned `grads` (op
        "returns:<node name>"; a None is a digest of dtype "none")."""
        if not self.enabled:
            return
        row = self._row("backward", module, "returns:" + name, None)
        try:
            row["in"] = []
            row["out"] = [_NONE if g is None else self._digests.add(g) for g in grads]
            self._push(row)
        except Exception as error:
            self._failed(error)

    def _row(self, phase, module, op, param):
        key = (phase, module, op, param)
        n = self._counts.get(key, 0)
        self._counts[key] = n + 1
        # When and where it ran (CLOCK_REALTIME nanoseconds, the clock of a
        # capture's host times; the native thread id), for timelines.
        row = {"seq": self._seq, "phase": phase, "module": module, "op": op, "n": n, "t": time.time_ns(),
               "thread": threading.get_native_id()}
        if param is not None:
            row["param"] = param
        if self._walker is not None:
            row["stack"] = self._walker.frames()
        self._seq += 1
        return row

    def _push(self, row):
        self._rows.append(row)
        if len(self._rows) >= BATCH:
            self.flush()


def _internal_prefixes(torch):
    import os

    return (os.path.dirname(os.path.abspath(torch.__file__)) + os.sep,
            os.path.dirname(os.path.abspath(__file__)) + os.sep)
