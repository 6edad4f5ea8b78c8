#include "racetrack/race/checker.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "racetrack/traces/trace_io.h"

namespace racetrack::race {
namespace {

constexpr size_t kMaxShown = 1000000;  // hazards kept for fixing

bool touches_memory(const v1::Op& op) {
  switch (op.what_case()) {
    case v1::Op::kKernel:
    case v1::Op::kMemcpy:
    case v1::Op::kMemset:
    case v1::Op::kHostFunc:
    case v1::Op::kHostAccess:
    case v1::Op::kGraph: return true;
    default: return false;
  }
}

bool is_copy(OpKind k) { return k == OpKind::kMemcpy || k == OpKind::kMemset; }

std::string strip_digits(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (out.empty() || out.back() != '#') out += '#';
    } else {
      out += text[i];
    }
  }
  return out;
}

struct GroupKey {
  uint64_t first_name, second_name;
  uint32_t first_nvtx, second_nvtx;
  uint32_t first_role, second_role;
  uint32_t kind;
  bool operator==(const GroupKey&) const = default;
};

struct GroupKeyHash {
  size_t operator()(const GroupKey& k) const {
    uint64_t h = k.first_name * 0x9E3779B97F4A7C15ull;
    for (uint64_t v : {k.second_name, uint64_t{k.first_nvtx}, uint64_t{k.second_nvtx}, uint64_t{k.first_role},
                       uint64_t{k.second_role}, uint64_t{k.kind}})
      h = (h ^ v) * 0x100000001B3ull;
    return static_cast<size_t>(h);
  }
};

}  // namespace

uint64_t CheckResult::shown_groups() const {
  return static_cast<uint64_t>(std::count_if(groups.begin(), groups.end(), [](const HazardGroup& g) { return g.shown; }));
}

struct Checker::State {
  explicit State(const CheckOptions& o)
      : options(o), tables_ptr(std::make_shared<TraceTables>()), tables(*tables_ptr), resolver(o.kernel_modes) {
    tables.set_keep_regions(false);
  }

  uint32_t new_side(const v1::Op& op, const ResolvedAccess& a, uint32_t agent);
  void collect_garbage();
  void report(const HazardSide& first, const HazardSide& second, uint64_t lo, uint64_t hi, const hb::VectorClock& clock);
  HazardClass classify(const HazardSide& first, const HazardSide& second) const;
  uint32_t stripped_nvtx(uint32_t nvtx);
  uint32_t role_of(uint32_t stream) const;
  std::string side_title(const HazardSide& s) const;
  std::string signature(const HazardSide& a, const HazardSide& b, HazardKind kind) const;
  void process(const v1::Op& op);

  CheckOptions options;
  std::shared_ptr<TraceTables> tables_ptr;
  TraceTables& tables;
  hb::HappensBefore hb;
  AccessResolver resolver;
  ShadowMemory shadow;
  std::vector<HazardSide> sides;
  std::vector<uint32_t> free_sides;
  size_t gc_threshold = 1 << 16;
  std::vector<ResolvedAccess> accesses;
  std::vector<std::tuple<uint32_t, uint64_t, uint64_t>> conflicts;
  std::unordered_map<GroupKey, size_t, GroupKeyHash> group_index;
  std::unordered_map<uint32_t, uint32_t> stripped;  // nvtx string id -> stripped id
  std::unordered_map<std::string, uint32_t> stripped_ids;
  std::vector<std::string> stripped_text{""};
  CheckResult result;
};

uint32_t Checker::State::new_side(const v1::Op& op, const ResolvedAccess& a, uint32_t agent) {
  HazardSide s;
  s.seq = op.seq();
  s.op_kind = op_kind(op);
  if (op.has_kernel()) s.name = op.kernel().name();
  if (op.has_host_func()) s.name = op.host_func().name();
  if (op.has_graph() && a.node && op.graph().nodes(a.node - 1).has_kernel())
    s.name = op.graph().nodes(a.node - 1).kernel().name();
  if (op.has_memcpy()) s.direction = effective_direction(op.memcpy());
  s.stream = hb::is_device_op(op) ? op.stream() : 0;
  s.thread = op.thread();
  s.nvtx = op.nvtx();
  s.agent = agent;
  s.access = a;
  if (const RegionInfo* r = resolver.region(a.region)) s.region_label = r->label;
  if (!free_sides.empty()) {
    const uint32_t id = free_sides.back();
    free_sides.pop_back();
    sides[id] = s;
    return id;
  }
  sides.push_back(s);
  return static_cast<uint32_t>(sides.size() - 1);
}

// Sides no shadow entry refers to any more are reused, so the table stays
// as small as the live shadow state.
void Checker::State::collect_garbage() {
  if (!free_sides.empty() || sides.size() < gc_threshold) return;
  std::vector<bool> used(sides.size(), false);
  shadow.referenced_sides(used);
  for (uint32_t i = 0; i < sides.size(); ++i)
    if (!used[i]) free_sides.push_back(i);
  if (free_sides.size() < sides.size() / 2) gc_threshold = sides.size() * 2;
}

uint32_t Checker::State::role_of(uint32_t stream) const {
  const v1::Stream* s = tables.stream(stream);
  return s ? static_cast<uint32_t>(s->role()) + 1 : 0;
}

uint32_t Checker::State::stripped_nvtx(uint32_t nvtx) {
  if (!nvtx) return 0;
  auto [it, added] = stripped.try_emplace(nvtx, 0);
  if (added) {
    std::string text = strip_digits(tables.string(nvtx));
    auto [sit, fresh] = stripped_ids.try_emplace(text, static_cast<uint32_t>(stripped_text.size()));
    if (fresh) stripped_text.push_back(text);
    it->second = sit->second;
  }
  return it->second;
}

HazardClass Checker::State::classify(const HazardSide& first, const HazardSide& second) const {
  if (first.access.region && second.access.region && first.access.region != second.access.region) {
    // Freed regions are gone from the resolver: the first one's memory was
    // handed out again.
    const RegionInfo* r = resolver.region(first.access.region);
    if (!r || !r->live) return HazardClass::kReuse;
  }
  if (first.op_kind == OpKind::kHostAccess || second.op_kind == OpKind::kHostAccess) return HazardClass::kHostVsDevice;
  const bool a = is_copy(first.op_kind), b = is_copy(second.op_kind);
  if (a && b) return HazardClass::kCopyVsCopy;
  if (a || b) return HazardClass::kCopyVsCompute;
  return HazardClass::kComputeVsCompute;
}

std::string Checker::State::side_title(const HazardSide& s) const {
  if (s.op_kind == OpKind::kMemcpy) return "memcpy " + std::string(direction_name(s.direction));
  if (s.name) return std::string(op_kind_name(s.op_kind)) + " " + std::string(tables.string(s.name));
  return std::string(op_kind_name(s.op_kind));
}

std::string Checker::State::signature(const HazardSide& a, const HazardSide& b, HazardKind kind) const {
  auto part = [&](const HazardSide& s) {
    std::string out = side_title(s);
    const uint32_t nvtx = s.nvtx ? stripped.at(s.nvtx) : 0;
    if (nvtx) out += " @" + stripped_text[nvtx];
    out += " [";
    out += s.stream ? std::string(role_name(tables.stream(s.stream)->role())) : std::string("host");
    return out + "]";
  };
  return part(a) + " -> " + part(b) + " " + std::string(kind_name(kind));
}

void Checker::State::report(const HazardSide& first, const HazardSide& second, uint64_t lo, uint64_t hi,
                            const hb::VectorClock& clock) {
  Hazard h;
  h.first = first;
  h.second = second;
  h.kind = hazard_kind(first.access, second.access);
  h.confidence = hazard_confidence(first.access, second.access);
  h.cls = classify(first, second);
  h.space = second.access.space;
  h.lo = lo;
  h.hi = hi;
  h.ordered_up_to_tick = clock.get(first.agent);
  ++result.hazards;
  ++result.by_confidence[static_cast<int>(h.confidence)];

  auto name_key = [](const HazardSide& s) {
    return (uint64_t{static_cast<uint32_t>(s.op_kind)} << 32) |
           (s.op_kind == OpKind::kMemcpy ? static_cast<uint32_t>(s.direction) : s.name);
  };
  const GroupKey key{name_key(first),          name_key(second),      stripped_nvtx(first.nvtx),
                     stripped_nvtx(second.nvtx), role_of(first.stream), role_of(second.stream),
                     static_cast<uint32_t>(h.kind)};
  auto [it, added] = group_index.try_emplace(key, result.groups.size());
  if (added) {
    HazardGroup g;
    g.signature = signature(first, second, h.kind);
    g.first = h;
    g.suppressed = options.suppressed.count(g.signature) > 0;
    result.groups.push_back(std::move(g));
  }
  HazardGroup& g = result.groups[it->second];
  ++g.count;
  ++g.by_confidence[static_cast<int>(h.confidence)];
  if (h.confidence > g.confidence || g.count == 1) g.confidence = std::max(g.confidence, h.confidence);
  if (h.confidence > g.first.confidence) g.first = h;  // show the strongest instance
  if (options.keep_all) result.all.push_back(h);
  if (h.confidence >= options.min_confidence && !g.suppressed && result.shown.size() < kMaxShown)
    result.shown.push_back(h);
}

void Checker::State::process(const v1::Op& op) {
  resolver.on_op(op);
  const hb::OpOrder order = hb.apply(op);
  if (!touches_memory(op)) return;
  resolver.resolve(op, accesses);
  for (const ResolvedAccess& a : accesses) {
    const hb::OpOrder& o = a.node && a.node <= hb.graph_nodes().size() ? hb.graph_nodes()[a.node - 1] : order;
    const uint32_t side = new_side(op, a, o.epoch.agent);
    conflicts.clear();
    shadow.access(a.space, a.lo, a.hi, ShadowEntry{o.epoch, side, a.reads, a.writes}, *o.clock,
                  [&](const ShadowEntry& e, uint64_t lo, uint64_t hi) { conflicts.emplace_back(e.side, lo, hi); });
    if (conflicts.empty()) continue;
    // One hazard per earlier access, over the hull of the bytes they share.
    std::sort(conflicts.begin(), conflicts.end());
    for (size_t i = 0; i < conflicts.size();) {
      const uint32_t earlier = std::get<0>(conflicts[i]);
      uint64_t lo = std::get<1>(conflicts[i]), hi = std::get<2>(conflicts[i]);
      for (++i; i < conflicts.size() && std::get<0>(conflicts[i]) == earlier; ++i) {
        lo = std::min(lo, std::get<1>(conflicts[i]));
        hi = std::max(hi, std::get<2>(conflicts[i]));
      }
      report(sides[earlier], sides[side], lo, hi, *o.clock);
    }
  }
}

Checker::Checker(const CheckOptions& options) : s_(std::make_unique<State>(options)) {}
Checker::~Checker() = default;

const TraceTables& Checker::tables() const { return s_->tables; }

void Checker::add_chunk(const v1::Chunk& chunk) {
  s_->tables.add(chunk);
  s_->hb.add_entities(chunk);
  s_->resolver.add_entities(chunk, s_->tables);
  for (const v1::Op& op : chunk.ops()) {
    s_->process(op);
    ++s_->result.ops;
  }
  s_->collect_garbage();
}

CheckResult Checker::finish() {
  CheckResult& r = s_->result;
  for (HazardGroup& g : r.groups) {
    g.shown = g.confidence >= s_->options.min_confidence && !g.suppressed;
    if (g.confidence == Confidence::kPossible) {
      const ResolvedAccess& a = g.first.first.access;
      const ResolvedAccess& b = g.first.second.access;
      const bool known_writer = (a.writes && a.mode_known) || (b.writes && b.mode_known);
      g.settle = !known_writer
                     ? "read/write modes of the kernel arguments are unknown: capture with --torch, or give "
                       "--kernel-modes rules for the kernels involved"
                     : "the kernel's extent is a whole driver allocation: tensor-level extents (capture with "
                       "--torch, or annotate the buffers) would settle it";
    }
    g.fix = suggest_fix(g.first, s_->tables);
  }
  r.shadow_segments = s_->shadow.segment_count();
  r.tables = s_->tables_ptr;
  return std::move(r);
}

namespace {

// Maps (stream or thread, tick) to the op at that point of its history.
class TickMap {
 public:
  void want(const HazardSide& side, uint64_t tick) {
    if (tick) wanted_[{side.stream ? 0 : 1, side.stream ? side.stream : side.thread, tick}] = nullptr;
  }
  void note(const v1::Op& op, const TraceTables& tables) {
    note_point({1, op.thread(), ++thread_ticks_[op.thread()]}, op, tables);
    if (hb::is_device_op(op)) note_point({0, op.stream(), ++stream_ticks_[op.stream()]}, op, tables);
  }
  const std::pair<uint64_t, std::string>* find(const HazardSide& side, uint64_t tick) const {
    auto it = found_.find({side.stream ? 0 : 1, side.stream ? side.stream : side.thread, tick});
    return it == found_.end() ? nullptr : &it->second;
  }

 private:
  using Point = std::tuple<int, uint32_t, uint64_t>;
  void note_point(const Point& p, const v1::Op& op, const TraceTables& tables) {
    if (wanted_.empty() || !wanted_.count(p)) return;
    found_[p] = {op.seq(), op_title(op, tables)};
  }
  std::map<Point, std::nullptr_t> wanted_;
  std::map<Point, std::pair<uint64_t, std::string>> found_;
  std::unordered_map<uint32_t, uint64_t> thread_ticks_, stream_ticks_;
};

std::string explain(const Hazard& h, const TickMap& ticks, const TraceTables& t) {
  const HazardSide& a = h.first;
  const HazardSide& b = h.second;
  const std::string where_a = a.stream ? t.stream_label(a.stream) : "host thread " + std::to_string(a.thread);
  const std::string where_b = b.stream ? t.stream_label(b.stream) : "host thread " + std::to_string(b.thread);
  const std::string second = "#" + std::to_string(b.seq) + " on " + where_b;
  if (a.access.node) return second + " is not ordered after graph node " + std::to_string(a.access.node - 1) +
                            " of launch #" + std::to_string(a.seq);
  if (h.ordered_up_to_tick == 0)
    return second + " is not ordered after anything on " + where_a + ", where the racing op #" +
           std::to_string(a.seq) + " runs";
  const auto* point = ticks.find(a, h.ordered_up_to_tick);
  const std::string upto = point ? "#" + std::to_string(point->first) + " (" + point->second + ")" : "an earlier op";
  return second + " is ordered after " + where_a + " only up to " + upto + ", but the racing op is #" +
         std::to_string(a.seq);
}

}  // namespace

CheckResult check_trace(const v1::Chunk& trace, const CheckOptions& options) {
  Checker checker(options);
  checker.add_chunk(trace);
  return checker.finish();
}

Result<CheckResult> check_file(const std::string& path, const CheckOptions& options) {
  auto source = TraceSource::open(path);
  if (!source) return source.error();
  Checker checker(options);
  for (;;) {
    auto chunk = source->read();
    if (!chunk) return chunk.error();
    if (!*chunk) break;
    checker.add_chunk(**chunk);
    if (options.progress) options.progress(source->position(), source->size());
  }
  CheckResult result = checker.finish();
  result.fixes_verified = result.shown.empty();
  if (!options.explain_and_fix || result.shown.empty()) return result;
  result.fixes_checked = true;

  // Pass 2: re-check with every fix applied, and map explanation points.
  const TraceTables& tables = checker.tables();
  std::vector<FixEdit> edits;
  for (const Hazard& h : result.shown) {
    const Fix f = suggest_fix(h, tables);
    if (f.available) edits.push_back(f.edit);
  }
  TickMap ticks;
  for (const HazardGroup& g : result.groups)
    if (g.shown) ticks.want(g.first.first, g.first.ordered_up_to_tick);
  FixRewriter rewriter(merge_edits(std::move(edits)));
  CheckOptions recheck_options = options;
  recheck_options.keep_all = false;
  recheck_options.explain_and_fix = false;
  Checker recheck(recheck_options);
  TraceTables original_tables;
  original_tables.set_keep_regions(false);
  auto again = TraceSource::open(path);
  if (!again) return again.error();
  for (;;) {
    auto chunk = again->read();
    if (!chunk) return chunk.error();
    if (!*chunk) break;
    original_tables.add(**chunk);
    for (const v1::Op& op : (*chunk)->ops()) ticks.note(op, original_tables);
    recheck.add_chunk(rewriter.rewrite(**chunk));
    if (options.progress) options.progress(again->position(), again->size());
  }
  const CheckResult after = recheck.finish();
  std::set<HazardKey> remaining;
  for (Hazard h : after.shown) {
    h.first.seq = rewriter.original_seq(h.first.seq);
    h.second.seq = rewriter.original_seq(h.second.seq);
    remaining.insert(h.key());
  }
  result.hazards_after_fixes = after.shown.size();
  result.fixes_verified = after.shown.empty();
  for (HazardGroup& g : result.groups) {
    if (!g.shown) continue;
    g.explanation = explain(g.first, ticks, tables);
    g.fix.verified = g.fix.available && !remaining.count(g.first.key());
  }
  return result;
}

}  // namespace racetrack::race
