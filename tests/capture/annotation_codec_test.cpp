// The racetrack annotation grammar: what annotate.h writes parses back, other
// NVTX text is not an annotation, and every malformed item is named.
#include "annotation_codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>

namespace racetrack::capture {
namespace {

using ::testing::HasSubstr;

ParsedAnnotation parse_ok(std::string_view text) {
  auto parsed = parse_annotation(text);
  EXPECT_TRUE(parsed.ok()) << text << ": " << (parsed.ok() ? "" : parsed.error().message);
  if (!parsed || !*parsed) {
    ADD_FAILURE() << text << " is not an annotation";
    return {};
  }
  return **parsed;
}

std::string parse_error(std::string_view text) {
  auto parsed = parse_annotation(text);
  EXPECT_FALSE(parsed.ok()) << text << " parsed";
  return parsed.ok() ? "" : parsed.error().message;
}

TEST(AnnotationCodec, OtherTextIsNoAnnotation) {
  for (std::string_view text :
       {"forward", "", "racetrack", "Racetrack:kernel r:0x10:4", " racetrack:kernel r:0x10:4"}) {
    auto parsed = parse_annotation(text);
    ASSERT_TRUE(parsed.ok()) << text;
    EXPECT_FALSE(parsed->has_value()) << text;
  }
}

TEST(AnnotationCodec, KernelAccessesInEveryMode) {
  const ParsedAnnotation a =
      parse_ok("racetrack:kernel r:0x1000:64 w:0xABCdef:8  rw:0x0:1 u:0xffffffffffff0000:4096");
  EXPECT_EQ(a.verb, AnnotationVerb::kKernel);
  ASSERT_EQ(a.accesses.size(), 4u);
  EXPECT_EQ(a.accesses[0].mode, v1::MODE_READ);
  EXPECT_EQ(a.accesses[0].address, 0x1000u);
  EXPECT_EQ(a.accesses[0].bytes, 64u);
  EXPECT_EQ(a.accesses[1].mode, v1::MODE_WRITE);
  EXPECT_EQ(a.accesses[1].address, 0xABCDEFu);
  EXPECT_EQ(a.accesses[2].mode, v1::MODE_READ_WRITE);
  EXPECT_EQ(a.accesses[2].address, 0u);
  EXPECT_EQ(a.accesses[3].mode, v1::MODE_UNKNOWN);
  EXPECT_EQ(a.accesses[3].bytes, 4096u);
}

TEST(AnnotationCodec, ReadsWhatAnnotateHeaderWrites) {
  // The same format strings as racetrack_annotate_ in annotate.h.
  char message[256];
  std::snprintf(message, sizeof message, "racetrack:%s %s:0x%llx:%llu", "host", "w", 0x7f00deadbeefULL,
                4096ULL);
  const ParsedAnnotation host = parse_ok(message);
  EXPECT_EQ(host.verb, AnnotationVerb::kHost);
  ASSERT_EQ(host.accesses.size(), 1u);
  EXPECT_EQ(host.accesses[0].address, 0x7f00deadbeefu);
  EXPECT_EQ(host.accesses[0].mode, v1::MODE_WRITE);

  std::snprintf(message, sizeof message, "racetrack:%s 0x%llx:%llu %s", "label", 0x2000ULL, 512ULL,
                "offload buffer 3");
  const ParsedAnnotation label = parse_ok(message);
  EXPECT_EQ(label.verb, AnnotationVerb::kLabel);
  EXPECT_EQ(label.name, "offload buffer 3");
  ASSERT_EQ(label.accesses.size(), 1u);
  EXPECT_EQ(label.accesses[0].address, 0x2000u);
  EXPECT_EQ(label.accesses[0].bytes, 512u);
}

TEST(AnnotationCodec, OpRangesHaveANameAndAnyNumberOfAccesses) {
  const ParsedAnnotation named = parse_ok("racetrack:op attention");
  EXPECT_EQ(named.verb, AnnotationVerb::kOp);
  EXPECT_EQ(named.name, "attention");
  EXPECT_TRUE(named.accesses.empty());
  const ParsedAnnotation with = parse_ok("racetrack:op gemm r:0x10:4 w:0x20:4");
  EXPECT_EQ(with.name, "gemm");
  ASSERT_EQ(with.accesses.size(), 2u);
  EXPECT_EQ(with.accesses[1].mode, v1::MODE_WRITE);
}

TEST(AnnotationCodec, ErrorsNameTheItemAndItsPosition) {
  EXPECT_THAT(parse_error("racetrack:kernel r:0x10:4 x:0x10:4"), HasSubstr("item 2 'x:0x10:4'"));
  EXPECT_THAT(parse_error("racetrack:kernel r:0x10:4 x:0x10:4"), HasSubstr("mode 'x'"));
  EXPECT_THAT(parse_error("racetrack:kernel r:10:4"),
              HasSubstr("item 1 'r:10:4': address '10' is not 0x<hex>"));
  EXPECT_THAT(parse_error("racetrack:kernel r:0xzz:4"), HasSubstr("address '0xzz'"));
  EXPECT_THAT(parse_error("racetrack:kernel r:0x10:4k"), HasSubstr("size '4k'"));
  EXPECT_THAT(parse_error("racetrack:kernel r:0x10"), HasSubstr("expected 0x<address>:<bytes>"));
  EXPECT_THAT(parse_error("racetrack:host rw"), HasSubstr("item 1 'rw'"));
  EXPECT_THAT(parse_error("racetrack:op fwd r:0x10:4 w:0x10:"), HasSubstr("item 3"));
}

TEST(AnnotationCodec, ZeroBytesAndWrappingRangesAreErrors) {
  EXPECT_THAT(parse_error("racetrack:kernel w:0x10:0"), HasSubstr("0 bytes"));
  EXPECT_THAT(parse_error("racetrack:kernel w:0xffffffffffffff00:256"), HasSubstr("overflows"));
  EXPECT_EQ(parse_ok("racetrack:kernel w:0xffffffffffffff00:255").accesses[0].bytes, 255u);
  EXPECT_THAT(parse_error("racetrack:kernel w:0x10000000000000000:1"), HasSubstr("address"));
  EXPECT_THAT(parse_error("racetrack:kernel w:0x10:18446744073709551616"), HasSubstr("size"));
}

TEST(AnnotationCodec, MissingPartsAndUnknownVerbsAreErrors) {
  EXPECT_THAT(parse_error("racetrack:kernel"), HasSubstr("at least one access"));
  EXPECT_THAT(parse_error("racetrack:host   "), HasSubstr("at least one access"));
  EXPECT_THAT(parse_error("racetrack:label 0x10:4"), HasSubstr("name"));
  EXPECT_THAT(parse_error("racetrack:label 0x10:4   "), HasSubstr("name"));
  EXPECT_THAT(parse_error("racetrack:label r:0x10:4 buf"), HasSubstr("not 0x<hex>"));
  EXPECT_THAT(parse_error("racetrack:op"), HasSubstr("expected <name>"));
  EXPECT_THAT(parse_error("racetrack:kernels r:0x10:4"), HasSubstr("unknown verb 'kernels'"));
  EXPECT_THAT(parse_error("racetrack:"), HasSubstr("unknown verb ''"));
}

// The messages of the PyTorch integration (capture/python/racetrack_torch/messages.py).
TEST(AnnotationCodec, TorchOperatorMessages) {
  const ParsedAnnotation op = parse_ok("racetrack:op aten::add_.Tensor s=0x5a0 rw:0x7f00:64 r:0x7f40:64");
  EXPECT_EQ(op.verb, AnnotationVerb::kOp);
  EXPECT_EQ(op.name, "aten::add_.Tensor");
  EXPECT_EQ(op.stream, 0x5a0u);
  ASSERT_EQ(op.accesses.size(), 2u);
  EXPECT_EQ(op.accesses[0].mode, v1::MODE_READ_WRITE);

  const ParsedAnnotation out = parse_ok("racetrack:op-out w:0x8000:128");
  EXPECT_EQ(out.verb, AnnotationVerb::kOpOutputs);
  ASSERT_EQ(out.accesses.size(), 1u);
  EXPECT_EQ(out.accesses[0].bytes, 128u);

  const ParsedAnnotation stack = parse_ok("racetrack:stack train.py:12 forward <- train.py:40 step");
  EXPECT_EQ(stack.verb, AnnotationVerb::kStack);
  EXPECT_EQ(stack.name, "train.py:12 forward <- train.py:40 step");

  const ParsedAnnotation alloc = parse_ok("racetrack:block-alloc 0x7f00:512 s=0x0");
  EXPECT_EQ(alloc.verb, AnnotationVerb::kBlockAlloc);
  EXPECT_EQ(alloc.stream, 0u);
  EXPECT_EQ(alloc.accesses[0].address, 0x7f00u);
  EXPECT_EQ(parse_ok("racetrack:block-free 0x7f00:512 s=0x1f").stream, 0x1fu);
}

TEST(AnnotationCodec, TorchMessageErrors) {
  EXPECT_THAT(parse_error("racetrack:op aten::mul s=0xzz"), HasSubstr("stream is not s=0x<hex>"));
  EXPECT_THAT(parse_error("racetrack:op-out"), HasSubstr("at least one access"));
  EXPECT_THAT(parse_error("racetrack:stack   "), HasSubstr("empty"));
  EXPECT_THAT(parse_error("racetrack:block-alloc 0x10:8 x=1"), HasSubstr("expected s=0x<stream>"));
  EXPECT_THAT(parse_error("racetrack:block-free"), HasSubstr("expected 0x<address>:<bytes>"));
}

// C14: an agent outside CUDA streams, with the event that observes its
// completion, and the host's observation of it.
TEST(AnnotationCodec, ExternalAccessesNameTheAgentAndTheDoneEvent) {
  const ParsedAnnotation a = parse_ok("racetrack:external nixl_rdma w:0x1000:64 r:0x2000:8 e=0xab");
  EXPECT_EQ(a.verb, AnnotationVerb::kExternal);
  EXPECT_EQ(a.name, "nixl_rdma");
  ASSERT_EQ(a.accesses.size(), 2u);
  EXPECT_EQ(a.accesses[0].mode, v1::MODE_WRITE);
  EXPECT_EQ(a.accesses[1].address, 0x2000u);
  EXPECT_EQ(a.event, 0xabu);
  EXPECT_EQ(parse_ok("racetrack:external writer rw:0x10:4").event, 0u);
  const ParsedAnnotation done = parse_ok("racetrack:external-done nixl_rdma");
  EXPECT_EQ(done.verb, AnnotationVerb::kExternalDone);
  EXPECT_EQ(done.name, "nixl_rdma");
}

TEST(AnnotationCodec, MalformedExternalAccessesAreNamed) {
  EXPECT_THAT(parse_error("racetrack:external nic"), HasSubstr("expected <agent> <access>"));
  EXPECT_THAT(parse_error("racetrack:external nic e=0x10"), HasSubstr("at least one access"));
  EXPECT_THAT(parse_error("racetrack:external nic w:0x10:4 e=16"), HasSubstr("e=0x<hex>"));
  EXPECT_THAT(parse_error("racetrack:external nic x:0x10:4"), HasSubstr("item 2"));
  EXPECT_THAT(parse_error("racetrack:external-done"), HasSubstr("expected <agent>"));
}

}  // namespace
}  // namespace racetrack::capture
