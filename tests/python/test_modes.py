import unittest

from fakes import FakeOp, parse_schema
from racetrack_torch.modes import READ, READ_WRITE, WRITE, PlanCache, plan_operator, tensor_kind

ADD = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
ADD_ = "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"
ADD_OUT = "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"
VIEW = "view(Tensor(a) self, SymInt[] size) -> Tensor(a)"
COPY_ = "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)"
CAT = "cat(Tensor[] tensors, int dim=0) -> Tensor"
FOREACH_ADD_ = "_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()"


def accesses(entries):
    return [(access.name, access.mode, access.is_list) for access in entries]


class TensorKindTest(unittest.TestCase):
    def test_schema_and_torch_spellings(self):
        for text in ("Tensor", "Tensor(a!)", "Tensor(a)", "Tensor?", "Optional[Tensor]"):
            self.assertEqual(tensor_kind(text), "tensor", text)
        for text in ("Tensor[]", "Tensor(a!)[]", "Tensor?[]", "List[Tensor]", "List[Optional[Tensor]]"):
            self.assertEqual(tensor_kind(text), "list", text)
        for text in ("Scalar", "int", "SymInt[]", "bool", "ScalarType?", "Generator?"):
            self.assertIsNone(tensor_kind(text), text)


class PlanTest(unittest.TestCase):
    def plan(self, text):
        return plan_operator(parse_schema(text))

    def test_functional_op_reads_inputs_and_writes_a_fresh_output(self):
        plan = self.plan(ADD)
        self.assertEqual(plan.name, "aten::add.Tensor")
        self.assertEqual(accesses(plan.before), [("self", READ, False), ("other", READ, False)])
        self.assertEqual(plan.after, ())
        self.assertEqual(plan.fresh_returns, ((0, False),))
        self.assertTrue(plan.writes_fresh)
        self.assertFalse(plan.pure_view)
        self.assertTrue(plan.single_return)

    def test_in_place_op_reads_and_writes_self_and_returns_a_view(self):
        plan = self.plan(ADD_)
        self.assertEqual(plan.name, "aten::add_.Tensor")
        self.assertEqual(accesses(plan.before), [("self", READ_WRITE, False), ("other", READ, False)])
        self.assertEqual(plan.fresh_returns, ())
        self.assertFalse(plan.pure_view)

    def test_out_argument_is_written_and_read_after_the_call(self):
        plan = self.plan(ADD_OUT)
        self.assertEqual(accesses(plan.before), [("self", READ, False), ("other", READ, False)])
        self.assertEqual(accesses(plan.after), [("out", WRITE, False)])
        self.assertEqual(plan.after[0].position, 3)
        self.assertEqual(plan.fresh_returns, ())

    def test_view_is_pure(self):
        plan = self.plan(VIEW)
        self.assertTrue(plan.pure_view)
        self.assertEqual(plan.fresh_returns, ())

    def test_copy_writes_self_and_reads_src(self):
        plan = self.plan(COPY_)
        self.assertEqual(accesses(plan.before), [("self", READ_WRITE, False), ("src", READ, False)])
        self.assertFalse(plan.pure_view)

    def test_tensor_lists(self):
        plan = self.plan(CAT)
        self.assertEqual(accesses(plan.before), [("tensors", READ, True)])
        self.assertEqual(plan.fresh_returns, ((0, False),))

        plan = self.plan(FOREACH_ADD_)
        self.assertEqual(accesses(plan.before), [("self", READ_WRITE, True), ("other", READ, True)])
        self.assertEqual(plan.fresh_returns, ())
        self.assertFalse(plan.single_return)
        self.assertFalse(plan.pure_view)

    def test_optional_tensor_list_and_multiple_fresh_returns(self):
        plan = self.plan("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor")
        self.assertEqual(accesses(plan.before), [("self", READ, False), ("indices", READ, True)])
        plan = self.plan("max.dim(Tensor self, int dim, bool keepdim=False) "
                         "-> (Tensor values, Tensor indices)")
        self.assertEqual(plan.fresh_returns, ((0, False), (1, False)))
        self.assertFalse(plan.single_return)
        plan = self.plan("split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) "
                         "-> Tensor(a)[]")
        self.assertTrue(plan.pure_view)

    def test_empty_leaves_its_output_unwritten(self):
        plan = self.plan("empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, "
                         "Layout? layout=None, Device? device=None, bool? pin_memory=None, "
                         "MemoryFormat? memory_format=None) -> Tensor")
        self.assertEqual(plan.before, ())
        self.assertEqual(plan.fresh_returns, ((0, False),))
        self.assertFalse(plan.writes_fresh)
        self.assertTrue(self.plan("zeros(SymInt[] size, *, Device? device=None) -> Tensor").writes_fresh)

    def test_resize_reports_self_again_after_the_call(self):
        plan = self.plan("resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) "
                         "-> Tensor(a!)")
        self.assertEqual(accesses(plan.before), [("self", READ_WRITE, False)])
        self.assertEqual(accesses(plan.after), [("self", WRITE, False)])


class PlanCacheTest(unittest.TestCase):
    def test_plans_once_per_operator(self):
        reads = []

        class CountingOp:
            @property
            def _schema(self):
                reads.append(1)
                return parse_schema(ADD)

        op, other = CountingOp(), FakeOp(ADD_)
        cache = PlanCache()
        first = cache.get(op)
        self.assertIs(cache.get(op), first)
        self.assertEqual(len(reads), 1)
        self.assertEqual(cache.get(other).name, "aten::add_.Tensor")


if __name__ == "__main__":
    unittest.main()
