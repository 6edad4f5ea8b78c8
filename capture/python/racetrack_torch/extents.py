"""Byte extents of tensor views and the access items that carry them.

A strided view touches bytes between its lowest and highest element:
[data_ptr + min_offset * element_size, data_ptr + (max_offset + 1) * element_size),
where a negative stride lowers the minimum and a size-0 dimension means the
view has no elements at all. Expanded (stride-0) dimensions add nothing.
"""

from .modes import READ, READ_WRITE, WRITE

# Items are written mode by mode in this order, each mode by address.
_MODE_ORDER = (READ, READ_WRITE, WRITE)


def view_span(data_ptr, sizes, strides, element_size):
    """(start, end) of the bytes a strided view can touch, or None when empty."""
    low = high = 0
    for size, stride in zip(sizes, strides):
        if size == 0:
            return None
        reach = (size - 1) * stride
        if reach < 0:
            low += reach
        else:
            high += reach
    return (data_ptr + low * element_size, data_ptr + (high + 1) * element_size)


def tensor_span(tensor):
    """view_span of a tensor (anything with torch.Tensor's data_ptr/size/stride/element_size)."""
    return view_span(tensor.data_ptr(), tensor.size(), tensor.stride(), tensor.element_size())


def merge_spans(spans):
    """Sorted spans with overlapping or touching ones joined."""
    if len(spans) == 1:  # the common case: one tensor per mode
        return spans
    merged = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1][1] = end
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


def format_item(mode, start, end):
    """One access item: "<mode>:0x<address>:<bytes>"."""
    return f"{mode}:0x{start:x}:{end - start}"


class AccessItems:
    """Accesses of one operator, merged per mode and formatted as items."""

    __slots__ = ("_spans",)

    def __init__(self):
        self._spans = {}

    def add(self, mode, span):
        if span is not None:
            self._spans.setdefault(mode, []).append(span)

    def __bool__(self):
        return bool(self._spans)

    def items(self):
        out = []
        for mode in _MODE_ORDER:
            spans = self._spans.get(mode)
            if spans:
                out.extend(format_item(mode, start, end) for start, end in merge_spans(spans))
        return out
