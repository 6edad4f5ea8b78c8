// Errors as values: every library call that can fail on bad input returns a
// Result<T> (or Status) carrying what went wrong and where.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace racetrack {

struct Error {
  std::string message;
  std::optional<uint64_t> offset;  // byte offset in the file, when known
  std::string file;                // filled in by whoever knows the path

  // "file: offset N: message", the form the CLI prints.
  std::string describe() const {
    std::string out = file.empty() ? std::string() : file + ": ";
    if (offset) out += "offset " + std::to_string(*offset) + ": ";
    return out + message;
  }
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(state_); }
  const T& value() const { return std::get<0>(state_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(state_); }
  Error& error() { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

struct Ok {};
using Status = Result<Ok>;

inline Error make_error(std::string message, std::optional<uint64_t> offset = std::nullopt) {
  return Error{std::move(message), offset, {}};
}

}  // namespace racetrack
