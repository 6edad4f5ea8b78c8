import unittest

from fakes import FakeTensor
from racetrack_torch.extents import AccessItems, format_item, merge_spans, tensor_span, view_span

BASE = 0x7F0000000000


class ViewSpanTest(unittest.TestCase):
    def test_contiguous(self):
        self.assertEqual(view_span(BASE, [2, 3], [3, 1], 4), (BASE, BASE + 24))

    def test_transposed_covers_the_same_bytes(self):
        self.assertEqual(view_span(BASE, [3, 2], [1, 3], 4), (BASE, BASE + 24))

    def test_slice_with_storage_offset_and_step(self):
        # x[4::3][:2] of a float tensor: elements 4 and 7 of the storage.
        data_ptr = BASE + 4 * 4
        self.assertEqual(view_span(data_ptr, [2], [3], 4), (data_ptr, data_ptr + 16))

    def test_negative_stride_reaches_below_data_ptr(self):
        self.assertEqual(view_span(BASE + 12, [4], [-1], 4), (BASE, BASE + 16))
        self.assertEqual(view_span(BASE + 40, [2, 3], [-3, 1], 8), (BASE + 16, BASE + 64))

    def test_expanded_dimension_adds_nothing(self):
        self.assertEqual(view_span(BASE, [5, 3], [0, 1], 2), (BASE, BASE + 6))

    def test_empty_and_scalar(self):
        self.assertIsNone(view_span(BASE, [0, 3], [3, 1], 4))
        self.assertIsNone(view_span(BASE, [3, 0], [0, 1], 4))
        self.assertEqual(view_span(BASE, [], [], 8), (BASE, BASE + 8))

    def test_tensor_span_reads_the_tensor(self):
        tensor = FakeTensor(BASE + 8, [2, 2], [1, 2], element_size=2)
        self.assertEqual(tensor_span(tensor), (BASE + 8, BASE + 16))


class MergeTest(unittest.TestCase):
    def test_overlapping_and_touching_spans_join(self):
        spans = [(300, 400), (100, 200), (150, 250), (250, 260), (50, 60), (120, 130)]
        self.assertEqual(merge_spans(spans), [(50, 60), (100, 260), (300, 400)])

    def test_items_merge_per_mode_and_keep_modes_apart(self):
        items = AccessItems()
        self.assertFalse(items)
        items.add("w", (0x3000, 0x3010))
        items.add("r", (0x2000, 0x2100))
        items.add("r", (0x1000, 0x1010))
        items.add("r", (0x2080, 0x2200))
        items.add("rw", (0x2000, 0x2010))
        items.add("r", None)
        self.assertTrue(items)
        self.assertEqual(items.items(), ["r:0x1000:16", "r:0x2000:512", "rw:0x2000:16", "w:0x3000:16"])

    def test_format_item(self):
        self.assertEqual(format_item("rw", 0xABC0, 0xABC0 + 4096), "rw:0xabc0:4096")


if __name__ == "__main__":
    unittest.main()
