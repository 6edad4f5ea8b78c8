#include "racetrack/race/settle.h"

#include <cctype>

namespace racetrack::race {
namespace {

bool known_writer(const ResolvedAccess& a) {
  return a.writes && a.mode_known;
}

// The base name: no return type, template arguments, parameters or scope
// (an anonymous namespace is a scope).
std::string base_name(std::string_view full) {
  std::string name(full);
  for (const std::string_view anonymous : {"(anonymous namespace)", "{anonymous}"})
    for (size_t at; (at = name.find(anonymous)) != std::string::npos;) name.erase(at, anonymous.size());
  int depth = 0;
  size_t start = 0, end = name.size();
  for (size_t i = 0; i < name.size() && end == name.size(); ++i) {
    const char c = name[i];
    if (c == '<' || c == '(') {
      if (depth == 0) end = i;
      ++depth;
    } else if (depth == 0 && (c == ' ' || c == ':')) {
      start = i + 1;
    }
  }
  return start < end ? name.substr(start, end - start) : name;
}

std::string word_text(const ResolvedAccess& a) {
  return "argument word " + std::to_string(a.index + 1) + " (" + hex(a.anchor_lo) + ")";
}

const HazardSide* raw_kernel_side(const Hazard& h, bool want_unknown_mode) {
  for (const HazardSide* s : {&h.second, &h.first}) {
    const ResolvedAccess& a = s->access;
    if (!a.has_anchor || (want_unknown_mode && a.mode_known)) continue;
    return s;
  }
  return nullptr;
}

}  // namespace

std::string kernel_pattern(std::string_view name) {
  std::string out;
  for (char c : base_name(name)) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') out += '\\';
    out += c;
  }
  return out;
}

std::string settle_text(const Hazard& h, const TraceTables& t) {
  const bool writer = known_writer(h.first.access) || known_writer(h.second.access);
  if (!writer) {
    const HazardSide* k = raw_kernel_side(h, true);
    if (!k)
      return "read/write modes are unknown on both sides: capture with --torch, or give --kernel-modes rules "
             "for the kernels involved";
    const std::string name(t.string(k->name));
    const std::string word = std::to_string(k->access.index + 1);
    return "the kernel " + base_name(name) + " may only read through its " + word_text(k->access) +
           ": machine-code modes settle it (racetrack modes reads them from the kernel's code; it needs "
           "nvdisasm: install the CUDA toolkit or `pip install triton`), or a --kernel-modes rule such as `" +
           kernel_pattern(name) + " reads=" + word + "` (writes=" + word +
           " if it writes), or a capture with --torch when PyTorch launches it";
  }
  const HazardSide* k = raw_kernel_side(h, false);
  if (!k)
    return "the extents are not exact: tensor-level extents (capture with --torch, or annotate the buffers) "
           "would settle it";
  const std::string extent = k->access.precision == v1::PRECISION_INFERRED
                                 ? "a block inferred from the trace's pointers"
                                 : "a whole driver allocation";
  return "the kernel " + base_name(t.string(k->name)) + "'s " + word_text(k->access) +
         " points outside the bytes the other side touches, and its extent is only " + extent +
         ": exact extents settle it (a capture with --torch, or racetrack_kernel_reads/_writes annotations, "
         "docs/capture.md)";
}

}  // namespace racetrack::race
