#include "capture_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

namespace racetrack::capture {
namespace {

GetEnv env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(CaptureConfig, DefaultsWithAnEmptyEnvironment) {
  auto config = config_from_env(env_of({}));
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->mode, CaptureMode::kFull);
  EXPECT_EQ(config->output_pattern, "racetrack-%p.rtrace");
  EXPECT_TRUE(config->nvtx);
  EXPECT_EQ(config->rank, -1);
  EXPECT_TRUE(config->code);
  EXPECT_EQ(config->max_module_bytes, 256u << 20);
}

TEST(CaptureConfig, ReadsEveryVariable) {
  auto config = config_from_env(env_of({{"RACETRACK_CAPTURE_OUTPUT", "/tmp/x.rtrace"},
                                        {"RACETRACK_CAPTURE_MODE", "activity"},
                                        {"RACETRACK_CAPTURE_NVTX", "0"},
                                        {"RACETRACK_CAPTURE_FLUSH_MS", "250"},
                                        {"RACETRACK_CAPTURE_INDEX", "/tmp/index"},
                                        {"RACETRACK_CAPTURE_CODE", "0"},
                                        {"RACETRACK_CAPTURE_MAX_MODULE_BYTES", "4096"},
                                        {"SLURM_PROCID", "7"}}));
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->mode, CaptureMode::kActivityOnly);
  EXPECT_EQ(config->output_pattern, "/tmp/x.rtrace");
  EXPECT_FALSE(config->nvtx);
  EXPECT_EQ(config->flush_period_ms, 250);
  EXPECT_EQ(config->index_path, "/tmp/index");
  EXPECT_EQ(config->rank, 7);
  EXPECT_FALSE(config->code);
  EXPECT_EQ(config->max_module_bytes, 4096u);
}

TEST(CaptureConfig, TorchrunRankWinsOverSlurm) {
  auto config = config_from_env(env_of({{"RANK", "3"}, {"SLURM_PROCID", "9"}}));
  ASSERT_TRUE(config);
  EXPECT_EQ(config->rank, 3);
}

TEST(CaptureConfig, BadValuesNameTheVariable) {
  auto mode = config_from_env(env_of({{"RACETRACK_CAPTURE_MODE", "fast"}}));
  ASSERT_FALSE(mode);
  EXPECT_NE(mode.error().message.find("RACETRACK_CAPTURE_MODE=fast"), std::string::npos);
  auto flush = config_from_env(env_of({{"RACETRACK_CAPTURE_FLUSH_MS", "5x"}}));
  ASSERT_FALSE(flush);
  EXPECT_NE(flush.error().message.find("RACETRACK_CAPTURE_FLUSH_MS"), std::string::npos);
  EXPECT_FALSE(config_from_env(env_of({{"RANK", "-1"}})));
  auto cap = config_from_env(env_of({{"RACETRACK_CAPTURE_MAX_MODULE_BYTES", "-5"}}));
  ASSERT_FALSE(cap);
  EXPECT_NE(cap.error().message.find("RACETRACK_CAPTURE_MAX_MODULE_BYTES=-5"), std::string::npos);
  EXPECT_FALSE(config_from_env(env_of({{"RACETRACK_CAPTURE_CODE", "yes"}})));
}

TEST(CaptureConfig, ExpandsPidAndRank) {
  EXPECT_EQ(expand_output_path("trace-%p.rtrace", 42, -1), "trace-42.rtrace");
  EXPECT_EQ(expand_output_path("trace-%p-%r.rtrace", 42, 5), "trace-42-5.rtrace");
  EXPECT_EQ(expand_output_path("out.rtrace", 42, 5), "out.rank5.rtrace");
  EXPECT_EQ(expand_output_path("dir.d/out", 42, 2), "dir.d/out.rank2");
  EXPECT_EQ(expand_output_path("100%", 42, -1), "100%");
}

TEST(CaptureConfig, SecondProcessGetsItsOwnFile) {
  const std::string dir = std::string(RACETRACK_TEST_TMPDIR) + "/capture_config";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto first = claim_output(dir + "/t.rtrace", 100);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->path, dir + "/t.rtrace");
  auto second = claim_output(dir + "/t.rtrace", 200);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->path, dir + "/t.200.rtrace");
  ::close(first->fd);
  ::close(second->fd);
  auto missing_dir = claim_output(dir + "/no/such/dir/t.rtrace", 1);
  ASSERT_FALSE(missing_dir);
  EXPECT_NE(missing_dir.error().message.find("cannot create"), std::string::npos);
}

}  // namespace
}  // namespace racetrack::capture
