#include "racetrack/race/access.h"

#include <algorithm>
#include <sstream>

#include "racetrack/race/code_modes.h"
#include "racetrack/race/collectives.h"

namespace racetrack::race {
namespace {

bool is_host(v1::AddressSpace s) {
  return s == v1::SPACE_PINNED_HOST || s == v1::SPACE_PAGEABLE_HOST;
}

void set_mode(ResolvedAccess& r, v1::AccessMode mode) {
  r.mode_known = mode != v1::MODE_UNKNOWN;
  r.mode_source = r.mode_known ? ModeSource::kRecorded : ModeSource::kUnknown;
  r.reads = mode != v1::MODE_WRITE;
  r.writes = mode != v1::MODE_READ;
}

std::vector<uint32_t> parse_indices(const std::string& list, bool& ok) {
  std::vector<uint32_t> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      const unsigned long v = std::stoul(item);
      if (v == 0) ok = false;
      out.push_back(static_cast<uint32_t>(v));
    } catch (const std::exception&) {
      ok = false;
    }
  }
  return out;
}

}  // namespace

SpaceKey space_key(v1::AddressSpace space, uint32_t device) {
  return is_host(space) ? kHostSpace : device_space(device);
}

const char* mode_source_name(ModeSource source) {
  switch (source) {
    case ModeSource::kRecorded: return "recorded";
    case ModeSource::kMachineCode: return "machine-code";
    case ModeSource::kRule: return "rule";
    default: return "unknown";
  }
}

AccessResolver::AccessResolver(std::vector<KernelModeRule> rules, std::shared_ptr<CodeModeTable> code_modes)
    : rules_(std::move(rules)), code_modes_(std::move(code_modes)) {}

Result<std::vector<KernelModeRule>> parse_kernel_modes(const std::string& text) {
  std::vector<KernelModeRule> rules;
  std::stringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::stringstream words(line);
    std::string pattern;
    if (!(words >> pattern)) continue;
    KernelModeRule rule;
    rule.source = pattern;
    try {
      rule.pattern = std::regex(pattern);
    } catch (const std::regex_error& e) {
      return make_error("line " + std::to_string(number) + ": bad pattern '" + pattern + "': " + e.what());
    }
    std::string field;
    while (words >> field) {
      bool ok = true;
      if (field.rfind("reads=", 0) == 0)
        rule.reads = parse_indices(field.substr(6), ok);
      else if (field.rfind("writes=", 0) == 0)
        rule.writes = parse_indices(field.substr(7), ok);
      else
        ok = false;
      if (!ok)
        return make_error("line " + std::to_string(number) + ": expected reads=I,J or writes=I,J (1-based " +
                          "argument words), got '" + field + "'");
    }
    rules.push_back(std::move(rule));
  }
  return rules;
}

AccessResolver::Tier AccessResolver::tier_of(v1::RegionOrigin origin) {
  switch (origin) {
    case v1::ORIGIN_ANNOTATION: return kAnnotation;
    case v1::ORIGIN_FRAMEWORK_BLOCK: return kBlock;
    default: return kSegment;
  }
}

void AccessResolver::set_live(uint32_t id, bool live) {
  RegionInfo* found = regions_.find(id);
  if (!found) return;
  RegionInfo& r = *found;
  if (r.live == live) return;
  r.live = live;
  ++live_version_;
  if (live) {
    r.live_order = ++live_orders_;
    becoming_live_.push_back(id);
    lowest_ = std::min(lowest_, r.base);
    highest_ = std::max(highest_, r.base + r.size);
    // Bounded, in case no search comes for long.
    if (becoming_live_.size() == kMaxBecomingLive) update_search();
    return;
  }
  if (r.live_order <= searchable_through_) {
    live_map(r).erase_if(r.base, [id](const Live& l) { return l.id == id; });
  }
  // Only driver allocations have inferred blocks; forgetting also voids
  // every recent pointer mark, so blocks' frees must not.
  if (tier_of(r.origin) == kSegment) blocks_.forget(id);
  regions_.erase(id);
}

AccessResolver::LiveMap& AccessResolver::live_map(const RegionInfo& r) const {
  return live_[r.space][tier_of(r.origin)];
}

void AccessResolver::update_search() const {
  if (becoming_live_.empty()) return;
  // In the order they became live: a later region at the same base wins.
  for (uint32_t id : becoming_live_)
    if (const RegionInfo* r = regions_.find(id)) live_map(*r).assign(r->base, Live{id, r});  // freed: erased
  becoming_live_.clear();
  searchable_through_ = live_orders_;
}

void AccessResolver::add_entities(const v1::Chunk& chunk, const TraceTables& tables) {
  tables_ = &tables;
  if (code_modes_) code_modes_->add_modules(chunk, tables);
  for (const auto& s : chunk.streams())
    if (s.id() == stream_device_.size() + 1) stream_device_.push_back(s.device());
  const uint32_t first_new = regions_defined_ + 1;
  std::vector<char> from_start;  // by id - first_new
  for (const auto& r : chunk.regions()) {
    if (r.id() != regions_defined_ + 1) continue;
    ++regions_defined_;
    from_start.push_back(r.alloc_seq() == 0);
    if (r.size() == 0 || r.base() + r.size() < r.base()) continue;  // invalid: resolves nothing
    regions_.add(r.id(), RegionInfo{r.base(), r.size(), space_key(r.space(), r.device()), r.origin(),
                                    r.space(), r.label()});
  }
  // Regions with an ALLOC op become live there; the others live from the
  // start. One with alloc_seq has its ALLOC op; only those without one need
  // the pass over the chunk's ops, which would cost a cache miss per op.
  if (std::find(from_start.begin(), from_start.end(), 1) == from_start.end()) return;
  for (const auto& op : chunk.ops())
    if (op.has_alloc() && op.alloc().region() >= first_new && op.alloc().region() <= regions_defined_)
      from_start[op.alloc().region() - first_new] = false;
  for (uint32_t i = 0; i < from_start.size(); ++i)
    if (from_start[i]) set_live(first_new + i, true);
}

void AccessResolver::on_op(const v1::Op& op) {
  if (op.has_alloc())
    if (RegionInfo* r = regions_.find(op.alloc().region())) {
      r->alloc_seq = op.seq();
      set_live(op.alloc().region(), true);
    }
  if (op.has_free() && region(op.free().region())) set_live(op.free().region(), false);
}

AccessResolver::Live AccessResolver::find_live(SpaceKey space, uint64_t lo, uint64_t hi) const {
  update_search();
  const auto tiers = live_.find(space);
  if (tiers == live_.end()) return {};
  for (const LiveMap& map : tiers->second) {
    const Live* live = map.at_or_before(lo);
    if (live && live->info->base <= lo && hi <= live->info->base + live->info->size) return *live;
  }
  return {};
}

uint32_t AccessResolver::find_region(SpaceKey space, uint64_t lo, uint64_t hi) const {
  return find_live(space, lo, hi).id;
}

const KernelModeRule* AccessResolver::rule_for(uint32_t name) {
  if (rules_.empty()) return nullptr;
  auto [it, added] = rule_cache_.try_emplace(name, nullptr);
  if (added && tables_) {
    const std::string kernel(tables_->string(name));
    for (const auto& rule : rules_)
      if (std::regex_search(kernel, rule.pattern)) {
        it->second = &rule;
        break;
      }
  }
  return it->second;
}

bool AccessResolver::has_rule(uint32_t kernel_name) const {
  auto it = rule_cache_.find(kernel_name);
  return it != rule_cache_.end() && it->second;
}

const code::KernelModes* AccessResolver::code_for(const v1::Kernel& k, const KernelModeRule* rule) {
  const code::KernelModes* code = nullptr;
  if (code_modes_ && k.module() && tables_) {
    auto [it, added] = code_cache_.try_emplace(uint64_t{k.module()} << 32 | k.name(), nullptr);
    if (added) it->second = code_modes_->find(k.module(), tables_->string(k.name()));
    code = it->second;
  }
  const ModeSource source = code ? ModeSource::kMachineCode : rule ? ModeSource::kRule : ModeSource::kUnknown;
  ++use_.launches[static_cast<int>(source)];
  if (tables_)
    if (const std::string_view collective = collective_of(tables_->string(k.name())); !collective.empty()) {
      ++use_.unknown_collective_launches;
      use_.unknown_collectives.emplace(collective);
    }
  if (code && code->indirect_access) {
    ++use_.indirect_launches;
    use_.indirect_kernels.insert(k.name());
  }
  return code;
}

ModeUse AccessResolver::mode_use() const {
  ModeUse use = use_;
  if (code_modes_) use.notes = code_modes_->notes();
  return use;
}

void AccessResolver::add_explicit(const v1::Access& a, SpaceKey default_space, uint32_t index, uint32_t node,
                                  std::vector<ResolvedAccess>& out) const {
  const RegionInfo* info = region(a.region());
  if (a.region() && !info) return;  // names a freed region: nothing left to resolve it against
  ResolvedAccess r;
  r.space = default_space;
  r.lo = a.address();
  if (info) {
    r.space = info->space;
    r.lo = info->base + a.offset();
  }
  r.hi = r.lo + a.size();
  set_mode(r, a.mode());
  r.precision = a.precision();
  r.region = a.region() ? a.region() : find_region(r.space, r.lo, r.hi);
  r.index = index;
  r.node = node;
  if (r.hi > r.lo) out.push_back(r);
}

void AccessResolver::add_kernel(const v1::Kernel& k, SpaceKey space, uint32_t node,
                                std::vector<ResolvedAccess>& out) {
  if (k.accesses_size() > 0) {
    ++use_.launches[static_cast<int>(ModeSource::kRecorded)];
    for (int i = 0; i < k.accesses_size(); ++i)
      add_explicit(k.accesses(i), space, static_cast<uint32_t>(i), node, out);
    return;
  }
  // Only argument words: each word inside a live region may be a pointer to
  // anywhere in that region, or in the block inferred around it.
  const KernelModeRule* rule = rule_for(k.name());
  const code::KernelModes* code = code_for(k, rule);
  const size_t first = out.size();
  locate_words(k, space);
  for (int i = 0; i < k.arg_words_size(); ++i) {
    const uint64_t word = k.arg_words(i);
    const uint32_t index = static_cast<uint32_t>(i + 1);
    const WordAccess mode = word_access(code, rule, index);
    if (mode.none()) continue;
    const bool reads = mode.reads, writes = mode.writes, known = mode.known;
    const Located& at = located_[static_cast<size_t>(i)];
    const uint32_t id = at.region;
    if (!id) continue;
    ResolvedAccess r = word_extent(at, word);
    auto same = std::find_if(out.begin() + static_cast<long>(first), out.end(),
                             [&](const ResolvedAccess& o) { return o.region == id && o.lo == r.lo; });
    if (same != out.end()) {  // several words into one extent: one access
      same->reads |= reads;
      same->writes |= writes;
      same->mode_known &= known;
      same->mode_source = std::max(same->mode_source, mode.source);  // the least trusted
      same->anchor_lo = std::min(same->anchor_lo, word);
      same->anchor_hi = std::max(same->anchor_hi, word);
      continue;
    }
    r.reads = reads;
    r.writes = writes;
    r.mode_known = known;
    r.mode_source = mode.source;
    r.indirect = code && code->indirect_access;
    r.index = static_cast<uint32_t>(i);
    r.node = node;
    if (r.precision == v1::PRECISION_INFERRED) ++inferred_accesses_;
    out.push_back(r);
  }
}

void AccessResolver::resolve(const v1::Op& op, std::vector<ResolvedAccess>& out) {
  out.clear();
  const uint32_t device =
      op.stream() >= 1 && op.stream() <= stream_device_.size() ? stream_device_[op.stream() - 1] : 0;
  const SpaceKey space = device_space(device);
  switch (op.what_case()) {
    case v1::Op::kKernel: add_kernel(op.kernel(), space, 0, out); break;
    case v1::Op::kMemcpy: add_copy(op.memcpy(), 0, out); break;
    case v1::Op::kMemset: add_memset(op.memset(), space, 0, out); break;
    case v1::Op::kHostFunc:
      for (int i = 0; i < op.host_func().accesses_size(); ++i)
        add_explicit(op.host_func().accesses(i), kHostSpace, static_cast<uint32_t>(i), 0, out);
      break;
    case v1::Op::kHostAccess:
      for (int i = 0; i < op.host_access().accesses_size(); ++i)
        add_explicit(op.host_access().accesses(i), kHostSpace, static_cast<uint32_t>(i), 0, out);
      break;
    case v1::Op::kGraph:
      // Nodes by position (+ 1), as HappensBefore orders them: a node's
      // own index field is only checked by the validator.
      for (int i = 0; i < op.graph().nodes_size(); ++i) {
        const v1::GraphNode& node = op.graph().nodes(i);
        const uint32_t n = static_cast<uint32_t>(i) + 1;
        if (node.has_kernel()) add_kernel(node.kernel(), space, n, out);
        if (node.has_memcpy()) add_copy(node.memcpy(), n, out);
        if (node.has_memset()) add_memset(node.memset(), space, n, out);
      }
      break;
    default: break;
  }
  note_exact_ranges(out);
}

}  // namespace racetrack::race
