"""The text of the NVTX ranges and marks the capturer reads (docs: capture/python/README.md).

Every message starts with "racetrack:"; an access item is
"<r|w|rw|u>:0x<address>:<decimal bytes>" (see extents.format_item).
"""

PREFIX = "racetrack:"
STACK_SEPARATOR = " <- "


def _stream(stream):
    return f"s=0x{stream:x}"


def op_range(name, stream, items):
    """Range pushed around an operator; stream is None for a CPU operator."""
    parts = [PREFIX + "op", name]
    if stream is not None:
        parts.append(_stream(stream))
    parts.extend(items)
    return " ".join(parts)


def op_out(items):
    """Mark inside the op range: accesses known only after the operator returned."""
    return " ".join([PREFIX + "op-out", *items])


def stack(frames):
    """Mark inside the op range: the Python stack, innermost user frame first."""
    return PREFIX + "stack " + STACK_SEPARATOR.join(frames)


def host(items):
    """Mark outside any op range: the host touches these bytes now."""
    return " ".join([PREFIX + "host", *items])


def block_alloc(address, size, stream):
    """Mark: a caching-allocator block became live on a stream."""
    return f"{PREFIX}block-alloc 0x{address:x}:{size} {_stream(stream)}"


def block_free(address, size, stream):
    """Mark: a caching-allocator block was freed."""
    return f"{PREFIX}block-free 0x{address:x}:{size} {_stream(stream)}"


def label(address, size, text):
    """Mark naming a block; whitespace runs (newlines too) become single spaces."""
    name = " ".join(str(text).split())
    if not name:
        raise ValueError("racetrack label text is empty")
    return f"{PREFIX}label 0x{address:x}:{size} {name}"


def _agent(agent):
    name = str(agent)
    if not name or any(c.isspace() for c in name):
        raise ValueError(f"racetrack external agent name {agent!r} must be one word")
    return name


def external(agent, items, event=None):
    """Mark: an agent outside CUDA streams (RDMA, another process) accesses
    these bytes; they are complete at the next record of `event` (a
    cudaEvent_t handle), else at external_done(agent)."""
    if not items:
        raise ValueError("racetrack external access needs at least one access item")
    parts = [PREFIX + "external", _agent(agent), *items]
    if event:
        parts.append(f"e=0x{event:x}")
    return " ".join(parts)


def external_done(agent):
    """Mark: the host saw `agent` finish its accesses."""
    return f"{PREFIX}external-done {_agent(agent)}"
