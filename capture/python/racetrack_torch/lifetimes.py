"""Lifetimes of caching-allocator blocks, seen as tensor storages.

PyTorch's caching allocator shows CUPTI only its large segments; the tensors'
blocks inside them are seen here instead. A block is the storage of a CUDA
tensor, keyed by (storage data_ptr, nbytes). It becomes live the first time an
operator touches it and dies when its storage object dies.

Death is observed, in order of preference, by
  * weakref.finalize on the storage: PyTorch keeps one Python object per live
    storage ("PyObject preservation"), so the finalizer runs when the storage
    itself is freed, on the thread that frees it;
  * PyTorch's own C-level storage weak references (storage._weak_ref(), the
    mechanism of torch.multiprocessing's StorageWeakRef), polled before every
    newly seen block, so a freed block is reported before its addresses can
    be reported again;
  * neither: blocks are reported live and never freed (said once on stderr).
"""

import threading
import weakref

from .errors import report


class _FinalizerWatcher:
    """Calls back when the storage object dies."""

    def watch(self, storage, on_death):
        finalizer = weakref.finalize(storage, on_death)
        finalizer.atexit = False  # interpreter exit is not a free
        return lambda: not finalizer.alive

    def sweep(self):
        pass


class _PollingWatcher:
    """Keeps PyTorch's C-level weak references and checks them on sweep()."""

    def __init__(self):
        self._watched = []  # (storage class, handle, on_death)
        self._lock = threading.Lock()

    def watch(self, storage, on_death):
        storage_class, handle = type(storage), storage._weak_ref()
        with self._lock:
            self._watched.append((storage_class, handle, on_death))
        return lambda: storage_class._expired(handle)

    def sweep(self):
        with self._lock:
            alive, dead = [], []
            for entry in self._watched:
                (dead if entry[0]._expired(entry[1]) else alive).append(entry)
            self._watched = alive
        for storage_class, handle, on_death in dead:
            storage_class._free_weak_ref(handle)
            on_death()


class _NullWatcher:
    def watch(self, storage, on_death):
        return lambda: False

    def sweep(self):
        pass


def choose_watcher(storage):
    """The best way to observe this kind of storage's death."""
    try:
        weakref.ref(storage)
        return _FinalizerWatcher()
    except TypeError:
        pass
    if hasattr(storage, "_weak_ref") and hasattr(type(storage), "_expired"):
        return _PollingWatcher()
    report("storages support no weak references: freed blocks are not recorded")
    return _NullWatcher()


class _Registration:
    """One life of a block; `expired` tells whether its storage is known dead."""

    __slots__ = ("expired",)

    def __init__(self):
        self.expired = lambda: False


class BlockLifetimes:
    """Live blocks; calls on_alloc(address, size, stream) on first sight and
    on_free(address, size, stream) when the block's storage dies."""

    def __init__(self, on_alloc, on_free):
        self._on_alloc = on_alloc
        self._on_free = on_free
        self._live = {}  # (address, size) -> _Registration
        self._lock = threading.Lock()
        self._watcher = None

    def is_live(self, address, size):
        return (address, size) in self._live

    def see(self, storage, stream):
        """Records the storage's block as live (once); returns its (address, size) or None."""
        key = (storage.data_ptr(), storage.nbytes())
        registration = self._live.get(key)
        if registration is not None and not registration.expired():
            return key
        if key[0] == 0 or key[1] == 0:
            return None
        with self._lock:
            if self._watcher is None:
                self._watcher = choose_watcher(storage)
            # Polling: blocks that died since the last look are freed before
            # a block can be reported again at their addresses.
            self._watcher.sweep()
            if key in self._live:
                return key  # another thread registered it meanwhile
            registration = _Registration()
            self._live[key] = registration
            self._on_alloc(key[0], key[1], stream)
            registration.expired = self._watcher.watch(
                storage, lambda: self._died(key, registration, stream))
        return key

    def sweep(self):
        """Reports blocks found dead by polling (nothing to do with finalizers)."""
        if self._watcher is not None:
            with self._lock:
                self._watcher.sweep()

    def _died(self, key, registration, stream):
        # A newer registration under the same key means this death came late:
        # the newer block must stay live.
        if self._live.get(key) is not registration:
            return
        self._live.pop(key, None)
        try:
            self._on_free(key[0], key[1], stream)
        except Exception as error:  # runs from a finalizer: never raise
            report("recording a block free failed", error)
