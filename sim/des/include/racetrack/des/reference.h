// The sequential reference of value tracking (values.h): every op reads,
// then writes, in submission order. Computed once per program and shared by
// every run that is compared with it (sim's demonstrations and what-ifs,
// replay's read checks).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "racetrack/des/program.h"
#include "racetrack/des/version_map.h"
#include "racetrack/traces/spill_array.h"

namespace racetrack::des {

class SequentialReference {
 public:
  explicit SequentialReference(const Program& program);

  // What a read access (an index into Program::accesses) should see.
  std::pair<const ExpectedWriter*, const ExpectedWriter*> expected(uint32_t access) const {
    return {expected_.data() + expected_begin_[access], expected_.data() + expected_begin_[access + 1]};
  }
  // What an external access (an index into Program::externals) reads.
  std::pair<const ExpectedWriter*, const ExpectedWriter*> expected_external(uint32_t k) const {
    return {external_expected_.data() + external_begin_[k],
            external_expected_.data() + external_begin_[k + 1]};
  }
  // Memory as the sequential run leaves it.
  const VersionSpaces& final_memory() const { return final_; }

 private:
  // A freed region's bytes of its own, as it left them, copied into its
  // retired space.
  void retire(const Retirement& r, std::vector<ExpectedWriter>& scratch);

  VersionSpaces final_;
  SpillArray<ExpectedWriter> expected_;            // per read access, in order
  SpillArray<uint32_t> expected_begin_;            // by access index: first entry in expected_
  std::vector<ExpectedWriter> external_expected_;  // per external read, by external index
  std::vector<uint32_t> external_begin_;
};

}  // namespace racetrack::des
