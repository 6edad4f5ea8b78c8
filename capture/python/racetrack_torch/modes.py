"""Which tensors an ATen operator reads and writes, read from its schema.

An argument annotated as written (``Tensor(a!)``) is written: in place
(``add_``, ``copy_``: read and written) or as an ``out=`` argument (keyword
only: written, with extents known only after the call). Other tensor
arguments are read. A return that aliases an input (``Tensor(a)``,
``Tensor(a!)``) is a view and adds no access; any other tensor return is a
fresh output, written by the operator. Collectives (c10d), whose schemas
carry no alias annotations, take their modes from collectives.py instead.

The plan for an operator is built once and cached per operator overload, so
the per-call path does no string work.
"""

import re
from collections import namedtuple

from . import collectives

READ = "r"
WRITE = "w"
READ_WRITE = "rw"

# Type spellings of tensor arguments, in schema text ("Tensor?[]") and as
# torch prints argument types ("List[Optional[Tensor]]"), alias marks removed.
# A "list" may be nested (c10d's Tensor[][]): the tracer flattens it.
_TENSOR_TYPES = frozenset({
    "Tensor", "Tensor?", "Optional[Tensor]",
})
_TENSOR_LIST_TYPES = frozenset({
    "Tensor[]", "Tensor?[]", "Tensor[]?", "List[Tensor]", "List[Optional[Tensor]]",
    "Optional[List[Tensor]]", "Tensor[][]", "List[List[Tensor]]",
})
_ALIAS_MARK = re.compile(r"\([^)]*\)")

# Operators whose fresh outputs hold uninitialised memory: nothing writes them.
_UNINITIALISED_OUTPUTS = frozenset({
    "aten::empty", "aten::empty_like", "aten::empty_strided", "aten::empty_permuted",
    "aten::new_empty", "aten::new_empty_strided",
})
# Operators that may give a written argument new storage: its extent after the
# call is reported too.
_REALLOCATING = frozenset({"aten::resize_", "aten::resize_as_", "aten::set_"})

# One tensor argument the operator accesses: where to find it in the call and how.
ArgumentAccess = namedtuple("ArgumentAccess", "position name mode is_list")

# What an operator does to memory, per its schema.
#   name            "aten::add_.Tensor"
#   before          accesses whose extents are known before the call (r, rw)
#   after           written arguments whose extents are read after the call
#                   (out= arguments, reallocated arguments)
#   fresh_returns   (index, is_list) of returns that are new tensors
#   writes_fresh    False when fresh outputs are left uninitialised
#   pure_view       only makes views: launches no kernel, touches no memory
#   single_return   the operator returns one value, not a tuple
OpPlan = namedtuple("OpPlan", "name before after fresh_returns writes_fresh pure_view single_return")


def tensor_kind(type_text):
    """'tensor', 'list' or None for an argument or return type."""
    normalised = _ALIAS_MARK.sub("", str(type_text)).replace(" ", "")
    if normalised in _TENSOR_TYPES:
        return "tensor"
    if normalised in _TENSOR_LIST_TYPES:
        return "list"
    return None


def _is_write(argument):
    alias = getattr(argument, "alias_info", None)
    return alias is not None and bool(getattr(alias, "is_write", False))


def operator_name(schema):
    """The operator's name with its overload, e.g. "aten::add_.Tensor"."""
    overload = getattr(schema, "overload_name", "")
    return f"{schema.name}.{overload}" if overload else schema.name


def plan_operator(schema):
    """The OpPlan of an operator schema (objects shaped like torch.FunctionSchema)."""
    name = operator_name(schema)
    base_name = schema.name
    collective = collectives.lookup(base_name)
    before, after = [], []
    for position, argument in enumerate(schema.arguments):
        kind = tensor_kind(argument.type)
        if kind is None:
            continue
        is_list = kind == "list"
        kwarg_only = bool(getattr(argument, "kwarg_only", False))
        if collective is not None:
            mode = collectives.argument_mode(collective, argument.name)
            if mode is None:
                continue  # not touched (a barrier's placeholder, a wait's tensor)
            # out= tensors are found after the call, as below; the rest before it.
            target = after if mode == WRITE and kwarg_only else before
            target.append(ArgumentAccess(position, argument.name, mode, is_list))
        elif not _is_write(argument):
            before.append(ArgumentAccess(position, argument.name, READ, is_list))
        elif kwarg_only:
            after.append(ArgumentAccess(position, argument.name, WRITE, is_list))
        else:
            before.append(ArgumentAccess(position, argument.name, READ_WRITE, is_list))
            if base_name in _REALLOCATING:
                after.append(ArgumentAccess(position, argument.name, WRITE, is_list))

    fresh_returns, view_returns = [], 0
    for index, returned in enumerate(schema.returns):
        kind = tensor_kind(returned.type)
        if kind is None:
            continue
        if collective is not None:
            aliases = not collective.fresh_returns  # unannotated: the table says
        else:
            aliases = getattr(returned, "alias_info", None) is not None
        if aliases:
            view_returns += 1
        else:
            fresh_returns.append((index, kind == "list"))

    writes_anything = any(access.mode != READ for access in before) or bool(after)
    pure_view = view_returns > 0 and not fresh_returns and not writes_anything
    return OpPlan(name, tuple(before), tuple(after), tuple(fresh_returns),
                  base_name not in _UNINITIALISED_OUTPUTS, pure_view, len(schema.returns) == 1)


class PlanCache:
    """OpPlans keyed by operator overload (anything hashable with a ``_schema``)."""

    def __init__(self):
        self._plans = {}

    def get(self, func):
        plan = self._plans.get(func)
        if plan is None:
            plan = plan_operator(func._schema)
            self._plans[func] = plan
        return plan
