// Numbers on the command line, parsed as what they are. CLI11 reads "-1"
// into an unsigned option as 2^64 - 1, "010" as octal 8, and lets overflow
// and "nan" through; every numeric argument of every subcommand goes through
// `add_number` (or `parse_number` for parts of a spec like "C3:2"), which
// rejects those with a message naming the argument.
#pragma once

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

namespace racetrack::cli {

// Parses `text` as a T: integers in decimal (or 0x hex), no sign for
// unsigned types, within T's range; floating point finite. Returns why
// `text` is not one (empty on success, `value` then holds it).
template <typename T>
std::string parse_number(std::string_view text, T& value) {
  const std::string quoted = "'" + std::string(text) + "'";
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  if constexpr (std::is_floating_point_v<T>) {
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || ec == std::errc::invalid_argument || end != digits.data() + digits.size())
      return quoted + " is not a number";
    if (ec == std::errc::result_out_of_range || !std::isfinite(value))
      return quoted + " is not a finite number";
  } else {
    static_assert(std::is_integral_v<T>);
    if (std::is_unsigned_v<T> && !digits.empty() && digits.front() == '-')
      return quoted + " is negative; expected a whole number from 0";
    int base = 10;
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
      digits.remove_prefix(2);
      base = 16;
    }
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
    if (digits.empty() || ec == std::errc::invalid_argument || end != digits.data() + digits.size())
      return quoted + " is not a whole number";
    if (ec == std::errc::result_out_of_range)
      return quoted + " is out of range (" + std::to_string(std::numeric_limits<T>::min()) + " to " +
             std::to_string(std::numeric_limits<T>::max()) + ")";
  }
  return {};
}

// A CLI11 transform that rejects what `parse_number` rejects and hands
// CLI11 the number in a spelling its own conversion reads the same way.
template <typename T>
CLI::Validator number_validator() {
  return CLI::Validator(
      [](std::string& text) {
        T value{};
        std::string why = parse_number(text, value);
        if (why.empty()) {
          if constexpr (std::is_floating_point_v<T>) {
            char buffer[64];
            const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
            text.assign(buffer, end);
          } else {
            text = std::to_string(value);
          }
        }
        return why;
      },
      "");
}

// A check for quantities that must be above zero (bandwidths).
inline CLI::Validator above_zero() {
  return CLI::Validator(
      [](std::string& text) {
        double value = 0;
        return parse_number(text, value).empty() && value > 0 ? std::string()
                                                              : "'" + text + "' must be above 0";
      },
      "");
}

template <typename T>
CLI::Option* add_number(CLI::App* cmd, std::string name, T& value, std::string help) {
  return cmd->add_option(std::move(name), value, std::move(help))->transform(number_validator<T>());
}

}  // namespace racetrack::cli
