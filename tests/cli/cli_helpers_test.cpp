// The command line's small helpers on their own: strict number parsing,
// "did you mean", readable durations and the progress line.
#include <gtest/gtest.h>

#include <sstream>

#include "closest_match.h"
#include "numbers.h"
#include "progress.h"
#include "trace_stats.h"

namespace racetrack::cli {
namespace {

TEST(ParseNumber, UnsignedRefusesSignsGarbageAndOverflow) {
  uint64_t v = 0;
  EXPECT_EQ(parse_number("42", v), "");
  EXPECT_EQ(v, 42u);
  EXPECT_EQ(parse_number("+7", v), "");
  EXPECT_EQ(v, 7u);
  EXPECT_EQ(parse_number("010", v), "");
  EXPECT_EQ(v, 10u) << "decimal, not octal";
  EXPECT_EQ(parse_number("0x1f", v), "");
  EXPECT_EQ(v, 31u);
  EXPECT_EQ(parse_number("18446744073709551615", v), "");
  EXPECT_EQ(v, UINT64_MAX);
  EXPECT_EQ(parse_number("-1", v), "'-1' is negative; expected a whole number from 0");
  EXPECT_EQ(parse_number("18446744073709551616", v),
            "'18446744073709551616' is out of range (0 to 18446744073709551615)");
  EXPECT_EQ(parse_number("", v), "'' is not a whole number");
  EXPECT_EQ(parse_number("12abc", v), "'12abc' is not a whole number");
  EXPECT_EQ(parse_number("1e3", v), "'1e3' is not a whole number");
  uint32_t small = 0;
  EXPECT_EQ(parse_number("4294967296", small), "'4294967296' is out of range (0 to 4294967295)");
}

TEST(ParseNumber, SignedAndFloatingPoint) {
  int64_t i = 0;
  EXPECT_EQ(parse_number("-5", i), "");
  EXPECT_EQ(i, -5);
  EXPECT_NE(parse_number("9223372036854775808", i), "");
  double d = 0;
  EXPECT_EQ(parse_number("2.5", d), "");
  EXPECT_EQ(d, 2.5);
  EXPECT_EQ(parse_number("1e-3", d), "");
  EXPECT_EQ(d, 1e-3);
  EXPECT_EQ(parse_number("nan", d), "'nan' is not a finite number");
  EXPECT_EQ(parse_number("inf", d), "'inf' is not a finite number");
  EXPECT_EQ(parse_number("1e999", d), "'1e999' is not a finite number");
  EXPECT_EQ(parse_number("2.5x", d), "'2.5x' is not a number");
}

TEST(ClosestMatch, SuggestsOnlyNearMisses) {
  const std::vector<std::string> commands{"info", "check", "sim", "replay", "validate"};
  EXPECT_EQ(closest_match("chek", commands), "check");
  EXPECT_EQ(closest_match("cehck", commands), "check") << "a swap is one edit";
  EXPECT_EQ(closest_match("valdiate", commands), "validate");
  EXPECT_EQ(closest_match("replyy", commands), "replay");
  EXPECT_EQ(closest_match("sm", commands), "sim");
  EXPECT_EQ(closest_match("frobnicate", commands), std::nullopt);
  EXPECT_EQ(closest_match("chxyz", commands), std::nullopt);
}

TEST(FormatDuration, ThreeDigitsInTheUnitThatFits) {
  EXPECT_EQ(format_duration(0), "0 ns");
  EXPECT_EQ(format_duration(812), "812 ns");
  EXPECT_EQ(format_duration(30'500), "30.5 \u00b5s");
  EXPECT_EQ(format_duration(1'234'567), "1.23 ms");
  EXPECT_EQ(format_duration(999'700), "1.00 ms") << "not 1000 \u00b5s";
  EXPECT_EQ(format_duration(6'582'970'000), "6.58 s");
  EXPECT_EQ(format_duration(123'456'000'000), "123 s");
}

TEST(ProgressLine, DisabledGivesNoCallback) {
  std::ostringstream out;
  ProgressLine line(out, false, std::chrono::milliseconds(0));
  EXPECT_FALSE(line.callback());
  line.finish();
  EXPECT_EQ(out.str(), "");
}

TEST(ProgressLine, ShortWorkShowsNothing) {
  std::ostringstream out;
  {
    ProgressLine line(out, true, std::chrono::hours(1));
    const Progress p = line.callback();
    ASSERT_TRUE(p);
    p("checking", 50, 100);
    p("checking", 100, 100);
  }
  EXPECT_EQ(out.str(), "");
}

TEST(ProgressLine, RedrawsOneLineAndWipesItAtTheEnd) {
  std::ostringstream out;
  {
    ProgressLine line(out, true, std::chrono::milliseconds(0));
    const Progress p = line.callback();
    p("verifying fixes", 1, 3);
    p("verifying fixes", 1, 3);  // the same text: not drawn again
    p("verifying fixes", 3, 3);
    p("checking", 7, 0);  // no total: a count; shorter, so padded over the old text
  }
  EXPECT_EQ(out.str(), "\rverifying fixes: 33%\rverifying fixes: 100%\rchecking: 7" + std::string(10, ' ') +
                           "\r" + std::string(11, ' ') + "\r");
}

}  // namespace
}  // namespace racetrack::cli
