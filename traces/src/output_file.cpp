#include "racetrack/traces/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace racetrack {
namespace {

namespace fs = std::filesystem;

std::string directory_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

mode_t current_umask() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

Error names_input(const std::string& output, const std::string& input) {
  return Error{"is the input " + input + " (the same file" +
                   (input == output ? std::string() : std::string(", through a link or another path")) +
                   "); refusing to overwrite an input: write to another file",
               {},
               output};
}

// Temporary files not yet committed, for remove_uncommitted_outputs():
// fixed slots, so removing them allocates nothing.
struct Pending {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 holds a path
  char path[4096];
};
std::array<Pending, 64> g_pending;

void note_pending(const std::string& temp) {
  if (temp.size() >= sizeof g_pending[0].path) return;
  for (Pending& p : g_pending) {
    int free = 0;
    if (!p.state.compare_exchange_strong(free, 1)) continue;
    std::memcpy(p.path, temp.c_str(), temp.size() + 1);
    p.state.store(2);
    return;
  }
}

void forget_pending(const std::string& temp) {
  for (Pending& p : g_pending)
    if (p.state.load() == 2 && temp == p.path) {
      p.state.store(0);
      return;
    }
}

}  // namespace

void remove_uncommitted_outputs() {
  for (Pending& p : g_pending)
    if (p.state.load() == 2) ::unlink(p.path);
}

Status check_output(const std::string& output, const std::vector<std::string>& inputs) {
  if (output.empty()) return Error{"empty output path", {}, output};
  // Paths first, so inputs that do not exist yet (another output of the
  // same command) are told apart too.
  std::error_code ec;
  const fs::path out_path = fs::weakly_canonical(output, ec);
  for (const std::string& input : inputs) {
    std::error_code in_ec;
    if (!input.empty() && !ec && fs::weakly_canonical(input, in_ec) == out_path && !in_ec)
      return names_input(output, input);
  }
  struct stat out_stat {};
  if (::stat(output.c_str(), &out_stat) == 0) {
    if (S_ISDIR(out_stat.st_mode)) return Error{"is a directory, not a file to write", {}, output};
    for (const std::string& input : inputs) {
      struct stat in_stat {};
      if (::stat(input.c_str(), &in_stat) == 0 && in_stat.st_dev == out_stat.st_dev &&
          in_stat.st_ino == out_stat.st_ino)
        return names_input(output, input);
    }
  }
  const std::string dir = directory_of(output);
  struct stat dir_stat {};
  if (::stat(dir.c_str(), &dir_stat) != 0 || !S_ISDIR(dir_stat.st_mode))
    return Error{"cannot write: directory " + dir + " does not exist", {}, output};
  if (::access(dir.c_str(), W_OK) != 0)
    return Error{
        "cannot write: directory " + dir + " is not writable (" + std::strerror(errno) + ")", {}, output};
  return Ok{};
}

Result<OutputFile> OutputFile::create(const std::string& path) {
  const fs::path target(path);
  std::string temp =
      (fs::path(directory_of(path)) / ("." + target.filename().string() + ".racetrack-XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0)
    return Error{"cannot create a temporary file beside it: " + std::string(std::strerror(errno)), {}, path};
  ::fchmod(fd, 0666 & ~current_umask());
  ::close(fd);
  note_pending(temp);
  return OutputFile(path, std::move(temp));
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)), temp_(std::move(other.temp_)), done_(other.done_) {
  other.done_ = true;
}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
  if (this != &other) {
    if (!done_) {
      ::unlink(temp_.c_str());
      forget_pending(temp_);
    }
    path_ = std::move(other.path_);
    temp_ = std::move(other.temp_);
    done_ = other.done_;
    other.done_ = true;
  }
  return *this;
}

OutputFile::~OutputFile() {
  if (done_) return;
  ::unlink(temp_.c_str());
  forget_pending(temp_);
}

Status OutputFile::commit() {
  if (done_) return Error{"already committed", {}, path_};
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    return Error{"cannot move the finished output into place: " + why, {}, path_};
  }
  done_ = true;
  forget_pending(temp_);
  return Ok{};
}

Status write_file_atomically(const std::string& path, const std::string& bytes) {
  auto out = OutputFile::create(path);
  if (!out) return out.error();
  std::FILE* f = std::fopen(out->temp_path().c_str(), "wb");
  if (!f) return Error{"cannot write: " + std::string(std::strerror(errno)), {}, path};
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  if (std::fclose(f) != 0 || !written)
    return Error{"write failed: " + std::string(std::strerror(errno)), {}, path};
  return out->commit();
}

}  // namespace racetrack
