import gc
import io
import unittest
from contextlib import redirect_stderr

from fakes import FakeDevice, FakeOp, FakeStorage, FakeTensor, RecordingSink
from racetrack_torch.tracer import OpTracer

ADD = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
ADD_ = "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"
ADD_OUT = "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"
VIEW = "view(Tensor(a) self, SymInt[] size) -> Tensor(a)"
COPY_ = "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)"
CAT = "cat(Tensor[] tensors, int dim=0) -> Tensor"
FOREACH_ADD_ = "_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()"
MAX_DIM = "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)"
EMPTY = ("empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
         "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor")
ZEROS = "zeros(SymInt[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor"

STREAM = 0x10


def stream_of(device_index):
    return STREAM if device_index in (None, 0) else STREAM + device_index


def cuda(address, sizes=(4,), **kwargs):
    return FakeTensor(address, list(sizes), **kwargs)


def cpu(address, sizes=(4,), **kwargs):
    return FakeTensor(address, list(sizes), device="cpu", **kwargs)


class TracerTest(unittest.TestCase):
    def setUp(self):
        self.sink = RecordingSink()
        self.tracer = OpTracer(self.sink, FakeTensor, stream_of)

    def op(self, schema, result=None):
        """A fake operator that notes how many NVTX calls preceded its run."""
        self.calls_at_run = None

        def impl(*args, **kwargs):
            self.calls_at_run = len(self.sink.calls)
            return result(*args, **kwargs) if callable(result) else result

        return FakeOp(schema, impl)


class CudaOpTest(TracerTest):
    def test_functional_op_full_sequence(self):
        a, b, out = cuda(0x1000), cuda(0x2000), cuda(0x3000)
        op = self.op(ADD, out)
        self.assertIs(self.tracer.run(op, (a, b), {"alpha": 2}), out)
        self.assertEqual(self.sink.calls, [
            ("mark", "racetrack:block-alloc 0x1000:16 s=0x10"),
            ("mark", "racetrack:block-alloc 0x2000:16 s=0x10"),
            ("push", "racetrack:op aten::add.Tensor s=0x10 r:0x1000:16 r:0x2000:16"),
            ("mark", "racetrack:block-alloc 0x3000:16 s=0x10"),
            ("mark", "racetrack:op-out w:0x3000:16"),
            ("pop", None),
        ])
        self.assertEqual(self.calls_at_run, 3)  # inside the range, before op-out

    def test_blocks_are_announced_once_per_storage(self):
        shared = FakeStorage(0x1000, 64)
        a, b = cuda(0x1000, storage=shared), cuda(0x1010, storage=shared)
        op = self.op(ADD_, a)
        self.tracer.run(op, (a, b), {})
        self.tracer.run(op, (a, b), {})
        allocs = [m for kind, m in self.sink.calls if m and "block-alloc" in m]
        self.assertEqual(allocs, ["racetrack:block-alloc 0x1000:64 s=0x10"])
        pushes = [m for kind, m in self.sink.calls if kind == "push"]
        self.assertEqual(pushes, ["racetrack:op aten::add_.Tensor s=0x10 r:0x1010:16 rw:0x1000:16"] * 2)
        self.assertNotIn("op-out", " ".join(m for _, m in self.sink.calls if m))

    def test_out_argument_is_reported_after_the_call(self):
        a, b = cuda(0x1000), cuda(0x2000)
        out = cuda(0x3000, [0])

        def resize_out(self_, other, alpha=1, out=None):
            out._data_ptr, out._sizes, out._strides = 0x9000, [4], [1]
            out._storage = FakeStorage(0x9000, 16)
            return out

        self.tracer.run(self.op(ADD_OUT, resize_out), (a, b), {"out": out})
        self.assertEqual(self.sink.calls[-3:], [
            ("mark", "racetrack:block-alloc 0x9000:16 s=0x10"),
            ("mark", "racetrack:op-out w:0x9000:16"),
            ("pop", None),
        ])

    def test_lists_and_multiple_returns(self):
        xs = [cuda(0x1000), cuda(0x1010)]  # touching: merged into one item
        ys = [cuda(0x2000), cuda(0x4000)]
        self.tracer.run(self.op(FOREACH_ADD_), (xs, ys), {"alpha": 1})
        self.assertIn(("push", "racetrack:op aten::_foreach_add_.List s=0x10 "
                       "r:0x2000:16 r:0x4000:16 rw:0x1000:32"), self.sink.calls)

        self.sink.calls.clear()
        self.tracer.run(self.op(CAT, cuda(0x5000, [8])), ([cuda(0x1000), cuda(0x2000)],), {})
        self.assertIn(("push", "racetrack:op aten::cat s=0x10 r:0x1000:16 r:0x2000:16"), self.sink.calls)
        self.assertIn(("mark", "racetrack:op-out w:0x5000:32"), self.sink.calls)

        self.sink.calls.clear()
        values, indices = cuda(0x6000, [2]), cuda(0x7000, [2], element_size=8)
        self.tracer.run(self.op(MAX_DIM, (values, indices)), (cuda(0x1000), 0), {})
        self.assertIn(("mark", "racetrack:op-out w:0x6000:8 w:0x7000:16"), self.sink.calls)

    def test_view_ops_pass_through_silently(self):
        view = cuda(0x1000, [2, 2])
        op = self.op(VIEW, view)
        self.assertIs(self.tracer.run(op, (cuda(0x1000), [2, 2]), {}), view)
        self.assertEqual(op.calls, 1)
        self.assertEqual(self.sink.calls, [])

    def test_copy_from_pinned_host_reports_only_device_memory(self):
        dst, src = cuda(0x1000, device_index=1), cpu(0x8000, pinned=True)
        self.tracer.run(self.op(COPY_, dst), (dst, src, True), {})
        self.assertEqual(self.sink.calls, [
            ("mark", "racetrack:block-alloc 0x1000:16 s=0x11"),
            ("push", "racetrack:op aten::copy_ s=0x11 rw:0x1000:16"),
            ("pop", None),
        ])

    def test_factories_on_the_device(self):
        out = cuda(0x3000)
        self.tracer.run(self.op(EMPTY, out), ([4],), {"device": FakeDevice("cuda", 0)})
        self.assertEqual(self.sink.calls, [
            ("push", "racetrack:op aten::empty.memory_format s=0x10"),
            ("mark", "racetrack:block-alloc 0x3000:16 s=0x10"),
            ("pop", None),
        ])
        self.sink.calls.clear()
        self.tracer.run(self.op(ZEROS, cuda(0x4000)), ([4],), {"device": FakeDevice("cuda", None)})
        self.assertIn(("mark", "racetrack:op-out w:0x4000:16"), self.sink.calls)

    def test_range_is_popped_when_the_operator_raises(self):
        def fail(*args, **kwargs):
            raise RuntimeError("CUDA out of memory")

        a, b = cuda(0x1000), cuda(0x2000)
        with self.assertRaisesRegex(RuntimeError, "out of memory"):
            self.tracer.run(self.op(ADD, fail), (a, b), {})
        self.assertEqual([kind for kind, _ in self.sink.calls], ["mark", "mark", "push", "pop"])

    def test_stacks_are_marked_inside_the_range_when_on(self):
        class Walker:
            def frames(self):
                return ["train.py:12 step", "train.py:30 main"]

        tracer = OpTracer(self.sink, FakeTensor, stream_of, stack_walker=Walker(), stacks=True)
        a, b = cuda(0x1000), cuda(0x2000)
        tracer.run(self.op(ADD_, None), (a, b), {})
        kinds = [kind for kind, _ in self.sink.calls]
        self.assertEqual(kinds, ["mark", "mark", "push", "mark", "pop"])
        self.assertEqual(self.sink.calls[3], ("mark", "racetrack:stack train.py:12 step <- train.py:30 main"))
        self.assertEqual(self.calls_at_run, 4)

        self.sink.calls.clear()
        tracer.stacks = False
        tracer.run(self.op(ADD_, None), (a, b), {})
        self.assertNotIn("stack", " ".join(m for _, m in self.sink.calls if m))


class HostOpTest(TracerTest):
    def test_cpu_op_on_pinned_and_pageable_memory_is_one_host_mark_after_the_call(self):
        pinned, pageable, out = cpu(0x8000, pinned=True), cpu(0x9000), cpu(0xA000)
        self.tracer.run(self.op(ADD, out), (pinned, pageable), {})
        self.assertEqual(self.calls_at_run, 0)
        self.assertEqual(self.sink.calls, [
            ("mark", "racetrack:host r:0x8000:16 r:0x9000:16 w:0xa000:16"),
        ])

    def test_in_place_cpu_op(self):
        self.tracer.run(self.op(COPY_, None), (cpu(0x8000, pinned=True), cpu(0x9000)), {})
        self.assertEqual(self.sink.calls, [("mark", "racetrack:host r:0x9000:16 rw:0x8000:16")])

    def test_cpu_empty_writes_nothing(self):
        self.tracer.run(self.op(EMPTY, cpu(0xA000)), ([4],), {"pin_memory": True})
        self.assertEqual(self.sink.calls, [])

    def test_meta_and_other_devices_pass_through(self):
        meta = FakeTensor(0, [4], device="meta")
        op = self.op(ADD, FakeTensor(0, [4], device="meta"))
        self.tracer.run(op, (meta, cpu(0x9000)), {})
        self.tracer.run(self.op(ZEROS, None), ([4],), {"device": "xla:0"})
        self.assertEqual(op.calls, 1)
        self.assertEqual(self.sink.calls, [])


class SwitchesAndErrorsTest(TracerTest):
    def test_disabled_tracer_emits_nothing(self):
        self.tracer.enabled = False
        out = cuda(0x3000)
        op = self.op(ADD, out)
        self.assertIs(self.tracer.run(op, (cuda(0x1000), cuda(0x2000)), {}), out)
        self.tracer.label(out, "never")
        self.assertEqual(op.calls, 1)
        self.assertEqual(self.sink.calls, [])

    def test_a_failing_hook_reports_one_line_and_runs_the_operator_untraced(self):
        class BrokenTensor(FakeTensor):
            def data_ptr(self):
                raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

        broken = BrokenTensor(0x1000, [4])
        op = self.op(ADD, cuda(0x3000))
        stderr = io.StringIO()
        with redirect_stderr(stderr):
            self.tracer.run(op, (broken, cuda(0x2000)), {})
            self.tracer.run(op, (broken, cuda(0x2000)), {})
        self.assertEqual(op.calls, 2)
        lines = stderr.getvalue().splitlines()
        self.assertEqual(len(lines), 1)
        self.assertRegex(lines[0], r"^racetrack: aten\.add\.Tensor left untraced.*RuntimeError")
        self.assertNotIn("push", [kind for kind, _ in self.sink.calls])


class BlockLifetimeTest(TracerTest):
    def test_block_free_when_the_storage_dies(self):
        a, b = cuda(0x1000), cuda(0x2000)
        self.tracer.run(self.op(ADD_, None), (a, b), {})
        self.sink.calls.clear()
        del a
        gc.collect()
        self.assertEqual(self.sink.calls, [("mark", "racetrack:block-free 0x1000:16 s=0x10")])

        # The same addresses handed out again are a new block.
        self.sink.calls.clear()
        c = cuda(0x1000)
        self.tracer.run(self.op(ADD_, None), (c, b), {})
        self.assertEqual(self.sink.calls[0], ("mark", "racetrack:block-alloc 0x1000:16 s=0x10"))

    def test_no_block_free_while_disabled(self):
        a, b = cuda(0x1000), cuda(0x2000)
        self.tracer.run(self.op(ADD_, None), (a, b), {})
        self.sink.calls.clear()
        self.tracer.enabled = False
        del a
        gc.collect()
        self.assertEqual(self.sink.calls, [])


class ExternalAccessTest(TracerTest):
    def test_external_access_names_the_agent_the_bytes_and_the_event(self):
        class Event:
            cuda_event = 0x77
        self.tracer.external_access("nixl_rdma", cpu(0x8000, pinned=True), "w", Event())
        self.tracer.external_done("nixl_rdma")
        self.assertEqual(self.sink.calls, [
            ("mark", "racetrack:external nixl_rdma w:0x8000:16 e=0x77"),
            ("mark", "racetrack:external-done nixl_rdma"),
        ])

    def test_bad_mode_is_an_error(self):
        with self.assertRaises(ValueError):
            self.tracer.external_access("nic", cpu(0x8000), "x", None)


class LabelTest(TracerTest):
    def test_label_names_the_whole_storage(self):
        storage = FakeStorage(0x1000, 256)
        view = cuda(0x1040, [4], storage=storage)
        self.tracer.label(view, "activation layer3.fc1 output")
        self.assertEqual(self.sink.calls, [
            ("mark", "racetrack:block-alloc 0x1000:256 s=0x10"),
            ("mark", "racetrack:label 0x1000:256 activation layer3.fc1 output"),
        ])
        self.sink.calls.clear()
        self.tracer.label(cpu(0x8000, pinned=True), "offload buffer 3")
        self.assertEqual(self.sink.calls, [("mark", "racetrack:label 0x8000:16 offload buffer 3")])

    def test_empty_label_is_an_error(self):
        with self.assertRaises(ValueError):
            self.tracer.label(cuda(0x1000), "  ")
        self.assertEqual(self.sink.calls, [])


if __name__ == "__main__":
    unittest.main()
