// check_output() and OutputFile: the rules every writing command relies on.
#include "racetrack/traces/output_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "racetrack/traces/container.h"
#include "test_support.h"

namespace racetrack {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;
namespace fs = std::filesystem;

TEST(CheckOutput, RefusesAnInputBySameNameLinkOrPath) {
  TempDir dir;
  const std::string in = dir.path("in.rtrace");
  testing::write_bytes(in, "data");
  fs::create_symlink(in, dir.path("sym"));
  fs::create_hard_link(in, dir.path("hard"));
  for (const std::string& out : {in, dir.path("sym"), dir.path("hard"), dir.path("./in.rtrace")}) {
    auto s = check_output(out, {in});
    ASSERT_FALSE(s.ok()) << out;
    EXPECT_THAT(s.error().describe(), HasSubstr("refusing to overwrite an input")) << out;
  }
  EXPECT_TRUE(check_output(dir.path("other"), {in}).ok());
  // Two outputs of one command that would be the same file, before either exists.
  EXPECT_FALSE(check_output(dir.path("a.json"), {dir.path("sub/../a.json")}).ok());
}

TEST(CheckOutput, RefusesDirectoriesAndMissingOrReadOnlyDirectories) {
  TempDir dir;
  EXPECT_THAT(check_output(dir.root().string(), {}).error().message, HasSubstr("is a directory"));
  EXPECT_THAT(check_output(dir.path("no/x"), {}).error().message, HasSubstr("does not exist"));
  if (::geteuid() != 0) {  // root writes anywhere
    fs::create_directory(dir.path("ro"));
    ::chmod(dir.path("ro").c_str(), 0555);
    EXPECT_THAT(check_output(dir.path("ro/x"), {}).error().message, HasSubstr("not writable"));
  }
}

TEST(OutputFile, AppearsOnlyWhenCommittedAndLeavesNothingOtherwise) {
  TempDir dir;
  const std::string out = dir.path("out.txt");
  testing::write_bytes(out, "old");
  {
    auto file = OutputFile::create(out);
    ASSERT_TRUE(file.ok());
    testing::write_bytes(file->temp_path(), "new");
    EXPECT_EQ(testing::read_bytes(out), "old");
  }  // abandoned
  EXPECT_EQ(testing::read_bytes(out), "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.root()), fs::directory_iterator()), 1);
  ASSERT_TRUE(write_file_atomically(out, "new").ok());
  EXPECT_EQ(testing::read_bytes(out), "new");
  struct stat st {};
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_NE(st.st_mode & 0044, 0u) << "readable like a plainly created file, not 0600";
}

// An exit that skips destructors (the out-of-memory stop) removes the
// temporary files of outputs not yet committed, and only those.
TEST(OutputFile, UncommittedOutputsAreRemovedWithoutTheirDestructors) {
  TempDir dir;
  auto committed = OutputFile::create(dir.path("a.txt"));
  auto pending = OutputFile::create(dir.path("b.txt"));
  auto moved_from = OutputFile::create(dir.path("c.txt"));
  ASSERT_TRUE(committed.ok() && pending.ok() && moved_from.ok());
  OutputFile moved = std::move(*moved_from);
  testing::write_bytes(committed->temp_path(), "a");
  testing::write_bytes(pending->temp_path(), "b");
  ASSERT_TRUE(committed->commit().ok());
  remove_uncommitted_outputs();
  EXPECT_EQ(testing::read_bytes(dir.path("a.txt")), "a");
  EXPECT_FALSE(fs::exists(pending->temp_path()));
  EXPECT_FALSE(fs::exists(moved.temp_path()));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.root()), fs::directory_iterator()), 1);
}

TEST(OutputFile, ATraceWriterNotClosedLeavesTheOldFile) {
  TempDir dir;
  const std::string out = dir.path("t.rtrace");
  testing::write_bytes(out, "old");
  {
    auto writer = TraceWriter::create(out);
    ASSERT_TRUE(writer.ok());
    writer->pending().mutable_header()->set_format_version(kFormatVersion);
    ASSERT_TRUE(writer->flush().ok());
  }
  EXPECT_EQ(testing::read_bytes(out), "old");
  WriterOptions in_place;
  in_place.in_place = true;
  {
    auto writer = TraceWriter::create(out, in_place);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(writer->flush().ok());
    EXPECT_EQ(testing::read_bytes(out).substr(0, 6), "RTRACE") << "a capture's chunks are on disk as written";
  }
}

}  // namespace
}  // namespace racetrack
