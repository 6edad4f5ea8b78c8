#include "export_nvtx.h"

#include <algorithm>
#include <map>

namespace racetrack::exporting {

const std::vector<std::string>& NvtxRanges::components(uint32_t path, const TraceTables& tables) {
  auto [it, added] = components_.try_emplace(path);
  if (added) {
    const std::string_view text = tables.string(path);
    for (size_t at = 0; at <= text.size();) {
      const size_t slash = std::min(text.find('/', at), text.size());
      if (slash > at) it->second.emplace_back(text.substr(at, slash - at));
      at = slash + 1;
    }
  }
  return it->second;
}

void NvtxRanges::close_to(Thread& t, uint32_t thread, size_t depth, NvtxChanges& changes) {
  while (t.open.size() > depth) {
    const int64_t end = t.open.back().end_ns;
    t.open.pop_back();
    if (t.open.empty()) {
      t.closed_end = end;
    } else {
      Open& parent = t.open.back();
      parent.children_end = end;
      parent.end_ns = std::max(parent.end_ns, end);
    }
    changes.closed.push_back({thread, end});
  }
}

void NvtxRanges::add(const v1::Op& op, const TraceTables& tables, NvtxChanges& changes) {
  Thread& t = threads_[op.thread()];
  const int64_t start = std::max<int64_t>(op.host_start(), 0);
  const int64_t end = std::max(op.host_end(), start);
  if (op.nvtx() != t.path) {
    static const std::vector<std::string> kNone;
    const std::vector<std::string>& parts = op.nvtx() ? components(op.nvtx(), tables) : kNone;
    size_t same = 0;
    while (same < t.open.size() && same < parts.size() && t.open[same].name == parts[same]) ++same;
    close_to(t, op.thread(), same, changes);
    std::string path;
    for (size_t depth = 0; depth < parts.size(); ++depth) {
      path += (depth ? "/" : "") + parts[depth];
      if (depth < same) continue;
      // After the sibling before it, so that ranges nest strictly even when
      // the ops' host times overlap.
      const Open* parent = depth ? &t.open.back() : nullptr;
      const int64_t floor = parent ? std::max(parent->children_end, parent->start_ns) : t.closed_end;
      Open o;
      o.name = parts[depth];
      o.start_ns = o.end_ns = o.children_end = std::max(start, floor);
      changes.opened.push_back({op.thread(), o.start_ns, o.name, path, op.seq()});
      t.open.push_back(std::move(o));
    }
    t.path = op.nvtx();
  }
  for (Open& o : t.open) o.end_ns = std::max(o.end_ns, end);
}

void NvtxRanges::finish(NvtxChanges& changes) {
  std::map<uint32_t, Thread*> by_id;  // a fixed order: the output is deterministic
  for (auto& [id, t] : threads_) by_id[id] = &t;
  for (const auto& [id, t] : by_id) {
    close_to(*t, id, 0, changes);
    t->path = 0;
  }
}

}  // namespace racetrack::exporting
