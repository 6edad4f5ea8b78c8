"""Values records and `racetrack diff` with the real PyTorch on the CPU:
digests tell equal bytes from changed ones; a transformer block trained
with a correct offload + recompute wrapper does not diverge from the plain
block over several steps, and the PR 2123 wrapper diverges where fc1's
weight gradient should have been computed, which diff names."""

import json
import os
import subprocess
import tempfile
import unittest

from real_torch import torch

RACETRACK = os.environ.get("RACETRACK_CLI")


@unittest.skipIf(torch is None, "PyTorch is not installed")
class DigestTest(unittest.TestCase):
    def digests(self, *tensors):
        from racetrack_torch.digests import Digests

        d = Digests(torch)
        out = [d.add(t) for t in tensors]
        d.collect()
        return out

    def test_equal_bytes_equal_digests_and_a_changed_element_changes_the_hash(self):
        a = torch.randn(7, 5)
        b = a.clone()
        b[3, 2] += 1
        da, same, db, transposed = self.digests(a, a.clone(), b, a.t().contiguous().t())
        self.assertEqual(da, same)
        self.assertNotEqual(da["hash"], db["hash"])
        self.assertEqual(da, transposed)  # a strided view digests its values, not its storage
        self.assertEqual(da["numel"], 35)

    def test_statistics_for_the_tolerance_mode(self):
        x = torch.tensor([1.0, -3.0, float("nan"), float("inf"), 2.0])
        (d, zeros, flags) = self.digests(x, torch.zeros(4, dtype=torch.float16), torch.tensor([True, False]))
        self.assertEqual((d["nan"], d["inf"], d["sum"], d["absmax"]), (1, 1, 0.0, 3.0))
        self.assertEqual((zeros["absmax"], zeros["dtype"]), (0.0, "float16"))
        self.assertEqual((flags["sum"], flags["dtype"]), (1.0, "bool"))


@unittest.skipIf(torch is None, "PyTorch is not installed")
class RecordTest(unittest.TestCase):
    def test_phases_modules_gradients_and_no_digest_operators_recorded(self):
        import racetrack_torch

        model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.GELU())
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        x = torch.randn(2, 4)
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "v.jsonl")
            racetrack_torch.record_values(path, model=model, name="m")
            model(x).sum().backward()
            optimizer.step()
            racetrack_torch.stop_values()
            with open(path) as f:
                lines = [json.loads(line) for line in f]
        self.assertEqual(lines[0]["racetrack_values"], 1)
        seen = [(r["phase"], r["module"], r["op"], r.get("param", "")) for r in lines[1:]]
        self.assertEqual(seen[:2], [("forward", "m.0", "aten::addmm", ""), ("forward", "m.1", "aten::gelu", "")])
        self.assertIn(("backward", "m.1", "aten::gelu_backward", ""), seen)
        self.assertIn(("backward", "m.0", "grad", "m.0.weight"), seen)
        self.assertEqual(sum(1 for s in seen if s[0] == "optimizer"), 2)
        # The digests' own reductions (sum, abs, max, ...) are not operators of the program.
        self.assertFalse(any(s[2] in ("aten::abs", "aten::max", "aten::nan_to_num", "aten::remainder")
                             for s in seen), seen)
        self.assertTrue(all("hash" in d for r in lines[1:] for d in r["in"] + r["out"]))


    def test_a_tensor_it_cannot_digest_stops_recording_not_the_program(self):
        import contextlib
        import io

        import racetrack_torch

        sparse = torch.eye(3).to_sparse()
        with tempfile.TemporaryDirectory() as directory:
            stderr = io.StringIO()
            with contextlib.redirect_stderr(stderr):
                racetrack_torch.record_values(os.path.join(directory, "v.jsonl"))
                total = (sparse * 2).to_dense().sum().item()
                racetrack_torch.stop_values()
        self.assertEqual(total, 6.0)
        self.assertIn("racetrack: values are no longer recorded", stderr.getvalue())


@unittest.skipIf(torch is None or not RACETRACK, "PyTorch or the racetrack binary (RACETRACK_CLI) missing")
class OffloadBlockDiffTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import offload_block

        cls.directory = tempfile.TemporaryDirectory()
        cls.paths = {}
        cls.losses = {}
        for wrapper in ("plain", "offload", "offload-bug"):
            path = os.path.join(cls.directory.name, wrapper + ".jsonl")
            cls.losses[wrapper] = offload_block.train(None if wrapper == "plain" else wrapper, steps=3,
                                                      values_path=path)
            cls.paths[wrapper] = path

    @classmethod
    def tearDownClass(cls):
        cls.directory.cleanup()

    def diff(self, run, baseline="plain"):
        done = subprocess.run([RACETRACK, "diff", "--format", "json", self.paths[baseline], self.paths[run]],
                              capture_output=True, text=True)
        return done.returncode, json.loads(done.stdout) if done.stdout else None, done.stderr

    def test_the_correct_wrapper_does_not_diverge(self):
        self.assertEqual(self.losses["offload"], self.losses["plain"])
        code, report, err = self.diff("offload")
        self.assertEqual(code, 0, err)
        self.assertFalse(report["diverged"])
        self.assertGreaterEqual(report["recomputed_matched"], 3)  # one recomputed gelu per step
        self.assertGreater(report["movement_skipped"], 0)  # the offload copies
        self.assertEqual(report["compared"], report["equal"])

    def test_the_pr_2123_wrapper_diverges_at_fc1s_weight_gradient(self):
        self.assertEqual(self.losses["offload-bug"][0], self.losses["plain"][0])  # the first loss is right
        self.assertNotEqual(self.losses["offload-bug"][1:], self.losses["plain"][1:])
        code, report, err = self.diff("offload-bug")
        self.assertEqual(code, 1, err)
        first = report["first_divergence"]
        self.assertEqual(first["how"], "missing")  # autograd never ran fc1's backward
        self.assertEqual((first["baseline"]["phase"], first["baseline"]["module"]), ("backward", "block.fc1"))
        # Where on the run's timeline (racetrack view --divergence): after the run's last matched operator.
        self.assertGreater(first["at"]["time_ns"], 0)
        gradient = report["first_gradient"]
        self.assertTrue(gradient["baseline"]["param"].startswith("block.fc1."), gradient)
        self.assertEqual(gradient["baseline"]["n"], 0)  # in the first step

    def test_against_the_correct_wrapper_the_wrappers_own_backward_is_named(self):
        code, report, err = self.diff("offload-bug", baseline="offload")
        self.assertEqual(code, 1, err)
        first = report["first_divergence"]
        self.assertEqual(first["run"]["op"], "returns:OffloadRecomputeBackward")  # what its backward returned
        self.assertEqual(first["run_digest"]["dtype"], "none")  # None: no gradient for fc1's output
        self.assertEqual(first["baseline_digest"]["dtype"], "float32")
        self.assertTrue(first["starts_here"])


if __name__ == "__main__":
    unittest.main()
