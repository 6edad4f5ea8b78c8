// Writing an output without ever losing an input. Every command that writes
// a file first calls check_output() with its inputs (an output that is one of
// them, also through a symlink or a hard link, is refused), and writes
// through an OutputFile: a temporary file in the same directory, renamed over
// the output only once it is complete, so a failed or killed write leaves the
// old file (or none) and never a torn one.
#pragma once

#include <string>
#include <vector>

#include "racetrack/traces/result.h"

namespace racetrack {

// Refuses `output` when it is one of `inputs` (same device and inode), when
// it is a directory, or when its directory is missing or not writable.
// Cheap: call it before doing the work, so a bad output fails at once.
Status check_output(const std::string& output, const std::vector<std::string>& inputs);

class OutputFile {
 public:
  // Creates the temporary file beside `path` (mode 0666 less the umask, as a
  // plain open would give).
  static Result<OutputFile> create(const std::string& path);
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&& other) noexcept;
  ~OutputFile();  // removes the temporary file unless committed

  // Where to write; open it by name.
  const std::string& temp_path() const { return temp_; }
  const std::string& path() const { return path_; }
  // Renames the temporary file over `path`.
  Status commit();

 private:
  OutputFile(std::string path, std::string temp) : path_(std::move(path)), temp_(std::move(temp)) {}
  std::string path_, temp_;
  bool done_ = false;
};

// Removes the temporary file of every OutputFile not yet committed, for an
// exit that skips their destructors (the out-of-memory stop). Allocates
// nothing.
void remove_uncommitted_outputs();

// Writes `bytes` to `path` through an OutputFile.
Status write_file_atomically(const std::string& path, const std::string& bytes);

}  // namespace racetrack
