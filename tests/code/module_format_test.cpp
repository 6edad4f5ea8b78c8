// The trace format's Module entity: SHA-256 naming, validation rules, the
// builder's once-per-content storage and a round trip through every
// encoding.
#include <gtest/gtest.h>

#include "racetrack/traces/builder.h"
#include "racetrack/traces/sha256.h"
#include "racetrack/traces/trace_io.h"
#include "racetrack/traces/validate.h"
#include "test_support.h"

namespace racetrack {
namespace {

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(Sha256::hex("", 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256::hex("abc", 3), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const std::string million(1000000, 'a');
  EXPECT_EQ(Sha256::hex(million.data(), million.size()),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Fed in pieces of awkward sizes, the same digest.
  Sha256 s;
  for (size_t at = 0; at < million.size(); at += 997)
    s.update(million.data() + at, std::min<size_t>(997, million.size() - at));
  const auto digest = s.finish();
  EXPECT_EQ(digest[0], 0xcd);
  EXPECT_EQ(digest[31], 0xd0);
  EXPECT_TRUE(is_sha256_hex(Sha256::hex("x", 1)));
  EXPECT_FALSE(is_sha256_hex(std::string(64, 'A')));
  EXPECT_FALSE(is_sha256_hex("abc"));
}

v1::Chunk trace_with_module(const std::string& image) {
  TraceBuilder b;
  const auto s = b.stream("compute", v1::ROLE_COMPUTE);
  const uint32_t m = b.module("lib.so", image);
  b.kernel(s, "k", {}, {});
  b.last_op().mutable_kernel()->set_module(m);
  return b.take();
}

std::vector<std::string> errors_of(const v1::Chunk& chunk) {
  Validator v;
  v.check(chunk, 0);
  std::vector<std::string> out;
  for (const auto& e : v.errors()) out.push_back(e.message);
  return out;
}

bool has_error(const v1::Chunk& chunk, const std::string& part) {
  for (const auto& e : errors_of(chunk))
    if (e.find(part) != std::string::npos) return true;
  return false;
}

TEST(ModuleFormat, ValidTraceRoundTripsInEveryEncoding) {
  const std::string image = std::string(
                                "\x7f"
                                "ELF",
                                4) +
                            std::string(100, '\x01');
  const v1::Chunk trace = trace_with_module(image);
  EXPECT_TRUE(errors_of(trace).empty()) << errors_of(trace).front();
  ASSERT_EQ(trace.modules_size(), 1);
  EXPECT_EQ(trace.modules(0).sha256(), Sha256::hex(image.data(), image.size()));
  testing::TempDir dir;
  for (const char* name : {"t.rtrace", "t.pbtxt", "t.json"}) {
    ASSERT_TRUE(save_trace(trace, dir.path(name)));
    auto back = load_trace(dir.path(name));
    ASSERT_TRUE(back) << back.error().describe();
    ASSERT_EQ(back->modules_size(), 1) << name;
    EXPECT_EQ(back->modules(0).image(), image) << name;
    EXPECT_EQ(back->ops(0).kernel().module(), 1u) << name;
  }
}

TEST(ModuleFormat, BuilderStoresEachContentOnce) {
  TraceBuilder b;
  EXPECT_EQ(b.module("a", "same bytes"), 1u);
  EXPECT_EQ(b.module("b", "same bytes"), 1u);
  EXPECT_EQ(b.module("c", "other bytes"), 2u);
  EXPECT_EQ(b.take().modules_size(), 2);
}

TEST(ModuleFormat, RulesAreEnforced) {
  v1::Chunk t = trace_with_module("image bytes");
  {
    v1::Chunk bad = t;
    bad.mutable_modules(0)->set_sha256(std::string(64, '0'));
    EXPECT_TRUE(has_error(bad, "does not hash to its sha256"));
  }
  {
    v1::Chunk bad = t;
    bad.mutable_modules(0)->set_sha256("xyz");
    EXPECT_TRUE(has_error(bad, "is not 64 lower-case hex digits"));
  }
  {
    v1::Chunk bad = t;
    *bad.add_modules() = bad.modules(0);
    bad.mutable_modules(1)->set_id(2);
    EXPECT_TRUE(has_error(bad, "repeats the content of an earlier module"));
  }
  {
    v1::Chunk bad = t;
    bad.mutable_modules(0)->set_id(3);
    EXPECT_TRUE(has_error(bad, "module 3 is out of order"));
  }
  {
    v1::Chunk bad = t;
    bad.mutable_ops(0)->mutable_kernel()->set_module(2);
    EXPECT_TRUE(has_error(bad, "names module 2, which is not defined"));
  }
  {
    v1::Chunk bad = t;
    bad.mutable_modules(0)->clear_image();
    EXPECT_TRUE(has_error(bad, "neither an image nor analysed functions"));
    auto* f = bad.mutable_modules(0)->add_functions();
    f->set_name(1);
    f->add_words(v1::WORD_READ);
    f->add_words(static_cast<v1::WordMode>(9));
    EXPECT_TRUE(has_error(bad, "has mode 9"));
    *bad.mutable_modules(0)->add_functions() = *f;
    EXPECT_TRUE(has_error(bad, "twice"));
    f->set_name(500);
    EXPECT_TRUE(has_error(bad, "function name names string 500"));
  }
}

}  // namespace
}  // namespace racetrack
