import unittest

from racetrack_torch import messages


class MessagesTest(unittest.TestCase):
    def test_op_range(self):
        self.assertEqual(messages.op_range("aten::add_.Tensor", 0x7F00AB, ["rw:0x1000:16", "r:0x2000:8"]),
                         "racetrack:op aten::add_.Tensor s=0x7f00ab rw:0x1000:16 r:0x2000:8")
        self.assertEqual(messages.op_range("aten::empty.memory_format", 0, []),
                         "racetrack:op aten::empty.memory_format s=0x0")
        self.assertEqual(messages.op_range("aten::mul.Tensor", None, ["r:0x10:4"]),
                         "racetrack:op aten::mul.Tensor r:0x10:4")

    def test_op_out_and_host(self):
        self.assertEqual(messages.op_out(["w:0x3000:64", "w:0x4000:4"]),
                         "racetrack:op-out w:0x3000:64 w:0x4000:4")
        self.assertEqual(messages.host(["r:0x5000:8"]), "racetrack:host r:0x5000:8")

    def test_stack(self):
        self.assertEqual(messages.stack(["train.py:42 step", "train.py:90 main"]),
                         "racetrack:stack train.py:42 step <- train.py:90 main")

    def test_blocks(self):
        self.assertEqual(messages.block_alloc(0x7F0000200000, 1024, 0x55AA),
                         "racetrack:block-alloc 0x7f0000200000:1024 s=0x55aa")
        self.assertEqual(messages.block_free(0x7F0000200000, 1024, 0),
                         "racetrack:block-free 0x7f0000200000:1024 s=0x0")

    def test_external_access_and_done(self):
        self.assertEqual(messages.external("nixl_rdma", ["w:0x1000:64"], 0xAB),
                         "racetrack:external nixl_rdma w:0x1000:64 e=0xab")
        self.assertEqual(messages.external("writer", ["r:0x2000:8"]), "racetrack:external writer r:0x2000:8")
        self.assertEqual(messages.external_done("nixl_rdma"), "racetrack:external-done nixl_rdma")
        with self.assertRaises(ValueError):
            messages.external("two words", ["w:0x1000:64"])
        with self.assertRaises(ValueError):
            messages.external("nic", [])

    def test_label_collapses_whitespace_and_rejects_empty_text(self):
        self.assertEqual(messages.label(0x1000, 512, "  activation layer3.fc1\noutput "),
                         "racetrack:label 0x1000:512 activation layer3.fc1 output")
        with self.assertRaises(ValueError):
            messages.label(0x1000, 512, " \n ")


if __name__ == "__main__":
    unittest.main()
