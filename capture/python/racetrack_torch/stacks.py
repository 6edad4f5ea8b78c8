"""The user's Python stack at an operator, as "file:line function" frames.

Frames of PyTorch itself and of this package are skipped, so the first frame
is the user's line that ran the operator. Whether a code object is internal is
decided once per code object.
"""

import sys

MAX_FRAMES = 8


class StackWalker:
    def __init__(self, internal_prefixes, max_frames=MAX_FRAMES):
        self._prefixes = tuple(internal_prefixes)
        self._max_frames = max_frames
        self._internal = {}  # code object -> bool

    def _is_internal(self, code):
        internal = self._internal.get(code)
        if internal is None:
            filename = code.co_filename
            internal = filename.startswith(self._prefixes) or filename.startswith("<frozen ")
            self._internal[code] = internal
        return internal

    def frames(self, frame=None):
        """User frames from `frame` (default: the caller) outwards, at most max_frames."""
        if frame is None:
            frame = sys._getframe(1)
        out = []
        while frame is not None and len(out) < self._max_frames:
            code = frame.f_code
            if not self._is_internal(code):
                out.append(f"{code.co_filename}:{frame.f_lineno} {code.co_name}")
            frame = frame.f_back
        return out
