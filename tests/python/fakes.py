"""Stand-ins for the PyTorch objects racetrack_torch reads: operator schemas
parsed from real ATen schema text, tensors, storages, an NVTX sink, and a tiny
fake `torch` package written to disk for import-hook tests."""

import os
import textwrap
import threading

# -- schemas -------------------------------------------------------------------


class AliasInfo:
    def __init__(self, is_write):
        self.is_write = is_write


class Argument:
    def __init__(self, name, type_text, kwarg_only=False):
        self.name = name
        self.type = type_text
        self.kwarg_only = kwarg_only
        self.alias_info = AliasInfo("!" in type_text) if "(" in type_text else None


class Schema:
    def __init__(self, name, overload_name, arguments, returns):
        self.name = name
        self.overload_name = overload_name
        self.arguments = arguments
        self.returns = returns


def _split_top_level(text):
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    return parts


def parse_schema(text):
    """Schema of an ATen declaration like "add.Tensor(Tensor self, ...) -> Tensor"."""
    head, _, returns_text = text.rpartition(" -> ")
    qualified, _, arguments_text = head.partition("(")
    arguments_text = arguments_text[:-1]  # the closing parenthesis
    name, _, overload = qualified.partition(".")
    if "::" not in name:
        name = "aten::" + name

    arguments, kwarg_only = [], False
    for part in _split_top_level(arguments_text):
        if part == "*":
            kwarg_only = True
            continue
        declaration = part.split("=")[0].strip()
        type_text, _, arg_name = declaration.rpartition(" ")
        arguments.append(Argument(arg_name, type_text, kwarg_only))

    returns_text = returns_text.strip()
    if returns_text.startswith("(") and returns_text.endswith(")"):
        returns_text = returns_text[1:-1]
    returns = [Argument("", part.split(" ")[0]) for part in _split_top_level(returns_text)]
    return Schema(name, overload, arguments, returns)


class FakeOp:
    """An operator overload: has a schema, runs `impl` when called."""

    def __init__(self, schema_text, impl=None):
        self._schema = parse_schema(schema_text)
        self.impl = impl
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.impl(*args, **kwargs) if self.impl is not None else None

    def __str__(self):
        return self._schema.name.replace("::", ".") + "." + self._schema.overload_name


# -- tensors -------------------------------------------------------------------


class FakeDevice:
    def __init__(self, type_name, index=None):
        self.type = type_name
        self.index = index


class FakeStorage:
    def __init__(self, address, nbytes):
        self.address = address
        self.size = nbytes

    def data_ptr(self):
        return self.address

    def nbytes(self):
        return self.size


def contiguous_strides(sizes):
    strides, step = [], 1
    for size in reversed(sizes):
        strides.insert(0, step)
        step *= max(size, 1)
    return strides


class FakeTensor:
    """A view: data_ptr (storage offset included), sizes, strides in elements."""

    def __init__(self, data_ptr, sizes, strides=None, element_size=4, device="cuda",
                 device_index=0, pinned=False, storage=None):
        self._data_ptr = data_ptr
        self._sizes = list(sizes)
        self._strides = list(strides) if strides is not None else contiguous_strides(sizes)
        self._element_size = element_size
        self.device = FakeDevice(device, device_index if device == "cuda" else None)
        self._pinned = pinned
        if storage is None:
            numel = 1
            for size in self._sizes:
                numel *= size
            storage = FakeStorage(data_ptr, numel * element_size)
        self._storage = storage

    is_cuda = property(lambda self: self.device.type == "cuda")
    is_cpu = property(lambda self: self.device.type == "cpu")

    def data_ptr(self):
        return self._data_ptr

    def size(self):
        return self._sizes

    def stride(self):
        return self._strides

    def element_size(self):
        return self._element_size

    def get_device(self):
        return self.device.index if self.is_cuda else -1

    def is_pinned(self):
        return self._pinned

    def untyped_storage(self):
        return self._storage


class RecordingSink:
    """torch.cuda.nvtx stand-in: records ("push"|"pop"|"mark", message)."""

    def __init__(self):
        self.calls = []
        self._lock = threading.Lock()

    def range_push(self, message):
        with self._lock:
            self.calls.append(("push", message))

    def range_pop(self):
        with self._lock:
            self.calls.append(("pop", None))

    def mark(self, message):
        with self._lock:
            self.calls.append(("mark", message))


# -- a fake torch package on disk ------------------------------------------------

FAKE_TORCH_FILES = {
    "torch/__init__.py": """
        from . import _C, cuda, utils
        import torch.utils._python_dispatch

        class Tensor:
            pass

        # Set last: a hook that sees it ran after the whole __init__.
        IMPORT_FINISHED = True
    """,
    "torch/_C.py": """
        def _cuda_getCurrentRawStream(device_index):
            return 0x5000 + device_index
    """,
    "torch/cuda/__init__.py": """
        from . import nvtx

        def current_device():
            return 0
    """,
    "torch/cuda/nvtx.py": """
        calls = []

        def range_push(message):
            calls.append(("push", message))

        def range_pop():
            calls.append(("pop", None))

        def mark(message):
            calls.append(("mark", message))
    """,
    "torch/utils/__init__.py": "",
    "torch/utils/_python_dispatch.py": """
        import threading

        _local = threading.local()

        def _stack():
            if not hasattr(_local, "modes"):
                _local.modes = []
            return _local.modes

        class TorchDispatchMode:
            def __init__(self):
                self.entered = 0

            def __enter__(self):
                self.entered += 1
                _stack().append(self)
                return self

            def __exit__(self, *exc_info):
                _stack().pop()

        def _get_current_dispatch_mode():
            stack = _stack()
            return stack[-1] if stack else None

        def _get_current_dispatch_mode_stack():
            return list(_stack())
    """,
}


def write_fake_torch(directory, broken=False):
    """Writes the fake torch package under `directory`; broken=True leaves out
    torch.utils, so that racetrack_torch.enable() fails."""
    for relative, text in FAKE_TORCH_FILES.items():
        if broken and relative.startswith("torch/utils"):
            continue
        if broken and relative == "torch/__init__.py":
            text = text.replace("from . import _C, cuda, utils", "from . import _C, cuda")
            text = text.replace("import torch.utils._python_dispatch", "")
        path = os.path.join(directory, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as file:
            file.write(textwrap.dedent(text))


class FakeTorchOnPath:
    """Context for in-process tests: the fake torch package importable as
    `torch`, and racetrack_torch's global state reset before and after."""

    def __init__(self, broken=False):
        self.broken = broken

    def __enter__(self):
        import sys
        import tempfile

        self._directory = tempfile.TemporaryDirectory()
        write_fake_torch(self._directory.name, broken=self.broken)
        sys.path.insert(0, self._directory.name)
        self._meta_path = list(sys.meta_path)
        # A real torch already imported must come back afterwards: it cannot
        # be imported a second time in one process.
        self._real_torch = _forget_torch()
        reset_racetrack_torch()
        return self._directory.name

    def __exit__(self, *exc_info):
        import sys

        sys.path.remove(self._directory.name)
        sys.meta_path[:] = self._meta_path
        _forget_torch()
        sys.modules.update(self._real_torch)
        reset_racetrack_torch()
        self._directory.cleanup()


def _forget_torch():
    """Drops torch's modules from sys.modules; returns them."""
    import sys

    names = [name for name in sys.modules if name == "torch" or name.startswith("torch.")]
    return {name: sys.modules.pop(name) for name in names}


def reset_racetrack_torch():
    import racetrack_torch
    from racetrack_torch import dispatch

    racetrack_torch._tracer = None
    racetrack_torch._this_thread = threading.local()
    dispatch._mode_class = None
