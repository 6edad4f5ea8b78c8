"""Digests of tensor values for `racetrack diff`: a hash of the bytes, and
cheap statistics for a tolerance mode (sum, absolute maximum, NaN and Inf
counts).

Everything is computed on the tensor's own device with a few reductions,
and the results stay there: `Digests.add` returns at once with an empty
dict, and `collect` copies a whole batch back with one transfer per device
(one host sync per batch, not per operator) and fills those dicts in. On
the CPU the same code runs without any sync.

The hash: the bytes as 32-bit words w_i (the last one zero-padded), and
sum_i (w_i * m_i mod P) mod P for P = 2^31 - 1 and two sets of position
multipliers m_i, giving 62 bits. Every product stays below 2^63 and every
partial sum below 2^63 for tensors under 2^32 words, so int64 arithmetic
never overflows (wrapping is not relied on anywhere)."""

_P = (1 << 31) - 1
_MULTIPLIERS = ((0x5BD1E995, 0x27D4EB2F), (0x165667B1, 0x61C88647))
_MAX_WORDS = 1 << 32


class Digests:
    def __init__(self, torch):
        self._torch = torch
        self._weights = {}  # device -> (n, 2) int64 multipliers, grown as needed
        self._pending = []  # (ints, floats, numel, dtype, the dict to fill) per digest

    def add(self, tensor):
        """Queues `tensor`'s digest; returns the dict `collect` fills in."""
        # Our own operators must reach no dispatch mode (racetrack's or any other).
        with self._torch._C._DisableTorchDispatch():
            return self._add(tensor)

    def _add(self, tensor):
        torch = self._torch
        t = tensor.detach()
        numel = t.numel()
        if t.is_complex():
            t = torch.view_as_real(t)
        dtype = str(tensor.dtype).replace("torch.", "")
        if numel == 0:
            zero_i = torch.zeros(3, dtype=torch.int64, device=t.device)
            zero_f = torch.zeros(2, dtype=torch.float64, device=t.device)
            return self._queue(zero_i, zero_f, 0, dtype)
        t = t.contiguous()
        words = self._words(t)
        if words.numel() >= _MAX_WORDS:
            raise ValueError("tensor too large to digest (2^32 words or more)")
        hashes = self._hashes(words)
        wide = t.to(torch.float64)
        if t.is_floating_point():
            nan = torch.isnan(wide).sum()
            inf = torch.isinf(wide).sum()
            wide = torch.nan_to_num(wide, nan=0.0, posinf=0.0, neginf=0.0)
        else:
            nan = inf = torch.zeros((), dtype=torch.int64, device=t.device)
        floats = torch.stack([wide.sum(), wide.abs().max()])
        ints = torch.stack([hashes[0] << 31 | hashes[1], nan.to(torch.int64), inf.to(torch.int64)])
        return self._queue(ints, floats, numel, dtype)

    def _queue(self, ints, floats, numel, dtype):
        digest = {}
        self._pending.append((ints, floats, numel, dtype, digest))
        return digest

    def collect(self):
        """Fills in every queued digest; the queue is emptied."""
        with self._torch._C._DisableTorchDispatch():
            self._collect()

    def _collect(self):
        torch = self._torch
        pending, self._pending = self._pending, []
        by_device = {}
        for k, p in enumerate(pending):
            by_device.setdefault(p[0].device, []).append(k)
        ints, floats = [None] * len(pending), [None] * len(pending)
        for indices in by_device.values():
            int_rows = torch.stack([pending[k][0] for k in indices]).cpu().tolist()
            float_rows = torch.stack([pending[k][1] for k in indices]).cpu().tolist()
            for k, i, f in zip(indices, int_rows, float_rows):
                ints[k], floats[k] = i, f
        for (_, _, numel, dtype, digest), i, f in zip(pending, ints, floats):
            digest.update({"hash": "%016x" % i[0], "dtype": dtype, "numel": numel, "sum": f[0], "absmax": f[1],
                           "nan": i[1], "inf": i[2]})

    def _words(self, t):
        """The tensor's bytes as non-negative 32-bit words in int64."""
        torch = self._torch
        raw = t.reshape(-1).view(torch.uint8) if t.element_size() != 4 else t.reshape(-1).view(torch.int32)
        if raw.dtype == torch.uint8:
            pad = (-raw.numel()) % 4
            if pad:
                raw = torch.cat([raw, torch.zeros(pad, dtype=torch.uint8, device=raw.device)])
            raw = raw.view(torch.int32)
        return raw.to(torch.int64) & 0xFFFFFFFF

    def _hashes(self, words):
        """Both 31-bit hashes at once: an (n, 2) product, summed by column."""
        weights = self._multipliers(words.device, words.numel())
        return ((words % _P).unsqueeze(1) * weights % _P).sum(0) % _P

    def _multipliers(self, device, n):
        torch = self._torch
        key = str(device)
        have = self._weights.get(key)
        if have is None or have.shape[0] < n:
            size = max(n, 2 * (have.shape[0] if have is not None else 0), 1024)
            index = torch.arange(size, dtype=torch.int64, device=device) % _P
            have = torch.stack([(index * a + b) % _P for a, b in _MULTIPLIERS], dim=1)
            self._weights[key] = have
        return have[:n]
