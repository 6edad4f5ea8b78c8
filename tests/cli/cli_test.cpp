// The `racetrack` command line, run as a user runs it: exit codes, what goes
// to stdout and stderr, and the files convert writes.
#include <gmock/gmock.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "racetrack/traces/describe.h"
#include "racetrack/traces/trace_io.h"
#include "run_cli.h"
#include "test_support.h"

namespace racetrack {
namespace {

using google::protobuf::util::MessageDifferencer;
using ::testing::AllOf;
using testing::CliRun;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::shell_quote;
using testing::split_lines;
using testing::TempDir;

namespace fs = std::filesystem;

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    trace_ = testing::standard_trace(3);
    binary_ = dir_.path("trace.rtrace");
    ends_ = testing::write_chunked(trace_, binary_, /*compress=*/true, 8);
    text_ = dir_.path("trace.pbtxt");
    ASSERT_TRUE(save_trace(trace_, text_).ok());
  }

  CliRun racetrack(const std::string& args) { return testing::run_cli(dir_, args); }

  v1::Chunk load(const std::string& path) {
    auto trace = load_trace(path);
    EXPECT_TRUE(trace.ok()) << trace.error().describe();
    return trace.ok() ? std::move(*trace) : v1::Chunk();
  }

  int count(OpKind kind) const {
    int n = 0;
    for (const v1::Op& op : trace_.ops()) n += op_kind(op) == kind;
    return n;
  }

  TempDir dir_;
  v1::Chunk trace_;
  std::string binary_, text_;
  std::vector<uint64_t> ends_;
};

// --- usage ----------------------------------------------------------------

TEST_F(Cli, HelpExitsZero) {
  const CliRun top = racetrack("--help");
  EXPECT_EQ(top.code, 0) << top.err;
  EXPECT_THAT(top.out,
              AllOf(HasSubstr("info"), HasSubstr("validate"), HasSubstr("dump"), HasSubstr("convert")));
  const CliRun dump = racetrack("dump --help");
  EXPECT_EQ(dump.code, 0) << dump.err;
  EXPECT_THAT(dump.out,
              AllOf(HasSubstr("--kind"), HasSubstr("--from"), HasSubstr("--to"), HasSubstr("--stream")));
  const CliRun version = racetrack("--version");
  EXPECT_EQ(version.code, 0);
  EXPECT_THAT(version.out, HasSubstr("racetrack"));
}

TEST_F(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(racetrack("").code, 2) << "a subcommand is required";
  EXPECT_EQ(racetrack("frobnicate").code, 2);
  EXPECT_EQ(racetrack("dump").code, 2) << "FILE is required";
  EXPECT_EQ(racetrack("dump " + shell_quote(binary_) + " --from notanumber").code, 2);
  EXPECT_EQ(racetrack("convert " + shell_quote(binary_)).code, 2) << "OUT is required";
}

// --- validate ---------------------------------------------------------------

TEST_F(Cli, ValidateAcceptsAGoodTrace) {
  for (const std::string& path : {binary_, text_}) {
    const CliRun run = racetrack("validate " + shell_quote(path));
    EXPECT_EQ(run.code, 0) << run.err;
    EXPECT_EQ(run.out, path + ": valid, " + std::to_string(trace_.ops_size()) + " ops\n");
    EXPECT_THAT(run.err, IsEmpty());
  }
}

TEST_F(Cli, ValidateReportsATruncatedFileWithItsOffset) {
  const std::string cut = dir_.path("cut.rtrace");
  testing::write_bytes(cut, testing::read_bytes(binary_).substr(0, ends_[3] + 20));
  const CliRun run = racetrack("validate " + shell_quote(cut));
  EXPECT_EQ(run.code, 2);
  const auto err = split_lines(run.err);
  ASSERT_EQ(err.size(), 2u) << run.err;
  EXPECT_EQ(err[0].rfind(cut + ": offset " + std::to_string(ends_[3]) + ": truncated chunk", 0), 0u)
      << err[0];
  EXPECT_EQ(err[1], cut + ": invalid, 1 error(s)");
  EXPECT_THAT(run.out, IsEmpty());
}

TEST_F(Cli, ValidateReportsACorruptFrameWithItsOffset) {
  std::string bytes = testing::read_bytes(binary_);
  const uint64_t frame = ends_[2];
  bytes[frame + kFrameHeaderSize + 5] ^= 0x10;
  const std::string bad = dir_.path("bad.rtrace");
  testing::write_bytes(bad, bytes);
  const CliRun run = racetrack("validate " + shell_quote(bad));
  EXPECT_EQ(run.code, 2);
  // "FILE: offset N: message", N the offset of the damaged frame.
  const std::regex form("^(.*): offset ([0-9]+): (.*)$");
  std::smatch m;
  const std::string first = split_lines(run.err).at(0);
  ASSERT_TRUE(std::regex_match(first, m, form)) << first;
  EXPECT_EQ(m[1], bad);
  EXPECT_EQ(m[2], std::to_string(frame));
  EXPECT_EQ(m[3], "corrupt chunk: checksum mismatch");
}

TEST_F(Cli, ValidateListsRuleViolationsUpToMaxErrors) {
  v1::Chunk broken = trace_;
  for (int i = 0; i < 5; ++i) broken.mutable_ops(i)->set_thread(9);
  const std::string path = dir_.path("broken.pbtxt");
  ASSERT_TRUE(save_trace(broken, path).ok());
  const CliRun run = racetrack("validate --max-errors 2 " + shell_quote(path));
  EXPECT_EQ(run.code, 2);
  const auto err = split_lines(run.err);
  ASSERT_EQ(err.size(), 4u) << run.err;
  EXPECT_EQ(err[0], path + ": op seq 1: names host thread 9, which is not defined");
  EXPECT_EQ(err[1], path + ": op seq 2: names host thread 9, which is not defined");
  EXPECT_EQ(err[2], "... and 3 more errors");
  EXPECT_EQ(err[3], path + ": invalid, 5 error(s)");
}

TEST_F(Cli, MissingFileExitsTwoWithAClearMessage) {
  const std::string missing = dir_.path("no-such-trace.rtrace");
  for (const std::string command : {"validate", "info", "dump"}) {
    const CliRun run = racetrack(command + " " + shell_quote(missing));
    EXPECT_EQ(run.code, 2) << command;
    EXPECT_THAT(run.err, AllOf(HasSubstr(missing + ": cannot open: "), HasSubstr("No such file"))) << command;
  }
  const CliRun convert =
      racetrack("convert " + shell_quote(missing) + " " + shell_quote(dir_.path("out.pbtxt")));
  EXPECT_EQ(convert.code, 2);
  EXPECT_THAT(convert.err, HasSubstr(missing));
  EXPECT_FALSE(fs::exists(dir_.path("out.pbtxt")));
}

TEST_F(Cli, UnwritableOutputExitsTwo) {
  for (const char* name : {"missing-dir/out.rtrace", "missing-dir/out.pbtxt"}) {
    const CliRun run = racetrack("convert " + shell_quote(binary_) + " " + shell_quote(dir_.path(name)));
    EXPECT_EQ(run.code, 2) << name;
    EXPECT_THAT(run.err, HasSubstr(dir_.path(name))) << name;
  }
}

TEST_F(Cli, UnreadableTextExitsTwo) {
  const std::string bad = dir_.path("bad.pbtxt");
  testing::write_bytes(bad, "ops { seq: 1\n");
  const CliRun run = racetrack("validate " + shell_quote(bad));
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, HasSubstr(bad + ": text format: line 2"));
}

// --- info -------------------------------------------------------------------

TEST_F(Cli, InfoCountsOpsPerKind) {
  const CliRun run = racetrack("info " + shell_quote(binary_));
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr(std::to_string(trace_.ops_size()) + " ops in " +
                                 std::to_string(ends_.size() - 1) + " chunk(s)"));
  EXPECT_THAT(run.out, HasSubstr("ops per kind:\n"));
  for (int k = 1; k < kOpKindCount; ++k) {
    const auto kind = static_cast<OpKind>(k);
    EXPECT_THAT(run.out, HasSubstr("\n  " + std::string(op_kind_name(kind)) + ": " +
                                   std::to_string(count(kind)) + "\n"))
        << op_kind_name(kind);
  }
  EXPECT_THAT(run.out,
              AllOf(HasSubstr("producer racetrack-builder"), HasSubstr("command: train.py --steps=2"),
                    HasSubstr("host testhost, pid 4242"), HasSubstr("device 0: Test GPU sm_90"),
                    HasSubstr("compute"), HasSubstr("offload"), HasSubstr("(with device times)"),
                    HasSubstr("host threads: 2, events: 2"), HasSubstr("D2H: "), HasSubstr("H2D: ")));
  // Regions are counted per space as they stream by, not kept.
  std::map<std::string, std::pair<uint64_t, uint64_t>> by_space;  // count, bytes
  for (const v1::Region& r : trace_.regions()) {
    auto& [regions, bytes] = by_space[std::string(space_name(r.space()))];
    ++regions;
    bytes += r.size();
  }
  ASSERT_GE(by_space.size(), 2u);
  std::string summary = "\nregions: " + std::to_string(trace_.regions_size()) + "\n";
  for (const auto& [space, totals] : by_space)
    summary +=
        "  " + space + ": " + std::to_string(totals.first) + " (" + format_bytes(totals.second) + ")\n";
  EXPECT_THAT(run.out, HasSubstr(summary));
  // The same numbers from the text encoding.
  const CliRun text = racetrack("info " + shell_quote(text_));
  EXPECT_EQ(text.code, 0);
  EXPECT_EQ(text.out.substr(text.out.find("ops per kind:")), run.out.substr(run.out.find("ops per kind:")));
}

TEST_F(Cli, InfoOnATruncatedFileShowsWhatItReadAndFails) {
  const std::string cut = dir_.path("cut.rtrace");
  testing::write_bytes(cut, testing::read_bytes(binary_).substr(0, ends_[2] + 3));
  const CliRun run = racetrack("info " + shell_quote(cut));
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.out, HasSubstr("16 ops in 2 chunk(s)"));
  EXPECT_THAT(run.err, HasSubstr(cut + ": offset " + std::to_string(ends_[2]) + ": truncated chunk"));
}

// --- dump -------------------------------------------------------------------

TEST_F(Cli, DumpPrintsOneLinePerOp) {
  const CliRun run = racetrack("dump " + shell_quote(binary_));
  ASSERT_EQ(run.code, 0) << run.err;
  const auto out = split_lines(run.out);
  ASSERT_EQ(out.size(), static_cast<size_t>(trace_.ops_size()));
  TraceTables tables;
  tables.add(trace_);
  for (size_t i = 0; i < out.size(); ++i) {
    const v1::Op& op = trace_.ops(static_cast<int>(i));
    // Kernels end with their argument words, 1-based as --kernel-modes names them.
    std::string words;
    for (int w = 0; op.has_kernel() && w < op.kernel().arg_words_size(); ++w)
      words += (w ? " " : "  words ") + std::to_string(w + 1) + "=" + hex(op.kernel().arg_words(w));
    EXPECT_EQ(out[i], describe_op(op, tables) + words);
  }
}

TEST_F(Cli, DumpKindFiltersOps) {
  const CliRun run = racetrack("dump --kind memcpy " + shell_quote(binary_));
  ASSERT_EQ(run.code, 0) << run.err;
  const auto out = split_lines(run.out);
  EXPECT_EQ(out.size(), static_cast<size_t>(count(OpKind::kMemcpy)));
  const std::regex memcpy_line("^#[0-9]+ memcpy (D2H|H2D) .*");
  for (const auto& line : out) EXPECT_TRUE(std::regex_match(line, memcpy_line)) << line;
}

TEST_F(Cli, DumpFromToLimitsSeqs) {
  const CliRun run = racetrack("dump --from 5 --to 9 " + shell_quote(binary_));
  ASSERT_EQ(run.code, 0) << run.err;
  const auto out = split_lines(run.out);
  ASSERT_EQ(out.size(), 5u) << run.out;
  for (size_t i = 0; i < out.size(); ++i)
    EXPECT_EQ(out[i].rfind("#" + std::to_string(5 + i) + " ", 0), 0u) << out[i];
  // Across a chunk boundary and past the end.
  const CliRun tail = racetrack("dump --from " + std::to_string(trace_.ops_size() - 1) + " --to 100000 " +
                                shell_quote(binary_));
  EXPECT_EQ(split_lines(tail.out).size(), 2u);
}

TEST_F(Cli, DumpStreamFiltersByNameIdOrRole) {
  int on_offload = 0;
  for (const v1::Op& op : trace_.ops()) on_offload += op.stream() == 2;
  for (const char* which : {"offload", "2", "d2h"}) {
    const CliRun run = racetrack(std::string("dump --stream ") + which + " " + shell_quote(text_));
    ASSERT_EQ(run.code, 0) << run.err;
    const auto out = split_lines(run.out);
    EXPECT_EQ(out.size(), static_cast<size_t>(on_offload)) << which;
    for (const auto& line : out) EXPECT_THAT(line, HasSubstr("on offload")) << which;
  }
}

TEST_F(Cli, DumpUnknownKindExitsTwo) {
  const CliRun run = racetrack("dump --kind bogus " + shell_quote(binary_));
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, HasSubstr("unknown op kind 'bogus'"));
  EXPECT_THAT(run.out, IsEmpty());
}

// --- convert ----------------------------------------------------------------

TEST_F(Cli, ConvertToTextAndBackKeepsTheContent) {
  const std::string text = dir_.path("b.pbtxt"), json = dir_.path("c.json"), back = dir_.path("d.rtrace");
  CliRun run = racetrack("convert " + shell_quote(binary_) + " " + shell_quote(text));
  ASSERT_EQ(run.code, 0) << run.err;
  run = racetrack("convert " + shell_quote(text) + " " + shell_quote(json));
  ASSERT_EQ(run.code, 0) << run.err;
  run = racetrack("convert " + shell_quote(json) + " " + shell_quote(back));
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_TRUE(MessageDifferencer::Equals(load(binary_), load(text)));
  EXPECT_TRUE(MessageDifferencer::Equals(load(binary_), load(json)));
  EXPECT_TRUE(MessageDifferencer::Equals(load(binary_), load(back)));
  EXPECT_TRUE(MessageDifferencer::Equals(trace_, load(back)));
  EXPECT_EQ(racetrack("validate " + shell_quote(back)).code, 0);
}

// The codec byte of every frame of a binary file.
std::vector<int> codecs(const std::string& path) {
  const std::string bytes = testing::read_bytes(path);
  std::vector<int> out;
  auto reader = ChunkReader::open(path);
  if (!reader) return out;
  v1::Chunk chunk;
  for (uint64_t at = reader->offset(); reader->next(chunk).value(); at = reader->offset())
    out.push_back(static_cast<unsigned char>(bytes[at + 8]));
  return out;
}

TEST_F(Cli, ConvertCompressOnlyWhenAsked) {
  const std::string plain = dir_.path("plain.rtrace"), packed = dir_.path("packed.rtrace");
  ASSERT_EQ(racetrack("convert " + shell_quote(text_) + " " + shell_quote(plain)).code, 0);
  ASSERT_EQ(racetrack("convert " + shell_quote(text_) + " " + shell_quote(packed) + " --compress").code, 0);
  EXPECT_THAT(codecs(plain), ::testing::Each(0));
  EXPECT_THAT(codecs(packed), ::testing::Each(1));
  EXPECT_FALSE(codecs(packed).empty());
  EXPECT_LT(fs::file_size(packed), fs::file_size(plain));
  EXPECT_TRUE(MessageDifferencer::Equals(load(plain), load(packed)));
  EXPECT_TRUE(MessageDifferencer::Equals(trace_, load(packed)));
  // Binary to binary recompresses.
  const std::string repacked = dir_.path("repacked.rtrace");
  ASSERT_EQ(racetrack("convert " + shell_quote(plain) + " " + shell_quote(repacked) + " --compress").code, 0);
  EXPECT_THAT(codecs(repacked), ::testing::Each(1));
  EXPECT_TRUE(MessageDifferencer::Equals(trace_, load(repacked)));
}

TEST_F(Cli, ConvertKeepsTheCompleteChunksOfATruncatedInput) {
  const std::string cut = dir_.path("cut.rtrace"), out = dir_.path("salvaged.rtrace");
  testing::write_bytes(cut, testing::read_bytes(binary_).substr(0, ends_[3] + 20));
  const CliRun run = racetrack("convert " + shell_quote(cut) + " " + shell_quote(out));
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err,
              AllOf(HasSubstr("offset " + std::to_string(ends_[3])), HasSubstr("kept the complete chunks")));
  const v1::Chunk salvaged = load(out);
  ASSERT_EQ(salvaged.ops_size(), 24);
  EXPECT_EQ(salvaged.ops(23).seq(), 24u);
  EXPECT_EQ(racetrack("validate " + shell_quote(out)).code, 0);
}

}  // namespace
}  // namespace racetrack
