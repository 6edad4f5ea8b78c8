"""enable() / disable() / label() against the fake torch package."""

import threading
import unittest

import racetrack_torch
from fakes import FakeOp, FakeTensor, FakeTorchOnPath

ADD = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"


class EnableTest(unittest.TestCase):
    def setUp(self):
        self.fake = FakeTorchOnPath()
        self.fake.__enter__()
        import torch
        import torch.utils._python_dispatch as python_dispatch

        torch.Tensor = FakeTensor  # the tracer takes torch.Tensor at enable()
        self.torch = torch
        self.modes = python_dispatch._get_current_dispatch_mode_stack
        self.nvtx = torch.cuda.nvtx.calls

    def tearDown(self):
        self.fake.__exit__(None, None, None)

    def test_import_does_not_import_torch(self):
        import subprocess
        import sys

        code = "import sys, racetrack_torch; print('torch' in sys.modules)"
        output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                env={"PYTHONPATH": racetrack_torch.__path__[0] + "/.."})
        self.assertEqual(output.stdout.strip(), "False", output.stderr)

    def test_enable_is_idempotent_and_routes_operators_to_nvtx(self):
        self.assertFalse(racetrack_torch.is_enabled())
        racetrack_torch.enable()
        racetrack_torch.enable()
        self.assertTrue(racetrack_torch.is_enabled())
        modes = self.modes()
        self.assertEqual(len(modes), 1)
        self.assertEqual(modes[0].entered, 1)

        a, b, out = FakeTensor(0x1000, [4]), FakeTensor(0x2000, [4]), FakeTensor(0x3000, [4])
        result = modes[0].__torch_dispatch__(FakeOp(ADD, lambda *args, **kwargs: out), (), (a, b), None)
        self.assertIs(result, out)
        self.assertIn(("push", "racetrack:op aten::add.Tensor s=0x5000 r:0x1000:16 r:0x2000:16"), self.nvtx)
        self.assertIn(("mark", "racetrack:op-out w:0x3000:16"), self.nvtx)
        self.assertEqual(self.nvtx[-1], ("pop", None))

    def test_stacks_turn_on_and_stay_on(self):
        racetrack_torch.enable()
        self.assertFalse(racetrack_torch._tracer.stacks)
        racetrack_torch.enable(stacks=True)
        racetrack_torch.enable()
        self.assertTrue(racetrack_torch._tracer.stacks)

    def test_disable_pops_the_mode_and_silences_labels(self):
        racetrack_torch.enable()
        racetrack_torch.disable()
        self.assertFalse(racetrack_torch.is_enabled())
        self.assertEqual(self.modes(), [])
        racetrack_torch.label(FakeTensor(0x1000, [4]), "ignored")
        self.assertEqual(self.nvtx, [])
        racetrack_torch.enable()
        self.assertEqual(len(self.modes()), 1)
        weights = FakeTensor(0x1000, [4])
        racetrack_torch.label(weights, "weights")
        self.assertEqual(self.nvtx, [("mark", "racetrack:block-alloc 0x1000:16 s=0x5000"),
                                     ("mark", "racetrack:label 0x1000:16 weights")])

    def test_disable_keeps_a_mode_that_is_not_on_top(self):
        from torch.utils._python_dispatch import TorchDispatchMode

        racetrack_torch.enable()
        other = TorchDispatchMode().__enter__()
        racetrack_torch.disable()
        self.assertEqual(len(self.modes()), 2)
        self.assertIs(self.modes()[1], other)
        racetrack_torch.enable()  # our mode is still pushed here: not again
        self.assertEqual(len(self.modes()), 2)

    def test_each_thread_gets_its_own_mode(self):
        racetrack_torch.enable()
        seen = []

        def worker():
            racetrack_torch.enable()
            seen.append(self.modes())

        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        self.assertEqual(len(seen[0]), 1)
        self.assertIsNot(seen[0][0], self.modes()[0])
        self.assertIs(seen[0][0].tracer, self.modes()[0].tracer)


if __name__ == "__main__":
    unittest.main()
