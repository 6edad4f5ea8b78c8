// The values record racetrack_torch writes (capture/python/racetrack_torch/
// values.py, docs/diff.md): one record per operator, in the order they ran,
// with a digest of each input and output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "racetrack/traces/result.h"

namespace racetrack::diverge {

struct Digest {
  std::string hash;  // 16 hex digits over the tensor's bytes
  std::string dtype;
  uint64_t numel = 0;
  double sum = 0, absmax = 0;  // over the finite values
  uint64_t nan = 0, inf = 0;
};

struct ValueRecord {
  uint64_t seq = 0;
  std::string phase;   // forward, backward, recompute, optimizer
  std::string module;  // "model.layers.0.mlp", "" outside modules
  std::string op;      // "aten::addmm", or "grad" for a parameter's .grad
  std::string param;   // for "grad": the parameter's name
  uint64_t n = 0;      // occurrence of (phase, module, op, param) so far
  std::vector<std::string> stack;
  int64_t time_ns = 0;  // CLOCK_REALTIME when it ran (0: not recorded), a capture's host clock
  uint64_t thread = 0;  // native thread id
  std::vector<Digest> in, out;
  size_t line = 0;  // in its file, for messages
};

struct ValuesRecord {
  std::string torch_version;
  std::vector<ValueRecord> records;
};

// Reads a record file; a bad line is an error naming the line and field.
Result<ValuesRecord> read_values(const std::string& path);

}  // namespace racetrack::diverge
