"""`racetrack check` on several rank traces: on a Dask LocalCluster of
worker processes (`--dask local:N`) it gives the report the local pool gives;
a scheduler that cannot be reached is bad input (exit 2) with a message.

Run from ctest (tests/dask/CMakeLists.txt), which sets RACETRACK and
RACETRACK_TEST_TMPDIR.
"""
import json
import os
import subprocess
import tempfile
import unittest

RACETRACK = os.environ["RACETRACK"]
TMP = tempfile.mkdtemp(dir=os.environ["RACETRACK_TEST_TMPDIR"])


def run(*args):
    return subprocess.run([RACETRACK, *args], capture_output=True, text=True, timeout=240)


class DaskCheck(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = os.path.join(TMP, "ranks")
        os.makedirs(cls.dir)
        synth = run("synth", "-o", os.path.join(cls.dir, "rank-%r.rtrace"), "--ranks", "4", "--ops", "20000",
                    "--layers", "4", "--microbatches", "2", "--activation-bytes", "65536", "--inject",
                    "C12_bucket:2,C6_allgather,C11_stash")
        assert "could not be placed" not in synth.stderr, synth.stderr
        assert synth.returncode == 0, synth.stderr

    def test_a_local_cluster_gives_the_pools_report(self):
        pool = run("check", "--format", "json", "--no-fix", self.dir)
        dask = run("check", "--format", "json", "--no-fix", "--dask", "local:3", self.dir)
        self.assertEqual(pool.returncode, 1, pool.stderr)
        self.assertEqual(dask.returncode, 1, dask.stderr)
        self.assertIn("Dask worker(s)", dask.stderr)
        by_pool, by_dask = json.loads(pool.stdout), json.loads(dask.stdout)
        self.assertEqual(by_dask["summary"], by_pool["summary"])
        self.assertEqual(by_dask["groups"], by_pool["groups"])
        self.assertEqual(by_dask["summary"]["checked"], 4)
        ranks = {r for g in by_dask["groups"] for r in g["ranks"]}
        self.assertEqual(ranks, {0, 1, 2, 3}, "every rank carries an injected hazard")
        # --no-fix went to the workers: no fix was verified.
        self.assertTrue(all(not g["fix"]["verified"] for g in by_dask["groups"]))

    def test_an_unreachable_scheduler_is_bad_input(self):
        r = run("check", "--dask", "tcp://127.0.0.1:9", self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertIn("Dask", r.stderr)


if __name__ == "__main__":
    unittest.main()
