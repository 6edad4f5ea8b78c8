"""What PyTorch's c10d collectives read and write, by argument.

Their schemas carry no alias annotations: ``c10d::allreduce_(Tensor[]
tensors, ...) -> (Tensor[], Work)`` says nothing of the buffer being reduced
in place, and its returned list is the same tensors, not new ones. So these
operators take their modes from this table instead of from the schema.

An entry names each tensor argument (as in the torch 2.15 schemas) with its
mode, or None when the operator does not touch its bytes (a barrier's dummy
tensor, the tensor a wait waits for). A tensor argument missing from an entry
(a schema that changed) is read and written, and so is every tensor argument
of an operator in a collective namespace that the table does not know: never
call read-only what may be written.

``fresh_returns``: the tensor results are new tensors the collective wrote
(the functional collectives). Otherwise they alias the arguments (the
in-place c10d operators return their inputs) and add no access.
"""

from collections import namedtuple

# The modes of modes.py (which imports this module, so they are not imported here).
READ, WRITE, READ_WRITE = "r", "w", "rw"
NONE = None  # the operator does not touch this tensor's bytes

Collective = namedtuple("Collective", "modes fresh_returns")

# Operator namespaces whose operators are all collectives (or their helpers).
NAMESPACES = frozenset({"c10d", "_c10d_functional", "_c10d_functional_autograd", "c10d_functional"})

_IN_PLACE = {
    # c10d: what torch.distributed's eager API calls; tensors are the user's buffers.
    "c10d::allreduce_": {"tensors": READ_WRITE, "sparse_indices": READ},
    "c10d::allreduce_coalesced_": {"tensors": READ_WRITE},
    "c10d::allgather_": {"output_tensors": WRITE, "input_tensors": READ},
    "c10d::allgather_coalesced_": {"output_lists": WRITE, "input_list": READ},
    "c10d::_allgather_base_": {"output_tensor": WRITE, "input_tensor": READ},
    "c10d::allgather_into_tensor_coalesced_": {"outputs": WRITE, "inputs": READ},
    "c10d::reduce_scatter_": {"output_tensors": WRITE, "input_tensors": READ},
    "c10d::_reduce_scatter_base_": {"output_tensor": WRITE, "input_tensor": READ},
    "c10d::reduce_scatter_tensor_coalesced_": {"outputs": WRITE, "inputs": READ},
    # The root reads, the others write: one mode for every rank.
    "c10d::broadcast_": {"tensors": READ_WRITE},
    # The root's tensor receives the result, the others' are sent.
    "c10d::reduce_": {"tensors": READ_WRITE},
    "c10d::alltoall_": {"output_tensors": WRITE, "input_tensors": READ},
    "c10d::alltoall_base_": {"output": WRITE, "input": READ},
    # Only the root's output (gather) or input (scatter) lists are filled.
    "c10d::gather_": {"output_tensors": WRITE, "input_tensors": READ},
    "c10d::gather_into_tensor_": {"output_tensor": WRITE, "input_tensor": READ},
    "c10d::scatter_": {"output_tensors": WRITE, "input_tensors": READ},
    "c10d::send": {"tensors": READ},
    "c10d::recv_": {"tensors": WRITE},
    "c10d::recv_any_source_": {"tensors": WRITE},
    # Barriers synchronise; their tensor is a placeholder for the device.
    "c10d::barrier": {"tensor": NONE},
    "c10d::monitored_barrier_": {"tensor": NONE},
    "c10d::check_for_nan": {"tensor": READ},
    # Functional collectives writing their arguments; results alias them.
    "_c10d_functional::all_reduce_": {"input": READ_WRITE},
    "_c10d_functional::all_reduce_coalesced_": {"inputs": READ_WRITE},
    "_c10d_functional::broadcast_": {"input": READ_WRITE},
    "_c10d_functional::all_gather_into_tensor_out": {"input": READ, "out": WRITE},
    "_c10d_functional::reduce_scatter_tensor_out": {"input": READ, "out": WRITE},
    "_c10d_functional::isend": {"tensor": READ},
    "_c10d_functional::irecv": {"tensor": WRITE},
    # Sends read and receives write, per op_list entry: rw covers both.
    "_c10d_functional::batch_p2p_ops": {"tensors": READ_WRITE},
    # Waits and wrappers: ordering only (on CUDA the wait is a
    # cudaStreamWaitEvent the capturer sees), the result is the argument.
    "_c10d_functional::wait_tensor": {"tensor": NONE},
    "_c10d_functional::wait_tensors": {"tensors": NONE},
    "_c10d_functional::_wrap_tensor_autograd": {"input": NONE},
}

_FRESH = {
    # Functional collectives: read the input, write a new result.
    "all_reduce": {"input": READ},
    "all_reduce_coalesced": {"inputs": READ},
    "all_gather_into_tensor": {"input": READ},
    "all_gather_into_tensor_coalesced": {"inputs": READ},
    "reduce_scatter_tensor": {"input": READ},
    "reduce_scatter_tensor_coalesced": {"inputs": READ},
    "all_to_all_single": {"input": READ},
    "broadcast": {"input": READ},
}

_TABLE = {name: Collective(modes, False) for name, modes in _IN_PLACE.items()}
for _name, _modes in _FRESH.items():
    _TABLE["_c10d_functional::" + _name] = Collective(_modes, True)
for _name in ("all_gather_into_tensor", "all_to_all_single", "reduce_scatter_tensor"):
    _TABLE["_c10d_functional_autograd::" + _name] = Collective(_FRESH[_name], True)

# A collective the table does not know: every tensor argument read and
# written; its tensor results written too in case they are new.
_UNKNOWN = Collective({}, True)


def lookup(name):
    """The Collective for an operator name without overload ("c10d::allreduce_"),
    or None when the operator is not a collective."""
    entry = _TABLE.get(name)
    if entry is None and name.partition("::")[0] in NAMESPACES:
        return _UNKNOWN
    return entry


def argument_mode(collective, name):
    """The mode of a tensor argument, None when its bytes are not touched."""
    return collective.modes.get(name, READ_WRITE)
