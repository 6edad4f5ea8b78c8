#include "progress.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>

namespace racetrack::cli {
namespace {

constexpr std::chrono::milliseconds kDelay{500};

enum class Mode { kAuto, kAlways, kNever };

Mode mode_from_environment() {
  const char* v = std::getenv("RACETRACK_PROGRESS");
  const std::string value = v ? v : "";
  if (value == "always") return Mode::kAlways;
  if (value == "never") return Mode::kNever;
  return Mode::kAuto;
}

}  // namespace

ProgressLine::ProgressLine() : ProgressLine(std::cerr, false, kDelay) {
  const Mode mode = mode_from_environment();
  enabled_ = mode == Mode::kAlways || (mode == Mode::kAuto && isatty(STDERR_FILENO));
  if (mode == Mode::kAlways) show_from_ = std::chrono::steady_clock::now();
}

ProgressLine::ProgressLine(std::ostream& out, bool enabled, std::chrono::milliseconds delay)
    : out_(&out), enabled_(enabled), show_from_(std::chrono::steady_clock::now() + delay) {}

ProgressLine::~ProgressLine() {
  finish();
}

Progress ProgressLine::callback() {
  if (!enabled_) return {};
  return [this](std::string_view stage, uint64_t done, uint64_t total) { update(stage, done, total); };
}

void ProgressLine::update(std::string_view stage, uint64_t done, uint64_t total) {
  if (std::chrono::steady_clock::now() < show_from_) return;
  std::string text(stage);
  text += ": ";
  text += total ? std::to_string(done >= total ? 100 : done * 100 / total) + "%" : std::to_string(done);
  if (text == shown_) return;
  // Spaces over what is left of a longer previous text.
  const size_t pad = shown_.size() > text.size() ? shown_.size() - text.size() : 0;
  *out_ << '\r' << text << std::string(pad, ' ') << std::flush;
  shown_ = std::move(text);
}

void ProgressLine::finish() {
  if (shown_.empty()) return;
  *out_ << '\r' << std::string(shown_.size(), ' ') << '\r' << std::flush;
  shown_.clear();
}

}  // namespace racetrack::cli
