"""The torch import hook (in process) and sitecustomize (in a child Python)."""

import io
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from contextlib import redirect_stderr

import racetrack_torch
from fakes import FakeTorchOnPath, write_fake_torch
from racetrack_torch import autostart

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(racetrack_torch.__file__)))


class ImportHookTest(unittest.TestCase):
    def test_callback_runs_after_torch_finished_importing(self):
        with FakeTorchOnPath():
            seen = []
            hook = autostart.AfterImportHook("torch", lambda module: seen.append(
                (module.__name__, getattr(module, "IMPORT_FINISHED", False))))
            hook.install()
            self.assertIn(hook, sys.meta_path)
            self.assertNotIn("torch", sys.modules)
            import torch

            self.assertEqual(seen, [("torch", True)])
            self.assertNotIn(hook, sys.meta_path)
            self.assertNotIsInstance(torch.__loader__, autostart._NotifyingLoader)
            self.assertIs(torch.__spec__.loader, torch.__loader__)

    def test_torch_already_imported_fires_at_once(self):
        with FakeTorchOnPath():
            import torch

            seen = []
            autostart.AfterImportHook("torch", seen.append).install()
            self.assertEqual(seen, [torch])

    def test_environment_switch(self):
        meta_path = list(sys.meta_path)
        self.assertIsNone(autostart.install_from_environment({}))
        self.assertIsNone(autostart.install_from_environment({"RACETRACK_TORCH": "0"}))
        self.assertEqual(sys.meta_path, meta_path)

    def test_enable_runs_on_import_with_stacks_from_the_environment(self):
        with FakeTorchOnPath():
            autostart.install_from_environment({"RACETRACK_TORCH": "1", "RACETRACK_TORCH_STACKS": "1"})
            self.assertFalse(racetrack_torch.is_enabled())
            import torch

            self.assertTrue(torch.IMPORT_FINISHED)
            self.assertTrue(racetrack_torch.is_enabled())
            self.assertTrue(racetrack_torch._tracer.stacks)

    def test_a_failing_enable_prints_one_line_and_the_import_succeeds(self):
        with FakeTorchOnPath(broken=True):
            autostart.install_from_environment({"RACETRACK_TORCH": "1"})
            stderr = io.StringIO()
            with redirect_stderr(stderr):
                import torch

            self.assertTrue(torch.IMPORT_FINISHED)
            self.assertFalse(racetrack_torch.is_enabled())
            lines = stderr.getvalue().splitlines()
            self.assertEqual(len(lines), 1, lines)
            self.assertRegex(lines[0], r"^racetrack: PyTorch tracing is off.*ModuleNotFoundError")


class SitecustomizeTest(unittest.TestCase):
    """Runs a child Python the way `racetrack capture --torch` does."""

    def setUp(self):
        self._directory = tempfile.TemporaryDirectory()
        self.root = self._directory.name

    def tearDown(self):
        self._directory.cleanup()

    def run_python(self, code, path, **environment):
        env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.pathsep.join([PACKAGE_DIR, *path])}
        env.update(environment)
        return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                              text=True, env=env, cwd=self.root, timeout=60)

    def directory(self, name):
        path = os.path.join(self.root, name)
        os.makedirs(path)
        return path

    def test_the_users_sitecustomize_still_runs(self):
        user = self.directory("user")
        with open(os.path.join(user, "sitecustomize.py"), "w") as file:
            file.write("import sys\nUSER_SITE = True\nprint('user sitecustomize ran')\n")
        result = self.run_python("import sitecustomize; print(sitecustomize.USER_SITE)", [user])
        self.assertEqual(result.stdout.splitlines(), ["user sitecustomize ran", "True"], result.stderr)
        self.assertEqual(result.stderr, "")

    def test_a_broken_user_sitecustomize_is_reported_like_site_does(self):
        user = self.directory("user")
        with open(os.path.join(user, "sitecustomize.py"), "w") as file:
            file.write("raise ValueError('bad config')\n")
        result = self.run_python("print('main ran')", [user])
        self.assertEqual(result.stdout, "main ran\n")
        self.assertIn("Error in sitecustomize", result.stderr)
        self.assertIn("ValueError: bad config", result.stderr)

    def test_tracing_starts_when_the_program_imports_torch(self):
        fake = self.directory("fake")
        write_fake_torch(fake)
        code = """
            import sys
            import racetrack_torch
            print("torch" in sys.modules, racetrack_torch.is_enabled())
            import torch
            tracer = racetrack_torch._tracer
            print(racetrack_torch.is_enabled(), racetrack_torch.is_enabled() and tracer.stacks)
        """
        result = self.run_python(code, [fake], RACETRACK_TORCH="1")
        self.assertEqual(result.stdout.splitlines(), ["False False", "True False"], result.stderr)
        result = self.run_python(code, [fake], RACETRACK_TORCH="1", RACETRACK_TORCH_STACKS="1")
        self.assertEqual(result.stdout.splitlines(), ["False False", "True True"], result.stderr)
        result = self.run_python(code, [fake])
        self.assertEqual(result.stdout.splitlines(), ["False False", "False False"], result.stderr)

    def test_failure_to_enable_leaves_the_program_running(self):
        fake = self.directory("fake")
        write_fake_torch(fake, broken=True)
        result = self.run_python("import torch\nprint('trained', torch.IMPORT_FINISHED)", [fake],
                                 RACETRACK_TORCH="1")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "trained True\n")
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, lines)
        self.assertTrue(lines[0].startswith("racetrack: "), lines)


if __name__ == "__main__":
    unittest.main()
