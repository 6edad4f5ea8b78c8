"""Starts tracing when the program imports torch (RACETRACK_TORCH=1).

`racetrack capture --torch` puts capture/python first on PYTHONPATH, so our
sitecustomize runs at interpreter start and calls install_from_environment().
That never imports torch: it puts a finder on sys.meta_path that, when the
program imports torch, wraps torch's loader so that enable() runs right after
torch's __init__ finished. The finder removes itself once it fired.
"""

import importlib.abc
import os
import sys

from .errors import report


class _NotifyingLoader(importlib.abc.Loader):
    """Delegates to the real loader; calls on_loaded(module) after a successful exec."""

    def __init__(self, loader, on_loaded):
        self._loader = loader
        self._on_loaded = on_loaded

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        # From now on the module shows its real loader (resource readers use it).
        module.__loader__ = self._loader
        if getattr(module, "__spec__", None) is not None:
            module.__spec__.loader = self._loader
        self._on_loaded(module)

    def __getattr__(self, name):
        return getattr(self._loader, name)


class AfterImportHook(importlib.abc.MetaPathFinder):
    """Calls on_loaded(module) once, after `module_name` finished importing."""

    def __init__(self, module_name, on_loaded):
        self.module_name = module_name
        self._on_loaded = on_loaded

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.module_name:
            return None
        self.uninstall()  # one-shot; also keeps the search below from finding us
        spec = None
        for finder in list(sys.meta_path):
            find_spec = getattr(finder, "find_spec", None)
            if find_spec is None:
                continue
            spec = find_spec(fullname, path, target)
            if spec is not None:
                break
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _NotifyingLoader(spec.loader, self._on_loaded)
        return spec

    def install(self):
        if self.module_name in sys.modules:
            self._on_loaded(sys.modules[self.module_name])
        elif self not in sys.meta_path:
            sys.meta_path.insert(0, self)

    def uninstall(self):
        if self in sys.meta_path:
            sys.meta_path.remove(self)


def _enable_tracing(stacks, values_path):
    def on_torch_loaded(_module):
        try:
            import racetrack_torch

            racetrack_torch.enable(stacks=stacks)
        except Exception as error:
            report("PyTorch tracing is off, the program runs untraced", error)
        if values_path:
            try:
                import atexit

                import racetrack_torch

                racetrack_torch.record_values(values_path.replace("%p", str(os.getpid())), stacks=stacks)
                atexit.register(racetrack_torch.stop_values)
            except Exception as error:
                report("values are not recorded", error)

    return on_torch_loaded


def install_from_environment(environ=None):
    """Arms the torch import hook when RACETRACK_TORCH=1 (stacks with
    RACETRACK_TORCH_STACKS=1; a values record for `racetrack diff` with
    RACETRACK_TORCH_VALUES=path, %p there becoming the process id); returns
    the hook, or None when not asked for."""
    environ = os.environ if environ is None else environ
    if environ.get("RACETRACK_TORCH") != "1":
        return None
    hook = AfterImportHook("torch", _enable_tracing(environ.get("RACETRACK_TORCH_STACKS") == "1",
                                                    environ.get("RACETRACK_TORCH_VALUES")))
    hook.install()
    return hook
