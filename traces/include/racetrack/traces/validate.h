// Checks that a trace obeys the format's rules (docs/trace-format.md):
// header first, dense entity ids, every reference defined, strictly
// increasing seq, sane times and ranges. Works as a stream over chunks.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "racetrack/traces/tables.h"

namespace racetrack {

class Validator {
 public:
  explicit Validator(size_t max_errors = 100);

  // `offset` is where the chunk starts in its file (for messages).
  void check(const v1::Chunk& chunk, uint64_t offset);

  const std::vector<Error>& errors() const { return errors_; }
  // Errors past max_errors are counted, not stored.
  uint64_t error_count() const { return error_count_; }
  uint64_t ops_seen() const { return ops_; }

 private:
  void report(std::string message);
  void check_entities(const v1::Chunk& chunk);
  void check_op(const v1::Op& op);
  void check_access(const v1::Op& op, const v1::Access& a);
  void check_copy(const v1::Op& op, const v1::Memcpy& c, std::string_view where);
  void check_memset(const v1::Op& op, const v1::Memset& m, std::string_view where);
  // `where` (a graph node, or empty) and `what` name the range in a message.
  void check_range(const v1::Op& op, std::string_view where, const char* what, uint64_t address,
                   uint64_t size);
  // Inline, with the message built out of line: most ops check two or three.
  bool check_ref(const v1::Op& op, const char* what, uint32_t id, size_t count) {
    if (id != 0 && id <= count) return true;
    report_bad_ref(op, what, id);
    return false;
  }
  [[gnu::cold, gnu::noinline]] void report_bad_ref(const v1::Op& op, const char* what, uint32_t id);
  // `name()` says what holds the id; it is called only for an undefined id,
  // so valid traces build no message (it was a third of validation's time).
  template <typename Name>
  void check_string(uint32_t id, const Name& name);
  void check_modules(const v1::Chunk& chunk);
  void check_values(const v1::Chunk& chunk);

  // Strings, streams, events and threads; regions are kept below, as the
  // two facts validation needs, so memory stays small over a long trace.
  TraceTables tables_;
  std::vector<Error> errors_;
  uint64_t error_count_ = 0;
  size_t max_errors_;
  uint64_t offset_ = 0;
  uint64_t chunks_ = 0;
  uint64_t ops_ = 0;
  uint64_t last_seq_ = 0;
  bool any_op_ = false;
  std::vector<uint64_t> region_size_;  // by region id (0: none)
  std::vector<uint8_t> region_state_;  // 0 unseen, 1 allocated, 2 freed
  uint32_t modules_ = 0;                  // defined so far
  uint64_t values_ = 0;                   // operator values seen so far (their seqs are dense)
  std::set<std::string> module_hashes_;   // a module is stored once per content hash
  std::set<uint32_t> capturing_;          // streams between a capture's BEGIN and END
  std::map<uint64_t, uint64_t> capture_ends_;  // END op seq -> its graph id (0 = unknown)
};

struct ValidationReport {
  std::vector<Error> errors;  // empty when valid
  uint64_t error_count = 0;
  uint64_t ops = 0;
  uint64_t chunks = 0;
};

// Validates a file of any encoding. A read failure (truncation, corruption)
// is reported as one more error after those found in the complete chunks.
ValidationReport validate_file(const std::string& path, size_t max_errors = 100);

}  // namespace racetrack
