import sys
import unittest

from racetrack_torch.stacks import StackWalker

# Code that pretends to live in a user's script and inside torch.
USER_FILE = "/home/user/train.py"
TORCH_FILE = "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py"


def _compile(source, filename):
    namespace = {}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


_torch = _compile("def _call_impl(fn, *args):\n    return fn(*args)\n", TORCH_FILE)
_user = _compile(
    "def forward(call_impl, capture):\n"
    "    return capture()\n"
    "def step(call_impl, capture):\n"
    "    return call_impl(forward, call_impl, capture)\n"
    "def recurse(depth, capture):\n"
    "    return capture() if depth == 0 else recurse(depth - 1, capture)\n",
    USER_FILE)


class StackWalkerTest(unittest.TestCase):
    def setUp(self):
        self.walker = StackWalker([TORCH_FILE.rsplit("torch/", 1)[0] + "torch/"])

    def test_innermost_user_frame_first_and_torch_skipped(self):
        frames = _user["step"](_torch["_call_impl"], lambda: self.walker.frames(sys._getframe(1)))
        self.assertEqual(frames[:2], [f"{USER_FILE}:2 forward", f"{USER_FILE}:4 step"])
        self.assertFalse(any("module.py" in frame for frame in frames))

    def test_at_most_eight_frames(self):
        frames = _user["recurse"](12, lambda: self.walker.frames(sys._getframe(1)))
        self.assertEqual(len(frames), 8)
        self.assertEqual(frames, [f"{USER_FILE}:6 recurse"] * 8)

    def test_default_starts_at_the_caller(self):
        frames = self.walker.frames()
        self.assertTrue(frames[0].endswith("test_default_starts_at_the_caller"))


if __name__ == "__main__":
    unittest.main()
