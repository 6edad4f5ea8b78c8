// Each rule of docs/trace-format.md "Validation" (beyond the container, see
// container_test.cpp): a valid trace gives no errors, and breaking one thing
// gives exactly the error that names it.
#include "racetrack/traces/validate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <limits>

#include "racetrack/traces/trace_io.h"
#include "test_support.h"

namespace racetrack {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::TempDir;
using ::testing::UnorderedElementsAre;

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

// Messages of the errors a Validator finds in `chunks`, fed as consecutive
// chunks at made-up offsets.
std::vector<std::string> errors_in(const std::vector<v1::Chunk>& chunks) {
  Validator validator;
  uint64_t offset = kFileHeaderSize;
  for (const v1::Chunk& chunk : chunks) {
    validator.check(chunk, offset);
    offset += 1000;
  }
  std::vector<std::string> out;
  for (const Error& e : validator.errors()) out.push_back(e.message);
  EXPECT_EQ(validator.error_count(), out.size());
  return out;
}

std::vector<std::string> errors_in(const v1::Chunk& trace) {
  return errors_in(std::vector{trace});
}

v1::Op& find_op(v1::Chunk& trace, const std::function<bool(const v1::Op&)>& pick) {
  for (v1::Op& op : *trace.mutable_ops())
    if (pick(op)) return op;
  ADD_FAILURE() << "no such op in the standard trace";
  return *trace.mutable_ops(0);
}

v1::Op& find_op(v1::Chunk& trace, OpKind kind) {
  return testing::first_op(trace, kind);
}

std::string at(const v1::Op& op) {
  return "op seq " + std::to_string(op.seq()) + ": ";
}

// The trace's first `n` ops (with the header and all entities), and the rest.
std::vector<v1::Chunk> split(const v1::Chunk& trace, int n) {
  v1::Chunk first = trace, second;
  first.clear_ops();
  for (int i = 0; i < trace.ops_size(); ++i) *(i < n ? first.add_ops() : second.add_ops()) = trace.ops(i);
  return {first, second};
}

class Validate : public ::testing::Test {
 protected:
  // What the validator says of a string id past the trace's strings.
  std::string undefined_string(uint32_t id) const {
    return "names string " + std::to_string(id) + ", but only " + std::to_string(trace_.strings_size()) +
           " strings are defined";
  }
  v1::Chunk trace_ = testing::standard_trace(1);
};

TEST_F(Validate, StandardTraceHasNoErrors) {
  EXPECT_THAT(errors_in(trace_), IsEmpty());
  EXPECT_THAT(errors_in(split(trace_, 5)), IsEmpty());
}

TEST_F(Validate, ValidFilesInEveryEncodingHaveNoErrors) {
  TempDir dir;
  for (const char* name : {"t.rtrace", "t.pbtxt", "t.json"}) {
    ASSERT_TRUE(save_trace(trace_, dir.path(name), {.ops_per_chunk = 4}).ok());
    const ValidationReport report = validate_file(dir.path(name));
    EXPECT_EQ(report.error_count, 0u) << name;
    EXPECT_THAT(report.errors, IsEmpty()) << report.errors[0].describe();
    EXPECT_EQ(report.ops, static_cast<uint64_t>(trace_.ops_size()));
  }
}

// --- header ---------------------------------------------------------------

TEST_F(Validate, MissingHeader) {
  trace_.clear_header();
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr("the first chunk has no header")));
}

TEST_F(Validate, HeaderInALaterChunk) {
  auto chunks = split(trace_, 5);
  *chunks[1].mutable_header() = chunks[0].header();
  EXPECT_THAT(errors_in(chunks), ElementsAre(HasSubstr("a header appears in chunk 1")));
}

TEST_F(Validate, WrongHeaderFormatVersion) {
  trace_.mutable_header()->set_format_version(2);
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr("header format_version is 2, expected 1")));
}

// --- entities -------------------------------------------------------------

TEST_F(Validate, EntityIdsOutOfOrder) {
  trace_.mutable_streams(1)->set_id(5);
  trace_.mutable_events(0)->set_id(0);
  trace_.mutable_threads(1)->set_id(1);
  trace_.mutable_regions(2)->set_id(4);
  const auto errors = errors_in(trace_);
  EXPECT_THAT(errors, Contains(HasSubstr("stream id 5 is out of order: expected 2")));
  EXPECT_THAT(errors, Contains(HasSubstr("event id 0 is out of order: expected 1")));
  EXPECT_THAT(errors, Contains(HasSubstr("host thread id 1 is out of order: expected 2")));
  EXPECT_THAT(errors, Contains(HasSubstr("region id 4 is out of order: expected 3")));
}

TEST_F(Validate, EntityIdsContinueAcrossChunks) {
  // The second chunk's first stream must be the next id after the first's.
  auto chunks = split(trace_, 5);
  v1::Stream& extra = *chunks[1].add_streams();
  extra.set_id(trace_.streams_size() + 2);
  EXPECT_THAT(
      errors_in(chunks),
      ElementsAre(HasSubstr("stream id " + std::to_string(trace_.streams_size() + 2) +
                            " is out of order: expected " + std::to_string(trace_.streams_size() + 1))));
  extra.set_id(trace_.streams_size() + 1);
  EXPECT_THAT(errors_in(chunks), IsEmpty());
}

TEST_F(Validate, EntityNamesMustBeDefinedStrings) {
  const int beyond = trace_.strings_size() + 1;
  trace_.mutable_streams(0)->set_name(beyond);
  trace_.mutable_events(0)->set_name(beyond);
  trace_.mutable_threads(0)->set_name(beyond);
  trace_.mutable_regions(0)->set_label(beyond);
  const std::string only = undefined_string(beyond);
  EXPECT_THAT(errors_in(trace_),
              ElementsAre(HasSubstr("stream 1 name " + only), HasSubstr("event 1 name " + only),
                          HasSubstr("thread 1 name " + only), HasSubstr("region 1 label " + only)));
}

TEST_F(Validate, StringsOfALaterChunkCount) {
  // A stream may name a string defined in its own chunk.
  auto chunks = split(trace_, 5);
  chunks[1].add_strings("late stream");
  v1::Stream& s = *chunks[1].add_streams();
  s.set_id(trace_.streams_size() + 1);
  s.set_name(trace_.strings_size() + 1);
  EXPECT_THAT(errors_in(chunks), IsEmpty());
}

TEST_F(Validate, RegionOfSizeZero) {
  trace_.mutable_regions(1)->set_size(0);
  // The kernel that reads all of it now reads outside it, too.
  EXPECT_THAT(errors_in(trace_), Contains(HasSubstr("region 2 is empty (size 0)")));
}

TEST_F(Validate, RegionOverflowsTheAddressSpace) {
  v1::Region& r = *trace_.mutable_regions(0);
  r.set_base(kMax - 100);
  EXPECT_THAT(errors_in(trace_),
              ElementsAre(HasSubstr("region 1 overflows the address space: base 0xffffffffffffff9b")));
  r.set_base(kMax - r.size());  // the last bytes of the address space
  EXPECT_THAT(errors_in(trace_), IsEmpty());
}

TEST_F(Validate, RegionFreedBeforeAllocated) {
  trace_.mutable_regions(0)->set_alloc_seq(9);
  trace_.mutable_regions(0)->set_free_seq(4);
  EXPECT_THAT(errors_in(trace_),
              ElementsAre(HasSubstr("region 1 is freed (seq 4) before it is allocated (seq 9)")));
}

TEST_F(Validate, StreamOnADeviceTheHeaderDoesNotList) {
  trace_.mutable_streams(2)->set_device(3);
  EXPECT_THAT(errors_in(trace_),
              ElementsAre(HasSubstr("stream 3 is on device 3, which the header does not list")));
  trace_.mutable_header()->clear_devices();  // no device list: nothing to check against
  EXPECT_THAT(errors_in(trace_), IsEmpty());
}

// --- op sequence and times -----------------------------------------------

TEST_F(Validate, SeqMustIncrease) {
  trace_.mutable_ops(4)->set_seq(trace_.ops(3).seq());
  EXPECT_THAT(errors_in(trace_),
              ElementsAre(HasSubstr("op seq 4: seq does not increase (previous op was seq 4)")));
  trace_.mutable_ops(4)->set_seq(2);
  EXPECT_THAT(errors_in(trace_),
              ElementsAre(HasSubstr("op seq 2: seq does not increase (previous op was seq 4)")));
}

TEST_F(Validate, SeqMustIncreaseAcrossChunks) {
  auto chunks = split(trace_, 5);
  chunks[1].mutable_ops(0)->set_seq(1);
  EXPECT_THAT(errors_in(chunks), ElementsAre(HasSubstr("seq does not increase (previous op was seq 5)")));
}

TEST_F(Validate, SeqMayHaveGaps) {
  for (v1::Op& op : *trace_.mutable_ops()) op.set_seq(op.seq() * 10);
  for (v1::Op& op : *trace_.mutable_ops())
    if (op.has_annotation())
      op.mutable_annotation()->set_ordered_after_seq(op.annotation().ordered_after_seq() * 10);
  for (v1::Op& op : *trace_.mutable_ops())
    if (op.has_graph()) op.mutable_graph()->set_captured_seq(op.graph().captured_seq() * 10);
  EXPECT_THAT(errors_in(trace_), IsEmpty());
}

TEST_F(Validate, DeviceEndBeforeStart) {
  v1::Op& op = find_op(trace_, [](const v1::Op& o) { return o.has_device_start(); });
  op.set_device_start(20);
  op.set_device_end(10);
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr(at(op) + "device end 10 is before device start 20")));
  op.set_device_end(20);  // zero duration is fine
  EXPECT_THAT(errors_in(trace_), IsEmpty());
}

TEST_F(Validate, OnlyOneOfDeviceStartAndEnd) {
  v1::Op& op = find_op(trace_, [](const v1::Op& o) { return o.has_device_start(); });
  op.clear_device_end();
  EXPECT_THAT(errors_in(trace_),
              ElementsAre(HasSubstr(at(op) + "has only one of device start and device end")));
  op.clear_device_start();
  op.set_device_end(5);
  EXPECT_THAT(errors_in(trace_),
              ElementsAre(HasSubstr(at(op) + "has only one of device start and device end")));
}

TEST_F(Validate, HostEndBeforeHostStart) {
  v1::Op& op = *trace_.mutable_ops(2);
  op.set_host_end(op.host_start() - 1);
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr(at(op) + "host end is before host start")));
}

TEST_F(Validate, OpWithNoKind) {
  v1::Op& op = *trace_.mutable_ops(1);
  op.clear_what();
  op.set_stream(0);
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr(at(op) + "has no kind")));
}

// --- references -----------------------------------------------------------

TEST_F(Validate, DanglingThread) {
  v1::Op& op = *trace_.mutable_ops(3);
  op.set_thread(5);
  EXPECT_THAT(errors_in(trace_),
              ElementsAre(HasSubstr(at(op) + "names host thread 5, which is not defined")));
  op.set_thread(0);
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr(at(op) + "names no host thread")));
}

TEST_F(Validate, DanglingEvent) {
  for (OpKind kind : {OpKind::kRecord, OpKind::kWait}) {
    v1::Chunk trace = trace_;
    v1::Op& op = find_op(trace, kind);
    if (op.has_record())
      op.mutable_record()->set_event(9);
    else
      op.mutable_wait()->set_event(9);
    EXPECT_THAT(errors_in(trace), ElementsAre(HasSubstr(at(op) + "names event 9, which is not defined")))
        << op_kind_name(kind);
  }
  v1::Op& sync =
      find_op(trace_, [](const v1::Op& o) { return o.has_sync() && o.sync().kind() == v1::SYNC_EVENT; });
  sync.mutable_sync()->set_event(0);
  v1::Op& query =
      find_op(trace_, [](const v1::Op& o) { return o.has_query() && o.query().kind() == v1::QUERY_EVENT; });
  query.mutable_query()->set_event(3);
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr(at(sync) + "names no event"),
                                             HasSubstr(at(query) + "names event 3, which is not defined")));
}

TEST_F(Validate, DanglingRegion) {
  v1::Op& kernel = find_op(trace_, OpKind::kKernel);
  kernel.mutable_kernel()->mutable_accesses(0)->set_region(99);
  v1::Op& alloc = find_op(trace_, OpKind::kAlloc);
  alloc.mutable_alloc()->set_region(98);
  v1::Op& label =
      find_op(trace_, [](const v1::Op& o) { return o.has_annotation() && o.annotation().region(); });
  label.mutable_annotation()->set_region(97);
  v1::Op& host = find_op(trace_, OpKind::kHostAccess);
  host.mutable_host_access()->mutable_accesses(0)->set_region(96);
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr(at(kernel) + "names region 99, which is not defined"),
                                             HasSubstr(at(host) + "names region 96, which is not defined"),
                                             HasSubstr(at(alloc) + "names region 98, which is not defined"),
                                             HasSubstr(at(label) + "names region 97, which is not defined")));
}

TEST_F(Validate, FreeOfADanglingRegion) {
  v1::Op& free = find_op(trace_, OpKind::kFree);
  free.mutable_free()->set_region(0);
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr(at(free) + "names no region")));
}

TEST_F(Validate, OpStringsMustBeDefined) {
  const uint32_t beyond = trace_.strings_size() + 3;
  const std::string only = undefined_string(beyond);
  v1::Op& kernel = find_op(trace_, OpKind::kKernel);
  kernel.mutable_kernel()->set_name(beyond);
  kernel.set_nvtx(beyond);
  v1::Op& func = find_op(trace_, OpKind::kHostFunc);
  func.mutable_host_func()->set_name(beyond);
  v1::Op& mark = find_op(trace_, OpKind::kAnnotation);
  mark.mutable_annotation()->set_text(beyond);
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr(at(kernel) + "nvtx " + only),
                                             HasSubstr(at(kernel) + "kernel name " + only),
                                             HasSubstr(at(func) + "host function name " + only),
                                             HasSubstr(at(mark) + "annotation text " + only)));
}

// The messages for these are built only when the id is undefined.
TEST_F(Validate, CopySymbolAndAnnotationAgentMustBeDefinedStrings) {
  const uint32_t beyond = trace_.strings_size() + 2;
  const std::string only = undefined_string(beyond);
  v1::Op& copy = find_op(trace_, OpKind::kMemcpy);
  copy.mutable_memcpy()->set_symbol(beyond);
  v1::Op& mark = find_op(trace_, OpKind::kAnnotation);
  mark.mutable_annotation()->set_agent(beyond);
  EXPECT_THAT(errors_in(trace_), UnorderedElementsAre(HasSubstr(at(copy) + "memcpy symbol " + only),
                                                      HasSubstr(at(mark) + "annotation agent " + only)));
}

TEST_F(Validate, EntitiesMustBeDefinedNoLaterThanTheirFirstUse) {
  // Move the last stream's definition to the chunk after its first use.
  auto chunks = split(trace_, trace_.ops_size() - 1);
  *chunks[1].add_streams() = chunks[0].streams(chunks[0].streams_size() - 1);
  chunks[0].mutable_streams()->RemoveLast();
  const uint32_t id = chunks[1].streams(0).id();
  const v1::Op& user = find_op(trace_, [id](const v1::Op& o) { return o.stream() == id; });
  EXPECT_THAT(errors_in(chunks), ElementsAre(HasSubstr(at(user) + "names stream " + std::to_string(id) +
                                                       ", which is not defined")));
}

// Every op that names a stream must name a defined one (docs: "every
// referenced ... stream ... defined"), whatever its kind.
struct StreamCase {
  const char* name;
  std::function<bool(const v1::Op&)> pick;
  bool needs_stream;  // device ops must name one
};

void PrintTo(const StreamCase& c, std::ostream* os) {
  *os << c.name;
}

class DanglingStream : public ::testing::TestWithParam<StreamCase> {};

TEST_P(DanglingStream, IsReported) {
  v1::Chunk trace = testing::standard_trace(1);
  v1::Op& op = find_op(trace, GetParam().pick);
  op.set_stream(7);
  EXPECT_THAT(errors_in(trace), ElementsAre(HasSubstr(at(op) + "names stream 7, which is not defined")));
  op.set_stream(0);
  if (GetParam().needs_stream)
    EXPECT_THAT(errors_in(trace), ElementsAre(HasSubstr(at(op) + "names no stream")));
  else
    EXPECT_THAT(errors_in(trace), IsEmpty());
}

bool is_sync(const v1::Op& o, v1::SyncKind k) {
  return o.has_sync() && o.sync().kind() == k;
}
bool is_query(const v1::Op& o, v1::QueryKind k) {
  return o.has_query() && o.query().kind() == k;
}

INSTANTIATE_TEST_SUITE_P(
    OpKinds, DanglingStream,
    ::testing::Values(
        StreamCase{"kernel", [](const v1::Op& o) { return o.has_kernel(); }, true},
        StreamCase{"memcpy", [](const v1::Op& o) { return o.has_memcpy(); }, true},
        StreamCase{"memset", [](const v1::Op& o) { return o.has_memset(); }, true},
        StreamCase{"record", [](const v1::Op& o) { return o.has_record(); }, true},
        StreamCase{"wait", [](const v1::Op& o) { return o.has_wait(); }, true},
        StreamCase{"sync_stream", [](const v1::Op& o) { return is_sync(o, v1::SYNC_STREAM); }, true},
        StreamCase{"query_stream", [](const v1::Op& o) { return is_query(o, v1::QUERY_STREAM); }, true},
        StreamCase{"host_func", [](const v1::Op& o) { return o.has_host_func(); }, true},
        StreamCase{"graph", [](const v1::Op& o) { return o.has_graph(); }, true},
        StreamCase{"ordered_alloc",
                   [](const v1::Op& o) { return o.has_alloc() && o.alloc().stream_ordered(); }, true},
        StreamCase{"ordered_free", [](const v1::Op& o) { return o.has_free() && o.free().stream_ordered(); },
                   true},
        StreamCase{"cuda_malloc",
                   [](const v1::Op& o) { return o.has_alloc() && !o.alloc().stream_ordered(); }, false},
        StreamCase{"cuda_free", [](const v1::Op& o) { return o.has_free() && !o.free().stream_ordered(); },
                   false},
        StreamCase{"host_access", [](const v1::Op& o) { return o.has_host_access(); }, false},
        StreamCase{"sync_event", [](const v1::Op& o) { return is_sync(o, v1::SYNC_EVENT); }, false},
        StreamCase{"sync_device", [](const v1::Op& o) { return is_sync(o, v1::SYNC_DEVICE); }, false},
        StreamCase{"query_event", [](const v1::Op& o) { return is_query(o, v1::QUERY_EVENT); }, false},
        StreamCase{"annotation", [](const v1::Op& o) { return o.has_annotation(); }, false}),
    [](const auto& p) { return std::string(p.param.name); });

// --- ranges ---------------------------------------------------------------

TEST_F(Validate, AccessOutsideItsRegion) {
  v1::Op& op = find_op(trace_, OpKind::kKernel);
  v1::Access& a = *op.mutable_kernel()->mutable_accesses(0);  // all of X (4096 bytes)
  a.set_offset(4000);
  a.set_size(100);
  EXPECT_THAT(errors_in(trace_),
              ElementsAre(HasSubstr(at(op) + "access [4000, +100) lies outside region 1 of 4096 bytes")));
  a.set_size(96);  // ends exactly at the region's end
  EXPECT_THAT(errors_in(trace_), IsEmpty());
  a.set_offset(kMax);  // offset + size wraps around: still outside
  a.set_size(2);
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr("lies outside region 1")));
}

TEST_F(Validate, AccessOfZeroBytes) {
  v1::Op& op = find_op(trace_, OpKind::kHostAccess);
  op.mutable_host_access()->mutable_accesses(0)->set_size(0);
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr(at(op) + "access of 0 bytes")));
}

TEST_F(Validate, AddressRangesMustNotWrap) {
  v1::Op& host = find_op(trace_, OpKind::kHostAccess);
  v1::Access& a = *host.mutable_host_access()->mutable_accesses(0);
  a.clear_region();
  a.set_address(kMax - 15);
  a.set_size(32);
  v1::Op& copy = find_op(trace_, OpKind::kMemcpy);
  copy.mutable_memcpy()->set_dst(kMax);
  v1::Op& set = find_op(trace_, OpKind::kMemset);
  set.mutable_memset()->set_dst(kMax - 10);
  EXPECT_THAT(errors_in(trace_),
              ElementsAre(AllOf(HasSubstr(at(copy) + "memcpy destination range 0xffffffffffffffff + "),
                                HasSubstr("overflows the address space")),
                          AllOf(HasSubstr(at(host) + "access range 0xfffffffffffffff0 + 32"),
                                HasSubstr("overflows the address space")),
                          AllOf(HasSubstr(at(set) + "memset range"), HasSubstr("overflows"))));
  a.set_size(15);  // up to the last byte of the address space: no wrap
  copy.mutable_memcpy()->set_dst(0x1000);
  copy.mutable_memcpy()->set_src(kMax - 1);
  EXPECT_THAT(errors_in(trace_),
              ElementsAre(HasSubstr(at(copy) + "memcpy source range"), HasSubstr(at(set) + "memset range")));
}

TEST_F(Validate, PitchedShapesAreCheckedWhole) {
  v1::Op& copy = find_op(trace_, OpKind::kMemcpy);
  v1::Memcpy& c = *copy.mutable_memcpy();
  c.set_bytes(256 * 4);
  v1::Pitched& p = *c.mutable_pitched();
  p.set_width(256);
  p.set_height(4);
  p.set_dst_pitch(512);
  p.set_src_pitch(256);
  EXPECT_THAT(errors_in(trace_), IsEmpty());
  p.set_dst_pitch(100);
  EXPECT_THAT(errors_in(trace_),
              ElementsAre(at(copy) + "memcpy destination pitch 100 is less than the row width 256"));
  p.set_dst_pitch(512);
  c.set_bytes(1000);
  EXPECT_THAT(errors_in(trace_),
              ElementsAre(at(copy) + "memcpy bytes 1000 is not width x height x depth = 1024"));
  c.set_bytes(1024);
  v1::Op& set = find_op(trace_, OpKind::kMemset);
  set.mutable_memset()->set_element_size(3);
  EXPECT_THAT(errors_in(trace_),
              ElementsAre(HasSubstr(at(set) + "memset element size 3 is none of 1, 2, 4")));
}

// --- kind-specific rules --------------------------------------------------

TEST_F(Validate, DoubleAllocAndDoubleFree) {
  v1::Op& free = find_op(trace_, [](const v1::Op& o) { return o.has_free() && o.free().device_sync(); });
  const uint32_t region = free.free().region();
  v1::Op again = free;
  again.set_seq(trace_.ops(trace_.ops_size() - 1).seq() + 1);
  *trace_.add_ops() = again;
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr(at(again) + "frees region " + std::to_string(region) +
                                                       " a second time")));
  trace_.mutable_ops()->RemoveLast();
  v1::Op& alloc = find_op(trace_, OpKind::kAlloc);
  v1::Op realloc = alloc;
  realloc.set_seq(trace_.ops(trace_.ops_size() - 1).seq() + 1);
  *trace_.add_ops() = realloc;
  EXPECT_THAT(errors_in(trace_),
              ElementsAre(HasSubstr(at(realloc) + "allocates region " +
                                    std::to_string(alloc.alloc().region()) + " a second time")));
}

TEST_F(Validate, FreeWithoutAllocIsFine) {
  // Regions without an ALLOC op live from the start of the trace.
  v1::Op& free = find_op(trace_, OpKind::kFree);
  free.mutable_free()->set_region(1);
  EXPECT_THAT(errors_in(trace_), IsEmpty());
}

TEST_F(Validate, GraphNodeDependsOnALaterNode) {
  v1::Op& op = find_op(trace_, OpKind::kGraph);
  op.mutable_graph()->mutable_nodes(0)->add_deps(1);
  EXPECT_THAT(
      errors_in(trace_),
      ElementsAre(HasSubstr(at(op) + "graph node 0 depends on node 1, which does not come before it")));
  op.mutable_graph()->mutable_nodes(0)->set_deps(0, 0);  // itself
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr("graph node 0 depends on node 0")));
}

TEST_F(Validate, GraphNodeKernelsCarryNoProgrammaticSerialization) {
  find_op(trace_, OpKind::kKernel).mutable_kernel()->set_programmatic_stream_serialization(true);
  EXPECT_THAT(errors_in(trace_), IsEmpty());  // a stream launch may
  v1::Op& op = find_op(trace_, OpKind::kGraph);
  op.mutable_graph()->mutable_nodes(0)->mutable_kernel()->set_programmatic_stream_serialization(true);
  EXPECT_THAT(errors_in(trace_),
              ElementsAre(HasSubstr(at(op) + "graph node 0 sets programmatic_stream_serialization")));
}

TEST_F(Validate, ProgrammaticEventsNameADefinedEventOnStreamLaunchesOnly) {
  v1::Op& kernel = find_op(trace_, OpKind::kKernel);
  kernel.mutable_kernel()->set_programmatic_event(1);
  kernel.mutable_kernel()->set_programmatic_event_at_block_start(true);
  EXPECT_THAT(errors_in(trace_), IsEmpty());
  kernel.mutable_kernel()->set_programmatic_event(9);
  EXPECT_THAT(errors_in(trace_),
              ElementsAre(HasSubstr(at(kernel) + "names programmatic event 9, which is not defined")));
  kernel.mutable_kernel()->set_programmatic_event(0);
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr(at(kernel) + "sets programmatic_event_at_block_start "
                                                                    "without a programmatic_event")));
  kernel.mutable_kernel()->set_programmatic_event_at_block_start(false);
  v1::Op& op = find_op(trace_, OpKind::kGraph);
  op.mutable_graph()->mutable_nodes(0)->mutable_kernel()->set_programmatic_event(1);
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr(at(op) + "graph node 0 sets programmatic_event")));
}

TEST_F(Validate, GraphNodeIndexMustBeItsPosition) {
  v1::Op& op = find_op(trace_, OpKind::kGraph);
  op.mutable_graph()->mutable_nodes(1)->set_index(4);
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr(at(op) + "graph node 1 has index 4")));
}

TEST_F(Validate, GraphNodeAccessesAreChecked) {
  v1::Op& op = find_op(trace_, OpKind::kGraph);
  op.mutable_graph()->mutable_nodes(0)->mutable_kernel()->mutable_accesses(0)->set_size(1 << 20);
  EXPECT_THAT(errors_in(trace_),
              ElementsAre(HasSubstr(at(op) + "access [0, +1048576) lies outside region 1")));
}

TEST_F(Validate, AnnotationOrderMustPointBackwards) {
  v1::Op& op = find_op(trace_, [](const v1::Op& o) {
    return o.has_annotation() && o.annotation().kind() == v1::ANNOTATE_ORDER;
  });
  op.mutable_annotation()->set_ordered_after_seq(op.seq());
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr(at(op) + "declares an order after seq " +
                                                       std::to_string(op.seq()) + ", which is not earlier")));
  op.mutable_annotation()->set_ordered_after_seq(op.seq() + 5);
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr("which is not earlier")));
}

TEST_F(Validate, KernelShapeAndArgumentWords) {
  v1::Op& op = find_op(trace_, OpKind::kKernel);
  op.mutable_kernel()->add_grid(1);  // a fourth dimension
  op.mutable_kernel()->mutable_accesses(0)->set_arg_index(9);
  EXPECT_THAT(errors_in(trace_), ElementsAre(HasSubstr(at(op) + "grid and block have at most 3 dimensions"),
                                             HasSubstr(at(op) + "access names argument word 9 of 2")));
}

// --- reporting ------------------------------------------------------------

TEST_F(Validate, ErrorsPastTheLimitAreCountedNotStored) {
  for (v1::Op& op : *trace_.mutable_ops()) op.set_thread(99);
  Validator validator(3);
  validator.check(trace_, 0);
  EXPECT_EQ(validator.errors().size(), 3u);
  EXPECT_EQ(validator.error_count(), static_cast<uint64_t>(trace_.ops_size()));
  EXPECT_EQ(validator.ops_seen(), static_cast<uint64_t>(trace_.ops_size()));
}

TEST_F(Validate, BinaryErrorsCarryTheirChunkOffsetTextErrorsNone) {
  TempDir dir;
  // Break an op in the third chunk of a 4-ops-per-chunk file.
  trace_.mutable_ops(9)->set_thread(42);
  const std::string binary = dir.path("t.rtrace");
  const auto ends = testing::write_chunked(trace_, binary, true, 4);
  const ValidationReport report = validate_file(binary);
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0].offset, ends[2]);
  EXPECT_EQ(report.errors[0].describe(), binary + ": offset " + std::to_string(ends[2]) +
                                             ": op seq 10: names host thread 42, which is not defined");
  EXPECT_EQ(report.chunks, ends.size() - 1);

  const std::string text = dir.path("t.pbtxt");
  ASSERT_TRUE(save_trace(trace_, text).ok());
  const ValidationReport text_report = validate_file(text);
  ASSERT_EQ(text_report.errors.size(), 1u);
  EXPECT_FALSE(text_report.errors[0].offset.has_value());
  EXPECT_EQ(text_report.errors[0].describe(),
            text + ": op seq 10: names host thread 42, which is not defined");
}

TEST_F(Validate, ValidateFileReportsErrorsBeforeTheReadFailure) {
  // A semantic error in chunk 0 and a truncated chunk 2: both are reported,
  // the read failure last.
  TempDir dir;
  trace_.mutable_ops(0)->set_thread(42);
  const std::string path = dir.path("t.rtrace");
  const auto ends = testing::write_chunked(trace_, path, false, 4);
  std::string bytes = testing::read_bytes(path);
  testing::write_bytes(path, bytes.substr(0, ends[2] + 3));
  const ValidationReport report = validate_file(path);
  ASSERT_EQ(report.errors.size(), 2u);
  EXPECT_EQ(report.error_count, 2u);
  EXPECT_THAT(report.errors[0].message, HasSubstr("names host thread 42"));
  EXPECT_EQ(report.errors[0].offset, kFileHeaderSize);
  EXPECT_THAT(report.errors[1].message, HasSubstr("truncated chunk"));
  EXPECT_EQ(report.errors[1].offset, ends[2]);
}

// --- the samples ----------------------------------------------------------

TEST(Samples, EverySampleValidates) {
  const auto samples = testing::sample_files();
  if (samples.empty()) GTEST_SKIP() << "no *.pbtxt in " << RACETRACK_SAMPLES_DIR << " yet";
  for (const auto& sample : samples) {
    const ValidationReport report = validate_file(sample.string());
    EXPECT_EQ(report.error_count, 0u) << sample;
    for (const Error& e : report.errors) ADD_FAILURE() << e.describe();
    EXPECT_GT(report.ops, 0u) << sample << " has no ops";
  }
}

}  // namespace
}  // namespace racetrack
