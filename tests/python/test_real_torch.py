"""racetrack_torch against the real PyTorch (scripts/install-deps.sh installs
it; under ctest, RACETRACK_REQUIRE_TORCH=1 makes a missing torch a failure,
not a skip). CPU tensors only, so no GPU is needed: CPU operators become
host marks, which exercises the dispatch mode, real operator schemas, real
tensor strides and the import hook."""

import os
import subprocess
import sys
import unittest

from real_torch import Sink, torch

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "capture", "python")


@unittest.skipIf(torch is None, "PyTorch is not installed")
class RealTorchTest(unittest.TestCase):
    def setUp(self):
        import racetrack_torch

        self.racetrack_torch = racetrack_torch
        racetrack_torch.enable()
        self.sink = Sink()
        racetrack_torch._tracer._sink = self.sink

    def tearDown(self):
        self.racetrack_torch.disable()

    def host_marks(self):
        return [m for kind, m in self.sink.calls if kind == "mark" and m.startswith("racetrack:host")]

    def test_in_place_and_fresh_outputs_from_real_schemas(self):
        x = torch.ones(8)  # a factory: writes x
        y = x * 2  # mul.Tensor: reads x, writes a fresh y
        x.add_(y)  # add_.Tensor: x is read and written
        marks = self.host_marks()
        self.assertEqual(len(marks), 3, self.sink.calls)
        self.assertEqual(marks[0], "racetrack:host w:0x%x:32" % x.data_ptr())
        marks = marks[1:]
        x_item = "0x%x:32" % x.data_ptr()
        y_item = "0x%x:32" % y.data_ptr()
        self.assertIn("r:" + x_item, marks[0])
        self.assertIn("w:" + y_item, marks[0])
        self.assertIn("rw:" + x_item, marks[1])

    def test_a_transposed_slice_spans_its_exact_bytes(self):
        base = torch.zeros(4, 6)
        created = len(self.host_marks())
        view = base[1:3, 2:5].t()  # view ops emit nothing
        self.assertEqual(len(self.host_marks()), created)
        del self.sink.calls[:]
        view.fill_(1.0)
        first = base.data_ptr() + (1 * 6 + 2) * 4
        last = base.data_ptr() + (2 * 6 + 4) * 4
        self.assertEqual(self.host_marks(), ["racetrack:host rw:0x%x:%d" % (first, last + 4 - first)])

    def test_backward_operators_are_traced(self):
        x = torch.randn(16, requires_grad=True)
        (x * x).sum().backward()
        self.assertGreaterEqual(len(self.host_marks()), 4)
        self.assertIsNotNone(x.grad)


@unittest.skipIf(torch is None, "PyTorch is not installed")
class RealTorchAutostartTest(unittest.TestCase):
    def test_the_import_hook_enables_tracing_when_torch_is_imported(self):
        env = dict(os.environ, PYTHONPATH=PACKAGE, RACETRACK_TORCH="1", PYTHONDONTWRITEBYTECODE="1")
        code = ("import racetrack_torch, sys; assert not racetrack_torch.is_enabled(); "
                "import torch; torch.ones(2).add_(1); print(racetrack_torch.is_enabled())")
        result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "True")
        self.assertNotIn("racetrack:", result.stderr)


if __name__ == "__main__":
    unittest.main()
