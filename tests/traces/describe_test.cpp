// The readable names and one-line op descriptions that `racetrack dump`,
// reports and the viewer show.
#include "racetrack/traces/describe.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "racetrack/traces/tables.h"
#include "test_support.h"

namespace racetrack {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

class Describe : public ::testing::Test {
 protected:
  Describe() : trace_(testing::standard_trace(1)) { tables_.add(trace_); }

  // The description of the first op for which `pick` holds.
  template <typename Pick>
  std::string describe(Pick pick) const {
    for (const v1::Op& op : trace_.ops())
      if (pick(op)) return describe_op(op, tables_);
    ADD_FAILURE() << "no such op";
    return {};
  }
  template <typename Pick>
  std::string title(Pick pick) const {
    for (const v1::Op& op : trace_.ops())
      if (pick(op)) return op_title(op, tables_);
    ADD_FAILURE() << "no such op";
    return {};
  }

  v1::Chunk trace_;
  TraceTables tables_;
};

TEST_F(Describe, Kernel) {
  const auto gemm = [](const v1::Op& op) { return op.has_kernel(); };
  EXPECT_EQ(title(gemm), "kernel gemm");
  EXPECT_THAT(describe(gemm),
              AllOf(StartsWith("#1 kernel gemm"), HasSubstr("[R X 4.0 KiB]"), HasSubstr("[W Y 8.0 KiB]"),
                    HasSubstr("on compute"), HasSubstr("thread main"), HasSubstr("nvtx fwd/layer0"),
                    HasSubstr("dev 2000..7000 ns")));
  // Unknown modes print as "?"; regions are named by label.
  EXPECT_THAT(describe([](const v1::Op& op) { return op.has_kernel() && op.seq() > 1; }),
              AllOf(HasSubstr("kernel relu"), HasSubstr("[? tmp0 2.0 KiB]"), Not(HasSubstr("nvtx"))));
}

TEST_F(Describe, CopiesNameTheirDirectionAndStream) {
  const auto d2h = [](const v1::Op& op) {
    return op.has_memcpy() && op.memcpy().direction() == v1::COPY_D2H;
  };
  const auto h2d = [](const v1::Op& op) {
    return op.has_memcpy() && op.memcpy().direction() == v1::COPY_H2D;
  };
  EXPECT_EQ(title(d2h), "memcpy D2H");
  EXPECT_EQ(title(h2d), "memcpy H2D");
  EXPECT_THAT(describe(d2h),
              AllOf(HasSubstr("memcpy D2H 4.0 KiB 0x7f0000000000 (device) -> 0x200000000 (pinned) async"),
                    HasSubstr("on offload")));
  // An unnamed stream is named by id and role.
  EXPECT_THAT(describe(h2d),
              AllOf(HasSubstr("(pinned) -> 0x7f0000000000 (device)"), HasSubstr("on stream 3 (h2d)")));
  EXPECT_THAT(describe([](const v1::Op& op) { return op.has_memcpy() && !op.memcpy().async(); }),
              AllOf(HasSubstr("memcpy D2H 1.0 KiB"), HasSubstr("(pageable) blocking"),
                    HasSubstr("on stream 4 (legacy default)")));
}

TEST_F(Describe, EveryOtherKind) {
  EXPECT_EQ(title([](const v1::Op& op) { return op.has_record(); }), "record e_off");
  EXPECT_EQ(title([](const v1::Op& op) { return op.has_wait(); }), "wait e_off");
  EXPECT_EQ(title([](const v1::Op& op) { return op.has_sync() && op.sync().kind() == v1::SYNC_EVENT; }),
            "sync event e_rel");
  EXPECT_EQ(title([](const v1::Op& op) { return op.has_sync() && op.sync().kind() == v1::SYNC_DEVICE; }),
            "sync device");
  EXPECT_EQ(title([](const v1::Op& op) { return op.has_sync() && op.sync().kind() == v1::SYNC_STREAM; }),
            "sync stream");
  EXPECT_THAT(describe([](const v1::Op& op) { return op.has_sync() && op.sync().kind() == v1::SYNC_STREAM; }),
              AllOf(HasSubstr("on compute"), HasSubstr("thread worker")));
  EXPECT_THAT(
      describe([](const v1::Op& op) { return op.has_query() && op.query().kind() == v1::QUERY_EVENT; }),
      HasSubstr("query e_off -> ready"));
  EXPECT_THAT(
      describe([](const v1::Op& op) { return op.has_query() && op.query().kind() == v1::QUERY_STREAM; }),
      AllOf(HasSubstr("query stream -> not ready"), HasSubstr("on offload")));
  EXPECT_THAT(describe([](const v1::Op& op) { return op.has_memset(); }),
              AllOf(HasSubstr("memset 256 B at 0x7f0000001000 = 7"), HasSubstr("on compute")));
  EXPECT_THAT(describe([](const v1::Op& op) { return op.has_alloc(); }),
              HasSubstr("alloc tmp0 2.0 KiB at 0x7f0000003000 (device, pool)"));
  EXPECT_THAT(describe([](const v1::Op& op) { return op.has_free() && op.free().device_sync(); }),
              HasSubstr("free segment 1.0 MiB at 0x7f0000003800 (device, cudaMalloc)"));
  EXPECT_THAT(describe([](const v1::Op& op) { return op.has_host_func(); }),
              AllOf(HasSubstr("hostfn log_step"), HasSubstr("[R P 16 B]")));
  EXPECT_THAT(describe([](const v1::Op& op) { return op.has_host_access(); }),
              AllOf(HasSubstr("hostaccess  [R P 64 B]"), Not(HasSubstr(" on "))));
  EXPECT_THAT(describe([](const v1::Op& op) { return op.has_graph(); }), HasSubstr("graph 2 nodes"));
  EXPECT_EQ(title([](const v1::Op& op) { return op.has_annotation(); }), "annotate step");
}

TEST_F(Describe, OffsetsAndPrecisionAreShown) {
  v1::Op op = trace_.ops(0);
  v1::Access& a = *op.mutable_kernel()->mutable_accesses(0);
  a.set_offset(512);
  a.set_precision(v1::PRECISION_SEGMENT);
  EXPECT_THAT(describe_op(op, tables_), HasSubstr("[R X+512 4.0 KiB (segment)]"));
  a.clear_region();
  a.set_address(0xabc0);
  EXPECT_THAT(describe_op(op, tables_), HasSubstr("[R 0xabc0 4.0 KiB (segment)]"));
  op.mutable_kernel()->clear_accesses();
  EXPECT_THAT(describe_op(op, tables_), HasSubstr("args=2"));
  EXPECT_THAT(describe_op(op, tables_), Not(HasSubstr("pdl")));
  op.mutable_kernel()->set_programmatic_stream_serialization(true);
  EXPECT_THAT(describe_op(op, tables_), HasSubstr("args=2  pdl"));
  op.mutable_kernel()->set_programmatic_event(2);
  EXPECT_THAT(describe_op(op, tables_), HasSubstr("pdl  programmatic event e_rel"));
  op.mutable_kernel()->set_programmatic_event_at_block_start(true);
  EXPECT_THAT(describe_op(op, tables_), HasSubstr("programmatic event e_rel (at block start)"));
}

TEST_F(Describe, UnknownIdsStillDescribe) {
  // describe_op must cope with traces that fail validation.
  v1::Op op = trace_.ops(0);
  op.set_stream(42);
  op.set_thread(9);
  op.mutable_kernel()->set_name(1000);
  op.mutable_kernel()->mutable_accesses(0)->set_region(77);
  EXPECT_THAT(describe_op(op, tables_),
              AllOf(HasSubstr("on stream 42"), HasSubstr("thread 9"), HasSubstr("region 77")));
  op.clear_what();
  EXPECT_THAT(describe_op(op, tables_), StartsWith("#1 none"));
}

TEST(EffectiveDirection, DefaultIsResolvedFromTheSpaces) {
  v1::Memcpy c;
  c.set_direction(v1::COPY_DEFAULT);
  auto with = [&](v1::AddressSpace dst, v1::AddressSpace src, uint32_t dst_dev = 0, uint32_t src_dev = 0) {
    c.set_dst_space(dst);
    c.set_src_space(src);
    c.set_dst_device(dst_dev);
    c.set_src_device(src_dev);
    return effective_direction(c);
  };
  EXPECT_EQ(with(v1::SPACE_DEVICE, v1::SPACE_PINNED_HOST), v1::COPY_H2D);
  EXPECT_EQ(with(v1::SPACE_DEVICE, v1::SPACE_PAGEABLE_HOST), v1::COPY_H2D);
  EXPECT_EQ(with(v1::SPACE_PINNED_HOST, v1::SPACE_DEVICE), v1::COPY_D2H);
  EXPECT_EQ(with(v1::SPACE_PAGEABLE_HOST, v1::SPACE_MANAGED), v1::COPY_D2H);
  EXPECT_EQ(with(v1::SPACE_PAGEABLE_HOST, v1::SPACE_PINNED_HOST), v1::COPY_H2H);
  EXPECT_EQ(with(v1::SPACE_DEVICE, v1::SPACE_DEVICE), v1::COPY_D2D);
  EXPECT_EQ(with(v1::SPACE_DEVICE, v1::SPACE_DEVICE, 1, 0), v1::COPY_P2P);
  // An explicit direction wins over the spaces.
  c.set_direction(v1::COPY_D2D);
  EXPECT_EQ(with(v1::SPACE_PINNED_HOST, v1::SPACE_DEVICE), v1::COPY_D2D);

  v1::Op op;
  op.set_seq(3);
  *op.mutable_memcpy() = c;
  op.mutable_memcpy()->set_direction(v1::COPY_DEFAULT);
  EXPECT_EQ(op_title(op, TraceTables()), "memcpy D2H");
}

TEST(Names, OpKindsRoundTrip) {
  for (int k = 1; k < kOpKindCount; ++k) {
    const auto kind = static_cast<OpKind>(k);
    EXPECT_EQ(op_kind_from_name(op_kind_name(kind)), kind) << op_kind_name(kind);
  }
  EXPECT_EQ(op_kind_name(OpKind::kMemcpy), "memcpy");
  EXPECT_EQ(op_kind_name(OpKind::kHostFunc), "hostfn");
  EXPECT_EQ(op_kind_from_name("none"), OpKind::kNone);
  EXPECT_EQ(op_kind_from_name("Kernel"), OpKind::kNone);
  EXPECT_EQ(op_kind_from_name(""), OpKind::kNone);
  EXPECT_EQ(op_kind(v1::Op()), OpKind::kNone);
}

TEST(Names, EnumNames) {
  EXPECT_EQ(role_name(v1::ROLE_D2H), "d2h");
  EXPECT_EQ(role_name(v1::ROLE_UNKNOWN), "unknown");
  EXPECT_EQ(flags_name(v1::STREAM_LEGACY_DEFAULT), "legacy-default");
  EXPECT_EQ(flags_name(v1::STREAM_BLOCKING), "blocking");
  EXPECT_EQ(direction_name(v1::COPY_P2P), "P2P");
  EXPECT_EQ(direction_name(v1::COPY_DEFAULT), "default");
  EXPECT_EQ(space_name(v1::SPACE_MANAGED), "managed");
  EXPECT_EQ(mode_name(v1::MODE_READ_WRITE), "RW");
  EXPECT_EQ(precision_name(v1::PRECISION_BLOCK), "block");
  EXPECT_EQ(origin_name(v1::ORIGIN_FRAMEWORK_BLOCK), "framework-block");
}

TEST(Names, FormatBytes) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1024), "1.0 KiB");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(1ull << 20), "1.0 MiB");
  EXPECT_EQ(format_bytes(80ull << 30), "80.0 GiB");
  EXPECT_EQ(format_bytes(3ull << 40), "3.0 TiB");
  EXPECT_EQ(format_bytes(5000ull << 40), "5000.0 TiB");  // no larger unit
}

TEST(Names, FormatBytesRoundsIntoTheNextUnit) {
  // Just under a unit boundary "%.1f" rounds up to 1024.0 of the smaller unit.
  EXPECT_EQ(format_bytes((1ull << 20) - 1), "1.0 MiB");
  EXPECT_EQ(format_bytes((1ull << 30) - 1), "1.0 GiB");
}

TEST(Names, Hex) {
  EXPECT_EQ(hex(0), "0x0");
  EXPECT_EQ(hex(0xdeadbeef), "0xdeadbeef");
  EXPECT_EQ(hex(~0ull), "0xffffffffffffffff");
}

TEST(Tables, LabelsAndLookups) {
  const v1::Chunk t = testing::standard_trace(1);
  TraceTables tables;
  tables.add(t);
  EXPECT_TRUE(tables.has_header());
  EXPECT_EQ(tables.string_count(), static_cast<size_t>(t.strings_size()));
  EXPECT_EQ(tables.string(0), "");
  EXPECT_EQ(tables.string(static_cast<uint32_t>(t.strings_size() + 1)), "");
  EXPECT_EQ(tables.stream_label(1), "compute");
  EXPECT_EQ(tables.stream_label(3), "stream 3 (h2d)");
  EXPECT_EQ(tables.stream_label(4), "stream 4 (legacy default)");
  EXPECT_EQ(tables.stream_label(9), "stream 9");
  EXPECT_EQ(tables.event_label(2), "e_rel");
  EXPECT_EQ(tables.event_label(0), "event 0");
  EXPECT_EQ(tables.region_label(1), "X");
  EXPECT_EQ(tables.region_label(50), "region 50");
  EXPECT_EQ(tables.stream(0), nullptr);
  EXPECT_EQ(tables.region_facts(50), nullptr);
  ASSERT_NE(tables.thread(2), nullptr);
  EXPECT_EQ(tables.string(tables.thread(2)->name()), "worker");
}

// Streaming passes keep 24 bytes of facts per region by default, and
// passes that track regions themselves (and the viewer) nothing.
TEST(Tables, RegionsAreKeptAsFactsUnlessAskedOtherwise) {
  v1::Chunk c = testing::standard_trace(1);
  v1::Region& r = *c.mutable_regions(0);
  r.set_base(0x7000);
  r.set_size(4096);
  r.set_space(v1::SPACE_PINNED_HOST);
  r.set_origin(v1::ORIGIN_FRAMEWORK_BLOCK);
  r.set_label(1);
  c.add_regions()->set_id(99);  // not the next id: skipped, as for other tables
  TraceTables facts, none;
  none.set_regions(RegionDetail::kNone);
  for (TraceTables* t : {&facts, &none}) t->add(c);

  const RegionFacts* f = facts.region_facts(1);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->base, 0x7000u);
  EXPECT_EQ(f->size, 4096u);
  EXPECT_EQ(f->label, 1u);
  EXPECT_EQ(f->space, v1::SPACE_PINNED_HOST);
  EXPECT_EQ(f->origin, v1::ORIGIN_FRAMEWORK_BLOCK);
  EXPECT_EQ(facts.region_label(1), c.strings(0));
  EXPECT_EQ(facts.region_facts(static_cast<uint32_t>(c.regions_size())), nullptr);

  EXPECT_EQ(none.region_facts(1), nullptr);
  EXPECT_EQ(none.region_label(1), "region 1");
}

TEST(Tables, OutOfOrderIdsAreSkipped) {
  v1::Chunk c;
  c.add_streams()->set_id(1);
  c.add_streams()->set_id(3);  // not the next id
  c.add_streams()->set_id(2);
  TraceTables tables;
  tables.add(c);
  EXPECT_EQ(tables.streams().size(), 2u);
  EXPECT_EQ(tables.stream(2)->id(), 2u);
  EXPECT_FALSE(tables.has_header());
}

}  // namespace
}  // namespace racetrack
