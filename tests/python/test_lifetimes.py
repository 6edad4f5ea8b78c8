import io
import unittest
from contextlib import redirect_stderr

from fakes import FakeStorage
from racetrack_torch.lifetimes import BlockLifetimes


class SlotStorage:
    """A storage that refuses Python weak references but offers PyTorch's
    C-level ones (_weak_ref / _expired / _free_weak_ref), like StorageWeakRef uses."""

    __slots__ = ("address", "size", "freed")
    handles = {}  # handle -> storage
    released = []

    def __init__(self, address, size):
        self.address, self.size, self.freed = address, size, False

    def data_ptr(self):
        return self.address

    def nbytes(self):
        return self.size

    def _weak_ref(self):
        handle = len(SlotStorage.handles) + 1
        SlotStorage.handles[handle] = self
        return handle

    @classmethod
    def _expired(cls, handle):
        return cls.handles[handle].freed

    @classmethod
    def _free_weak_ref(cls, handle):
        cls.released.append(handle)


class Recorder:
    def __init__(self):
        self.events = []

    def alloc(self, address, size, stream):
        self.events.append(("alloc", address, size, stream))

    def free(self, address, size, stream):
        self.events.append(("free", address, size, stream))


class LifetimesTest(unittest.TestCase):
    def setUp(self):
        self.recorder = Recorder()
        self.blocks = BlockLifetimes(self.recorder.alloc, self.recorder.free)

    def test_finalizer_reports_the_free_with_the_allocation_stream(self):
        storage = FakeStorage(0x1000, 512)
        self.assertEqual(self.blocks.see(storage, 7), (0x1000, 512))
        self.assertEqual(self.blocks.see(storage, 9), (0x1000, 512))
        self.assertTrue(self.blocks.is_live(0x1000, 512))
        del storage
        self.assertEqual(self.recorder.events, [("alloc", 0x1000, 512, 7), ("free", 0x1000, 512, 7)])
        self.assertFalse(self.blocks.is_live(0x1000, 512))

    def test_empty_storages_are_not_blocks(self):
        self.assertIsNone(self.blocks.see(FakeStorage(0, 0), 7))
        self.assertIsNone(self.blocks.see(FakeStorage(0x1000, 0), 7))
        self.assertEqual(self.recorder.events, [])

    def test_late_death_of_an_old_block_does_not_kill_its_successor(self):
        old = FakeStorage(0x1000, 512)
        self.blocks.see(old, 7)
        # Simulate the old finalizer arriving after the successor registered.
        self.blocks._live.pop((0x1000, 512))
        new = FakeStorage(0x1000, 512)
        self.blocks.see(new, 8)
        del old
        self.assertTrue(self.blocks.is_live(0x1000, 512))
        self.assertEqual([event[0] for event in self.recorder.events], ["alloc", "alloc"])
        del new
        self.assertEqual(self.recorder.events[-1], ("free", 0x1000, 512, 8))

    def test_polling_fallback_reports_frees_before_the_next_new_block(self):
        first = SlotStorage(0x1000, 512)
        self.blocks.see(first, 7)
        first.freed = True  # the C++ storage died; nothing calls us back
        self.assertEqual(len(self.recorder.events), 1)
        self.blocks.see(SlotStorage(0x1000, 512), 8)
        self.assertEqual(self.recorder.events, [
            ("alloc", 0x1000, 512, 7), ("free", 0x1000, 512, 7), ("alloc", 0x1000, 512, 8)])
        self.assertEqual(len(SlotStorage.released), 1)

        second = SlotStorage(0x2000, 64)
        self.blocks.see(second, 9)
        second.freed = True
        self.blocks.sweep()
        self.assertEqual(self.recorder.events[-1], ("free", 0x2000, 64, 9))

    def test_storages_without_any_weak_reference_are_said_once(self):
        class Opaque:
            __slots__ = ()

            def data_ptr(self):
                return 0x3000

            def nbytes(self):
                return 16

        stderr = io.StringIO()
        with redirect_stderr(stderr):
            self.blocks.see(Opaque(), 1)
        self.assertEqual(self.recorder.events, [("alloc", 0x3000, 16, 1)])
        self.assertRegex(stderr.getvalue(), r"^racetrack: storages support no weak references.*\n$")

    def test_a_failing_free_callback_does_not_escape_the_finalizer(self):
        def broken_free(address, size, stream):
            raise RuntimeError("nvtx gone")

        blocks = BlockLifetimes(self.recorder.alloc, broken_free)
        storage = FakeStorage(0x4000, 16)
        blocks.see(storage, 1)
        stderr = io.StringIO()
        with redirect_stderr(stderr):
            del storage
        self.assertIn("racetrack: recording a block free failed (RuntimeError: nvtx gone)", stderr.getvalue())

    def test_interpreter_exit_is_not_a_free(self):
        import subprocess
        import sys

        import racetrack_torch

        code = ("from racetrack_torch.lifetimes import BlockLifetimes\n"
                "class Storage:\n"
                "    def data_ptr(self): return 0x1000\n"
                "    def nbytes(self): return 16\n"
                "kept = Storage()\n"
                "blocks = BlockLifetimes(lambda *a: print('alloc'), lambda *a: print('free'))\n"
                "blocks.see(kept, 1)\n")
        package_dir = racetrack_torch.__path__[0] + "/.."
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                env={"PYTHONPATH": package_dir})
        self.assertEqual(result.stdout, "alloc\n", result.stderr)


if __name__ == "__main__":
    unittest.main()
