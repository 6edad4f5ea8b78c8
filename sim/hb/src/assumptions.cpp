#include "racetrack/hb/assumptions.h"

namespace racetrack::hb {
namespace {

// Each assumption's two spellings (the default's first) and its field.
struct Setting {
  AssumptionInfo info;
  std::string_view if_true, if_false;
  bool Assumptions::*field;
};

const std::vector<Setting>& settings() {
  static const std::vector<Setting> kSettings = {
      {{"pageable-async-d2h", "sync|async",
        "cudaMemcpyAsync from device to pageable host memory returns once the copy is done (sync) or "
        "at once (async)"},
       "sync",
       "async",
       &Assumptions::pageable_async_d2h_sync},
      {{"pageable-async-h2d", "staged|async",
        "cudaMemcpyAsync from pageable host memory to device waits for the stream's earlier work and "
        "reads its source before returning (staged), or neither (async)"},
       "staged",
       "async",
       &Assumptions::pageable_async_h2d_staged},
      {{"free-syncs", "yes|no",
        "cudaFree / cudaFreeHost of memory not from a pool waits for every stream (yes) or for nothing "
        "(no)"},
       "yes",
       "no",
       &Assumptions::free_syncs},
      {{"alloc-syncs", "no|yes",
        "cudaMalloc, cudaMallocHost / cudaHostAlloc and cudaHostRegister wait for nothing (no) or for "
        "every stream (yes)"},
       "yes",
       "no",
       &Assumptions::alloc_syncs},
  };
  return kSettings;
}

}  // namespace

const std::vector<AssumptionInfo>& assumption_list() {
  static const std::vector<AssumptionInfo> kList = [] {
    std::vector<AssumptionInfo> out;
    for (const Setting& s : settings()) out.push_back(s.info);
    return out;
  }();
  return kList;
}

Status apply_assumption(std::string_view setting, Assumptions& a) {
  const size_t eq = setting.find('=');
  const std::string_view name = setting.substr(0, eq);
  std::string known;
  for (const Setting& s : settings()) {
    known += (known.empty() ? "" : ", ") + std::string(s.info.name) + "=" + std::string(s.info.values);
    if (s.info.name != name) continue;
    if (eq == std::string_view::npos)
      return make_error("--assume " + std::string(setting) + ": give a value, " + std::string(name) + "=" +
                        std::string(s.info.values));
    const std::string_view value = setting.substr(eq + 1);
    if (value == s.if_true) {
      a.*s.field = true;
    } else if (value == s.if_false) {
      a.*s.field = false;
    } else {
      return make_error("--assume " + std::string(setting) + ": " + std::string(name) + " is one of " +
                        std::string(s.info.values));
    }
    return Ok{};
  }
  return make_error("--assume " + std::string(setting) + ": no assumption is called '" + std::string(name) +
                    "' (known: " + known + ")");
}

std::vector<std::string> describe(const Assumptions& a) {
  std::vector<std::string> out;
  for (const Setting& s : settings())
    out.push_back(std::string(s.info.name) + "=" + std::string(a.*s.field ? s.if_true : s.if_false));
  return out;
}

}  // namespace racetrack::hb
