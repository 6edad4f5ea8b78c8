"""c10d collectives: their access modes come from collectives.py, not from
their schemas (which carry no alias annotations).

Table and tracer tests use stand-in schemas and CUDA tensors. The real-torch
tests run gloo process groups on the CPU, where each collective becomes a
`racetrack:host` mark: one process (world size 1, FileStore in a temporary
directory) for every collective the eager and functional APIs offer there,
and two processes (subprocesses with a timeout) for send/recv and all_reduce.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from datetime import timedelta

from fakes import FakeOp, FakeTensor, RecordingSink, parse_schema
from racetrack_torch import collectives
from racetrack_torch.modes import READ, READ_WRITE, WRITE, plan_operator
from racetrack_torch.tracer import OpTracer
from real_torch import Sink, torch

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "capture", "python")

GROUP = "__torch__.torch.classes.c10d.ProcessGroup process_group"
WORK = "__torch__.torch.classes.c10d.Work"
ALLREDUCE_ = (f"c10d::allreduce_(Tensor[] tensors, {GROUP}, __torch__.torch.classes.c10d.ReduceOp reduce_op, "
              f"Tensor? sparse_indices, bool async_op=True, int timeout=-1) -> (Tensor[], {WORK})")
ALLGATHER_ = (f"c10d::allgather_(Tensor[][] output_tensors, Tensor[] input_tensors, {GROUP}, "
              f"bool async_op=True, int timeout=-1) -> (Tensor[][], {WORK})")
BARRIER = f"c10d::barrier(Tensor tensor, {GROUP}, int[] device_ids, bool async_op=True, int timeout=-1) -> {WORK}"
WAIT_TENSOR = "_c10d_functional::wait_tensor(Tensor tensor) -> Tensor"
UNKNOWN = f"c10d::frobnicate_(Tensor[][] lists, Tensor other, {GROUP}) -> (Tensor[], {WORK})"


def accesses(entries):
    return [(access.name, access.mode, access.is_list) for access in entries]


def item(mode, tensor):
    return "%s:0x%x:%d" % (mode, tensor.data_ptr(), tensor.numel() * tensor.element_size())


class CollectivePlanTest(unittest.TestCase):
    def plan(self, text):
        return plan_operator(parse_schema(text))

    def test_all_reduce_reads_and_writes_its_tensors_and_returns_them(self):
        plan = self.plan(ALLREDUCE_)
        self.assertEqual(plan.name, "c10d::allreduce_")
        self.assertEqual(accesses(plan.before), [("tensors", READ_WRITE, True), ("sparse_indices", READ, False)])
        self.assertEqual(plan.after, ())
        self.assertEqual(plan.fresh_returns, ())  # the returned list is the same tensors
        self.assertFalse(plan.pure_view)

    def test_all_gather_writes_nested_outputs_and_reads_inputs(self):
        plan = self.plan(ALLGATHER_)
        self.assertEqual(accesses(plan.before), [("output_tensors", WRITE, True), ("input_tensors", READ, True)])
        self.assertEqual(plan.fresh_returns, ())

    def test_functional_out_variant_writes_out_after_the_call(self):
        plan = self.plan("_c10d_functional::all_gather_into_tensor_out(Tensor input, int group_size, "
                         "Any group_name, *, Tensor(a!) out) -> Tensor(a!)")
        self.assertEqual(accesses(plan.before), [("input", READ, False)])
        self.assertEqual(accesses(plan.after), [("out", WRITE, False)])
        self.assertEqual(plan.fresh_returns, ())

    def test_barrier_and_wait_touch_nothing(self):
        self.assertEqual(self.plan(BARRIER).before, ())
        wait = self.plan(WAIT_TENSOR)
        self.assertEqual((wait.before, wait.after, wait.fresh_returns), ((), (), ()))

    def test_an_unknown_collective_reads_and_writes_every_tensor(self):
        plan = self.plan(UNKNOWN)
        self.assertEqual(accesses(plan.before), [("lists", READ_WRITE, True), ("other", READ_WRITE, False)])
        self.assertEqual(plan.fresh_returns, ((0, True),))  # written, in case they are new
        self.assertIsNone(collectives.lookup("aten::add_"))

    @unittest.skipIf(torch is None, "PyTorch is not installed")
    def test_the_table_names_every_tensor_argument_of_the_real_schemas(self):
        import torch.distributed  # noqa: F401  registers the c10d operators
        import torch.distributed._functional_collectives  # noqa: F401  and the functional ones

        from racetrack_torch.modes import tensor_kind

        for name, collective in collectives._TABLE.items():
            namespace, _, op = name.partition("::")
            schema = getattr(getattr(torch.ops, namespace), op).default._schema
            tensors = {argument.name for argument in schema.arguments if tensor_kind(argument.type)}
            self.assertEqual(set(collective.modes), tensors, name)
            returns_tensors = any(tensor_kind(returned.type) for returned in schema.returns)
            self.assertTrue(returns_tensors or not collective.fresh_returns, name)


class CollectiveTracerTest(unittest.TestCase):
    """On CUDA the collective's range carries its accesses, for the NCCL kernel it launches."""

    def setUp(self):
        self.sink = RecordingSink()
        self.tracer = OpTracer(self.sink, FakeTensor, lambda device_index: 0x10)

    def test_all_gather_range_names_the_collective_and_its_accesses(self):
        first, second, source = FakeTensor(0x3000, [4]), FakeTensor(0x4000, [4]), FakeTensor(0x1000, [4])
        op = FakeOp(ALLGATHER_, lambda outputs, inputs, *rest: (outputs, "work"))
        self.tracer.run(op, ([[first, second]], [source], "group", True), {})
        pushes = [message for kind, message in self.sink.calls if kind == "push"]
        self.assertEqual(pushes, ["racetrack:op c10d::allgather_ s=0x10 r:0x1000:16 w:0x3000:16 w:0x4000:16"])
        self.assertNotIn("op-out", " ".join(message for _, message in self.sink.calls if message))

    def test_all_reduce_returns_add_no_write(self):
        tensor = FakeTensor(0x1000, [4])
        op = FakeOp(ALLREDUCE_, lambda tensors, *rest: (tensors, "work"))
        self.tracer.run(op, ([tensor], "group", "sum", None, False), {})
        pushes = [message for kind, message in self.sink.calls if kind == "push"]
        self.assertEqual(pushes, ["racetrack:op c10d::allreduce_ s=0x10 rw:0x1000:16"])
        self.assertNotIn("op-out", " ".join(message for _, message in self.sink.calls if message))


def _gloo_environment():
    """gloo binds to the host name's address unless told otherwise: loopback is always there."""
    if sys.platform.startswith("linux") and "GLOO_SOCKET_IFNAME" not in os.environ:
        return {"GLOO_SOCKET_IFNAME": "lo"}
    return {}


@unittest.skipIf(torch is None, "PyTorch is not installed")
class SingleProcessGlooTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import torch.distributed as dist

        if not dist.is_available() or not dist.is_gloo_available():
            raise unittest.SkipTest("this torch has no gloo backend")
        cls.dist = dist
        cls.directory = tempfile.mkdtemp(prefix="racetrack-c10d-")
        cls.saved_environment = {name: os.environ.get(name) for name in _gloo_environment()}
        os.environ.update(_gloo_environment())
        store = dist.FileStore(os.path.join(cls.directory, "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1, timeout=timedelta(seconds=20))

    @classmethod
    def tearDownClass(cls):
        cls.dist.destroy_process_group()
        for name, value in cls.saved_environment.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(cls.directory, ignore_errors=True)

    def setUp(self):
        import racetrack_torch

        self.racetrack_torch = racetrack_torch
        racetrack_torch.enable()
        self.sink = Sink()
        tracer = racetrack_torch._tracer
        tracer._sink = self.sink
        self.ops = []  # operators the tracer was handed, by schema name

        def run(func, args, kwargs, original=tracer.run):
            self.ops.append(func._schema.name)
            return original(func, args, kwargs)

        tracer.run = run  # the dispatch mode calls tracer.run
        self.addCleanup(vars(tracer).pop, "run")

    def tearDown(self):
        self.racetrack_torch.disable()

    def traced(self, call):
        """(host marks, result) of call(); self.ops: the operators it ran."""
        del self.sink.calls[:]
        del self.ops[:]
        result = call()
        return [m for kind, m in self.sink.calls if kind == "mark" and m.startswith("racetrack:host")], result

    def test_all_reduce_reads_and_writes_the_exact_bytes(self):
        base = torch.arange(8, dtype=torch.float32)
        tensor = base[2:6]  # a slice: 16 bytes at base + 8
        marks, _ = self.traced(lambda: self.dist.all_reduce(tensor))
        self.assertEqual(self.ops, ["c10d::allreduce_"])
        self.assertEqual(marks, ["racetrack:host rw:0x%x:16" % (base.data_ptr() + 8)])
        self.assertEqual(tensor.tolist(), [2.0, 3.0, 4.0, 5.0])  # the sum over one rank

    def test_async_all_reduce_then_wait(self):
        tensor = torch.ones(4)
        marks, work = self.traced(lambda: self.dist.all_reduce(tensor, async_op=True))
        self.assertEqual(marks, ["racetrack:host " + item("rw", tensor)])
        del self.sink.calls[:]
        work.wait()  # not an operator: on CUDA the trace has its cudaStreamWaitEvent
        self.assertEqual(self.sink.calls, [])
        self.assertEqual(tensor.tolist(), [1.0] * 4)

    def test_all_gather_writes_outputs_and_reads_the_input(self):
        source, output = torch.ones(4), torch.zeros(4)
        marks, _ = self.traced(lambda: self.dist.all_gather([output], source))  # Tensor[][] outputs
        self.assertEqual(self.ops, ["c10d::allgather_"])
        self.assertEqual(marks, ["racetrack:host %s %s" % (item("r", source), item("w", output))])
        self.assertEqual(output.tolist(), [1.0] * 4)

    def test_all_gather_into_tensor(self):
        source, output = torch.ones(4), torch.zeros(4)
        marks, _ = self.traced(lambda: self.dist.all_gather_into_tensor(output, source))
        self.assertEqual(self.ops, ["c10d::_allgather_base_"])
        self.assertEqual(marks, ["racetrack:host %s %s" % (item("r", source), item("w", output))])

    def test_reduce_scatter_tensor(self):
        source, output = torch.ones(4), torch.zeros(4)
        marks, _ = self.traced(lambda: self.dist.reduce_scatter_tensor(output, source))
        # gloo reduces into a temporary and copies it into output when the
        # work is waited for (aten::split, aten::copy_: traced as usual).
        self.assertEqual(self.ops[0], "c10d::_reduce_scatter_base_")
        self.assertEqual(marks[0], "racetrack:host %s %s" % (item("r", source), item("w", output)))
        self.assertEqual(output.tolist(), [1.0] * 4)

    def test_broadcast_reads_and_writes(self):
        tensor = torch.ones(4)
        marks, _ = self.traced(lambda: self.dist.broadcast(tensor, src=0))
        self.assertEqual(self.ops, ["c10d::broadcast_"])
        self.assertEqual(marks, ["racetrack:host " + item("rw", tensor)])

    def test_barrier_touches_nothing(self):
        marks, _ = self.traced(self.dist.barrier)
        self.assertIn("c10d::barrier", self.ops)
        self.assertEqual(marks, [])

    def test_functional_all_reduce_writes_a_fresh_result_and_the_wait_touches_nothing(self):
        import torch.distributed._functional_collectives as functional

        source = torch.ones(4)
        marks, result = self.traced(lambda: functional.wait_tensor(
            functional.all_reduce(source, "sum", self.dist.group.WORLD)))
        self.assertEqual(self.ops[0], "_c10d_functional::all_reduce")
        self.assertIn("_c10d_functional::wait_tensor", self.ops)
        self.assertEqual(marks, ["racetrack:host %s %s" % (item("r", source), item("w", result))])
        self.assertNotEqual(result.data_ptr(), source.data_ptr())
        self.assertEqual(result.tolist(), [1.0] * 4)

    def test_an_operator_on_a_functional_result_reads_the_bytes_it_wraps(self):
        import torch.distributed._functional_collectives as functional

        wrapped = functional.all_reduce(torch.ones(4), "sum", self.dist.group.WORLD)
        self.assertEqual(type(wrapped).__name__, "AsyncCollectiveTensor")
        self.assertEqual(wrapped.data_ptr(), 0)  # a wrapper: the bytes are its .elem's
        marks, total = self.traced(lambda: wrapped + 1)
        self.assertEqual(marks, ["racetrack:host %s %s" % (item("r", wrapped.elem), item("w", total))])
        self.assertEqual(total.tolist(), [2.0] * 4)


# One rank of the two-process test: prints what it traced as JSON.
RANK_SCRIPT = r"""
import json, os, sys
from datetime import timedelta
import torch, torch.distributed as dist
import racetrack_torch

rank = int(sys.argv[2])
dist.init_process_group("gloo", store=dist.FileStore(sys.argv[1], 2), rank=rank, world_size=2,
                        timeout=timedelta(seconds=20))
racetrack_torch.enable()
marks = []
class Sink:
    def range_push(self, message): marks.append(message)
    def range_pop(self): pass
    def mark(self, message): marks.append(message)
racetrack_torch._tracer._sink = Sink()

buffer = torch.arange(4, dtype=torch.float32) if rank == 0 else torch.zeros(4)
del marks[:]
if rank == 0:
    dist.send(buffer, dst=1)
else:
    dist.recv(buffer, src=0)
point_to_point = list(marks)

summed = torch.full((4,), float(rank + 1))
del marks[:]
dist.all_reduce(summed)
all_reduce = list(marks)
racetrack_torch.disable()
dist.destroy_process_group()
print(json.dumps({"point_to_point": point_to_point, "all_reduce": all_reduce,
                  "buffer": [buffer.data_ptr(), buffer.tolist()], "summed": [summed.data_ptr(), summed.tolist()]}),
      flush=True)
# Leave without the interpreter's teardown, where 4 of about 870 two-rank
# runs (on two busy cores) aborted after printing all of the above. The core
# dump: gloo's worker thread, still freeing the finished all_reduce's work
# while Python finalizes, drops a tensor's Python object, so it takes the GIL,
# is ended by pthread_exit and dies in a noexcept destructor (as described in
# pytorch/pytorch#179291).
os._exit(0)
"""


@unittest.skipIf(torch is None, "PyTorch is not installed")
class TwoProcessGlooTest(unittest.TestCase):
    TIMEOUT = 40  # seconds for both ranks; gloo's own timeout is 20

    def setUp(self):
        import torch.distributed as dist

        if not dist.is_available() or not dist.is_gloo_available():
            self.skipTest("this torch has no gloo backend")
        self.directory = tempfile.mkdtemp(prefix="racetrack-c10d-")
        self.addCleanup(shutil.rmtree, self.directory, True)

    def run_ranks(self):
        store = os.path.join(self.directory, "store")
        path = os.pathsep.join(filter(None, [PACKAGE, HERE, os.environ.get("PYTHONPATH")]))
        env = dict(os.environ, PYTHONPATH=path, PYTHONDONTWRITEBYTECODE="1", **_gloo_environment())
        env.pop("RACETRACK_TORCH", None)  # tracing is enabled by the script itself
        ranks = [subprocess.Popen([sys.executable, "-c", RANK_SCRIPT, store, str(rank)], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for rank in range(2)]
        results, deadline = [], time.monotonic() + self.TIMEOUT
        try:
            for process in ranks:
                stdout, stderr = process.communicate(timeout=max(1.0, deadline - time.monotonic()))
                self.assertEqual(process.returncode, 0, stderr)
                results.append(json.loads(stdout.strip().splitlines()[-1]))
        finally:
            for process in ranks:
                if process.poll() is None:
                    process.kill()
                    process.communicate()
        return results

    def test_send_reads_recv_writes_and_all_reduce_reads_and_writes_on_each_rank(self):
        sender, receiver = self.run_ranks()
        address, values = sender["buffer"]
        self.assertEqual(sender["point_to_point"], ["racetrack:host r:0x%x:16" % address])
        self.assertEqual(values, [0.0, 1.0, 2.0, 3.0])  # sent, unchanged
        address, values = receiver["buffer"]
        self.assertEqual(receiver["point_to_point"], ["racetrack:host w:0x%x:16" % address])
        self.assertEqual(values, [0.0, 1.0, 2.0, 3.0])  # received from rank 0
        for rank in (sender, receiver):
            address, values = rank["summed"]
            self.assertEqual(rank["all_reduce"], ["racetrack:host rw:0x%x:16" % address])
            self.assertEqual(values, [3.0] * 4)  # 1 + 2


if __name__ == "__main__":
    unittest.main()
