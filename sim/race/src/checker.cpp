#include "racetrack/race/checker.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <tuple>

#include "access_order.h"
#include "racetrack/race/collectives.h"
#include "racetrack/race/external_agents.h"
#include "racetrack/race/graph_lifetimes.h"
#include "racetrack/race/pdl.h"
#include "racetrack/race/settle.h"
#include "recorded_events.h"
#include "region_writers.h"

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

bool is_copy(OpKind k) {
  return k == OpKind::kMemcpy || k == OpKind::kMemset;
}

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
  return static_cast<uint64_t>(
      std::count_if(groups.begin(), groups.end(), [](const HazardGroup& g) { return g.shown; }));
}

struct Checker::State {
  State(const CheckOptions& o, OrderObserver* observer)
      : options(o),
        observer(observer),
        tables_ptr(std::make_shared<TraceTables>()),
        tables(*tables_ptr),
        hb(o.assumptions),
        resolver(o.kernel_modes, o.code_modes),
        pdl_facts(o.code_modes) {
    tables.set_regions(RegionDetail::kNone);
    resolver.set_infer_blocks(o.infer_blocks);
    hb.set_pdl_wait_lookup(pdl_facts.lookup(tables));
  }

  HazardSide op_side(const v1::Op& op);
  uint32_t new_side(const HazardSide& of_op, const v1::Op& op, const ResolvedAccess& a, uint32_t agent);
  void collect_garbage();
  void report(const HazardSide& first, const HazardSide& second, uint64_t lo, uint64_t hi,
              const hb::OpOrder& order);
  HazardClass classify(const HazardSide& first, const HazardSide& second) const;
  bool on_communication(const HazardSide& side) const;
  uint32_t stripped_nvtx(uint32_t nvtx);
  uint32_t role_of(uint32_t stream) const;
  std::string side_title(const HazardSide& s) const;
  // The sides' NVTX patterns (stripped_nvtx) are passed beside them: they
  // are looked up when a hazard is reported, not for every op's side.
  std::string signature(const HazardSide& a, uint32_t a_pattern, const HazardSide& b, uint32_t b_pattern,
                        HazardKind kind) const;
  void process(const v1::Op& op);
  // C16 (graph_lifetimes.h): a graph node access against its capture-time
  // region, and the side-stream work a capture end leaves unjoined.
  void check_captured_address(const v1::Op& op, const ResolvedAccess& a, HazardSide& side,
                              const hb::OpOrder& o);
  void report_unjoined(const v1::Op& work, const v1::Op& end, const hb::OpOrder& o);
  // C14 (external_agents.h): an external access whose completion `op`
  // observes enters the shadow memory with op's order; one still in flight
  // conflicts with any access that overlaps it.
  void complete_external(const ExternalAccess& e, const v1::Op& op, const hb::OpOrder& o);
  HazardSide in_flight_side(const ExternalAccess& e) const;
  // Checks one access (side) against the shadow memory and reports conflicts.
  void shadow_check(const ResolvedAccess& a, uint32_t side, const hb::OpOrder& o);
  // One hazard per earlier access among `conflicts`, over the hull of the bytes they share.
  void report_conflicts(uint32_t side, const hb::OpOrder& o);

  CheckOptions options;
  OrderObserver* observer;  // set: no shadow memory; findings go to it (fix_verifier.h)
  std::shared_ptr<TraceTables> tables_ptr;
  TraceTables& tables;
  hb::HappensBefore hb;
  AccessResolver resolver;
  PdlWaitFacts pdl_facts;  // for hb's rule 1a
  RecordedEvents recorded;
  RegionWriters writers;  // for hazards' explanations
  GraphLifetimes graphs;
  std::vector<v1::Op> unjoined;
  ExternalAgents externals;
  std::vector<ExternalAccess> completed_externals;
  std::vector<const ExternalAccess*> in_flight;
  ShadowMemory shadow;
  std::deque<HazardSide> sides;  // grows in blocks: no copies as it grows
  std::vector<uint32_t> free_sides;
  // The last region new_side looked up, and its label (0: none).
  uint32_t label_region = 0, region_label = 0;
  // Small enough that the table stays in cache between collections.
  size_t gc_threshold = 1 << 12;
  std::vector<ResolvedAccess> accesses;
  std::vector<Conflict> conflicts;
  std::unordered_map<GroupKey, size_t, GroupKeyHash> group_index;
  std::unordered_map<uint32_t, uint32_t> stripped;  // nvtx string id -> stripped id
  std::unordered_map<std::string, uint32_t> stripped_ids;
  std::vector<std::string> stripped_text{""};
  CheckResult result;
  std::optional<std::string> bad_input;  // the trace is inconsistent: stop
};

// What every access of an op shares, computed once per op.
HazardSide Checker::State::op_side(const v1::Op& op) {
  HazardSide s;
  s.seq = op.seq();
  s.op_kind = op_kind(op);
  if (op.has_kernel()) s.name = op.kernel().name();
  if (op.has_host_func()) s.name = op.host_func().name();
  if (op.has_memcpy()) s.direction = effective_direction(op.memcpy());
  s.stream = hb::is_device_op(op) ? op.stream() : 0;
  s.thread = op.thread();
  s.nvtx = op.nvtx();
  s.stack = op.stack();
  s.role = role_of(s.stream);
  return s;
}

uint32_t Checker::State::new_side(const HazardSide& of_op, const v1::Op& op, const ResolvedAccess& a,
                                  uint32_t agent) {
  collect_garbage();
  uint32_t id;
  if (!free_sides.empty()) {
    id = free_sides.back();
    free_sides.pop_back();
    sides[id] = of_op;
  } else {
    id = static_cast<uint32_t>(sides.size());
    sides.push_back(of_op);
  }
  HazardSide& s = sides[id];  // filled in place: a side is large
  if (op.has_graph() && a.node && a.node <= static_cast<uint32_t>(op.graph().nodes_size()) &&
      op.graph().nodes(static_cast<int>(a.node - 1)).has_kernel())
    s.name = op.graph().nodes(static_cast<int>(a.node - 1)).kernel().name();
  s.agent = agent;
  s.access = a;
  if (a.region != label_region) {
    const RegionInfo* r = resolver.region(a.region);
    label_region = a.region;
    region_label = r ? r->label : 0;
  }
  s.region_label = region_label;
  return id;
}

// Sides no shadow entry refers to any more are reused, so the table stays
// as small as the live shadow state. Safe before any new side: every side
// made so far is in the shadow memory or no longer used.
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

// A communication stream's op: a captured stream has no role, so an NCCL
// kernel says it too.
bool Checker::State::on_communication(const HazardSide& s) const {
  const uint32_t comm = static_cast<uint32_t>(v1::ROLE_COMM) + 1;  // HazardSide::role is the role + 1
  return s.role == comm || (s.op_kind == OpKind::kKernel && s.name && !collective_of(tables.string(s.name)).empty());
}

HazardClass Checker::State::classify(const HazardSide& first, const HazardSide& second) const {
  if (second.graph_lifetime == GraphLifetime::kCapturedFreed ||
      second.graph_lifetime == GraphLifetime::kPoolAlias)
    return HazardClass::kReuse;
  if (first.access.region && second.access.region && first.access.region != second.access.region) {
    // Freed regions are gone from the resolver: the first one's memory was
    // handed out again.
    const RegionInfo* r = resolver.region(first.access.region);
    if (!r || !r->live) return HazardClass::kReuse;
  }
  if (first.op_kind == OpKind::kHostAccess || second.op_kind == OpKind::kHostAccess)
    return HazardClass::kHostVsDevice;
  if (on_communication(first) || on_communication(second)) return HazardClass::kCommunication;
  // An external agent's access is a transfer (RDMA, a writer process).
  const bool a = is_copy(first.op_kind) || first.external_agent, b = is_copy(second.op_kind);
  if (a && b) return HazardClass::kCopyVsCopy;
  if (a || b) return HazardClass::kCopyVsCompute;
  return HazardClass::kComputeVsCompute;
}

std::string Checker::State::side_title(const HazardSide& s) const {
  if (s.op_kind == OpKind::kMemcpy) return "memcpy " + std::string(direction_name(s.direction));
  if (s.name) return std::string(op_kind_name(s.op_kind)) + " " + std::string(tables.string(s.name));
  return std::string(op_kind_name(s.op_kind));
}

std::string Checker::State::signature(const HazardSide& a, uint32_t a_pattern, const HazardSide& b,
                                     uint32_t b_pattern, HazardKind kind) const {
  auto part = [&](const HazardSide& s, uint32_t pattern) {
    std::string out = side_title(s);
    if (pattern) out += " @" + stripped_text[pattern];
    out += " [";
    out += s.stream ? std::string(role_name(tables.stream(s.stream)->role())) : std::string("host");
    return out + "]";
  };
  return part(a, a_pattern) + " -> " + part(b, b_pattern) + " " + std::string(kind_name(kind));
}

void Checker::State::report(const HazardSide& first, const HazardSide& second, uint64_t lo, uint64_t hi,
                            const hb::OpOrder& order) {
  if (observer) {
    observer->on_report(first, second);
    return;
  }
  const hb::VectorClock& clock = *order.clock;
  const HazardKind kind = hazard_kind(first.access, second.access);
  Evidence evidence = hazard_evidence(first.access, second.access);
  // Same-stream sides are unordered only through rule 1a (PDL); without the
  // secondary's machine code it may well wait, so the hazard is possible.
  const bool pdl = !order.pdl.empty() && first.agent == order.epoch.agent;
  if (pdl && order.pdl.wait == hb::PdlWait::kUnknown) evidence.confidence = Confidence::kPossible;
  // A wait on the first kernel's programmatic event does not order after it (rule 5a).
  hb::ProgrammaticWait programmatic{};
  if (order.programmatic && first.stream)
    if (const hb::ProgrammaticWait* w = order.programmatic->find(first.seq)) programmatic = *w;
  if (programmatic.wait_seq)
    evidence.confidence = programmatic_confidence(programmatic, second, evidence.confidence);
  const Confidence confidence = evidence.confidence;
  ++result.hazards;
  ++result.by_confidence[static_cast<int>(confidence)];

  auto name_key = [](const HazardSide& s) {
    return (uint64_t{static_cast<uint32_t>(s.op_kind)} << 32) |
           (s.op_kind == OpKind::kMemcpy ? static_cast<uint32_t>(s.direction) : s.name);
  };
  const uint32_t first_pattern = stripped_nvtx(first.nvtx), second_pattern = stripped_nvtx(second.nvtx);
  const GroupKey key{name_key(first), name_key(second), first_pattern, second_pattern,
                     first.role,      second.role,      static_cast<uint32_t>(kind)};
  auto [it, added] = group_index.try_emplace(key, result.groups.size());
  if (added) {
    result.groups.emplace_back();
    result.groups.back().signature = signature(first, first_pattern, second, second_pattern, kind);
    result.groups.back().suppressed = options.suppressed.count(result.groups.back().signature) > 0;
  }
  HazardGroup& g = result.groups[it->second];
  ++g.count;
  ++g.by_confidence[static_cast<int>(confidence)];
  const bool shown = confidence >= options.min_confidence && !g.suppressed && result.shown.size() < kMaxShown;
  const bool strongest = added || stronger(evidence, g.evidence);
  // Most hazards of a busy group only count: build the record when needed.
  if (!strongest && !shown && !options.keep_all) return;
  Hazard h;
  h.first = first;
  h.second = second;
  h.first.nvtx_pattern = first_pattern;
  h.second.nvtx_pattern = second_pattern;
  h.kind = kind;
  h.confidence = confidence;
  h.anchored = evidence.anchored;
  h.cls = classify(first, second);
  h.space = second.access.space;
  h.lo = lo;
  h.hi = hi;
  h.ordered_up_to_tick = clock.get(first.agent);
  h.pdl = pdl;
  h.pdl_wait = order.pdl.wait;
  h.programmatic = programmatic;
  if (first.stream) h.event_after_first = recorded.right_after(first.seq);
  if (options.explain_and_fix && (shown || strongest))
    h.second_region_writers = writers.of(second.access.region);
  h.group = static_cast<uint32_t>(it->second);
  if (strongest) {
    g.confidence = confidence;
    g.evidence = evidence;
    g.first = h;  // show the strongest instance, the first of its evidence
  }
  if (options.keep_all) result.all.push_back(h);
  if (shown) result.shown.push_back(std::move(h));
}

void Checker::State::check_captured_address(const v1::Op& op, const ResolvedAccess& a, HazardSide& side,
                                            const hb::OpOrder& o) {
  const CapturedRegion* then = graphs.captured_region(op.graph().captured_seq(), a.space, a.lo, a.hi);
  if (!then || then->region == a.region) return;
  side.captured_label = then->label;
  side.captured_seq = op.graph().captured_seq();
  const RegionInfo* now = a.region ? resolver.region(a.region) : nullptr;
  side.owner_label = now ? now->label : 0;
  if (then->pool_capture) {
    // The graph's own intermediate: a hazard only where the memory's other
    // owner is used unordered with the launch (the shadow check finds that).
    if (a.region) side.graph_lifetime = GraphLifetime::kPoolAlias;
    return;
  }
  // Freed since capture: the replay touches the old address whatever the order.
  HazardSide freed;
  freed.seq = then->free_seq;
  freed.op_kind = OpKind::kFree;
  freed.stream = then->free_stream;
  freed.thread = then->free_thread;
  freed.region_label = then->label;
  freed.access.space = a.space;
  freed.access.lo = std::max(a.lo, then->base);
  freed.access.hi = std::min(a.hi, then->base + then->size);
  freed.access.writes = true;
  freed.access.region = then->region;
  HazardSide use = side;
  use.graph_lifetime = GraphLifetime::kCapturedFreed;
  use.region_label = then->label;
  use.access.region = then->region;  // the tensor the graph means, as the report names it
  report(freed, use, freed.access.lo, freed.access.hi, o);
}

void Checker::State::report_unjoined(const v1::Op& work, const v1::Op& end, const hb::OpOrder& o) {
  HazardSide first = op_side(work);
  HazardSide second = op_side(end);
  second.stream = end.stream();
  second.graph_lifetime = GraphLifetime::kUnjoinedCapture;
  second.captured_seq = work.seq();
  // The memory the unjoined work writes, if it names any: what the graph's
  // consumers would read unordered.
  resolver.resolve(work, accesses);
  for (const ResolvedAccess& a : accesses)
    if (a.writes || first.access.hi == 0) first.access = a;
  if (const RegionInfo* r = resolver.region(first.access.region)) first.region_label = r->label;
  second.access = first.access;
  second.access.reads = true;
  second.access.writes = false;
  second.region_label = first.region_label;
  report(first, second, first.access.lo, first.access.hi, o);
}

void Checker::State::process(const v1::Op& op) {
  if (bad_input) return;
  if (!hb.can_apply(op)) {
    bad_input = hb.cannot_apply(op) + " (racetrack validate lists every problem)";
    return;
  }
  if (graphs.is_captured(op)) {
    // Captured, not run: it runs with the graph's launches.
    graphs.on_captured(op, resolver);
    resolver.on_op(op);
    return;
  }
  unjoined.clear();
  graphs.on_op(op, resolver, unjoined);
  externals.on_op(op, resolver, completed_externals);
  resolver.on_op(op);
  if (!observer) recorded.on_op(op);  // for fixes; an observer makes none
  const hb::OpOrder order = hb.apply(op);
  if (!hb.exceeded().empty()) {
    bad_input = hb.exceeded();
    return;
  }
  if (observer) observer->on_order(op, order);
  for (const v1::Op& work : unjoined) report_unjoined(work, op, order);
  if (!observer)
    for (const ExternalAccess& e : completed_externals) complete_external(e, op, order);
  if (!touches_memory(op)) return;
  // Without the shadow memory, only a graph's captured addresses and
  // external agents' transfers in flight can make a hazard.
  if (observer && !(op.has_graph() && op.graph().captured_seq()) && !externals.any_in_flight()) return;
  resolver.resolve(op, accesses);
  if (accesses.empty()) return;
  const HazardSide of_op = op_side(op);
  // Consecutive accesses with one index and node are the rows of one side of
  // a pitched copy or memset (access_copies.cpp): one side, whose access is
  // their hull, so a pair of sides is one hazard however many rows overlap.
  auto same_side = [](const ResolvedAccess& x, const ResolvedAccess& y) {
    return x.index == y.index && x.node == y.node && x.space == y.space;
  };
  uint32_t side = 0;
  for (size_t k = 0; k < accesses.size(); ++k) {
    const ResolvedAccess& a = accesses[k];
    const hb::OpOrder o = access_order(order, op, a.index, a.node);
    if (k > 0 && same_side(accesses[k - 1], a)) {
      sides[side].access.hi = std::max(sides[side].access.hi, a.hi);
    } else {
      side = new_side(of_op, op, a, o.epoch.agent);
      conflicts.clear();
      if (op.has_graph() && op.graph().captured_seq()) {
        HazardSide marked = sides[side];
        check_captured_address(op, a, marked, o);
        sides[side] = marked;
      }
    }
    if (externals.any_in_flight()) {
      externals.conflicting(a, in_flight);
      for (const ExternalAccess* e : in_flight)
        report(in_flight_side(*e), sides[side], std::max(a.lo, e->access.lo), std::min(a.hi, e->access.hi),
               o);
    }
    if (observer) continue;
    shadow.access(a.space, a.lo, a.hi, ShadowEntry{o.epoch, a.node, side, a.reads, a.writes}, o, conflicts);
    if (k + 1 < accesses.size() && same_side(a, accesses[k + 1])) continue;  // more rows to come
    report_conflicts(side, o);
  }
  // After its own hazards: they name the writers before the op. Only
  // explanations use them.
  if (!observer && options.explain_and_fix && hb::is_device_op(op))
    for (const ResolvedAccess& a : accesses)
      if (a.writes && a.region) writers.note(a.region, op.stream());
}

void Checker::State::shadow_check(const ResolvedAccess& a, uint32_t side, const hb::OpOrder& o) {
  conflicts.clear();
  shadow.access(a.space, a.lo, a.hi, ShadowEntry{o.epoch, a.node, side, a.reads, a.writes}, o, conflicts);
  report_conflicts(side, o);
}

void Checker::State::report_conflicts(uint32_t side, const hb::OpOrder& o) {
  if (conflicts.empty()) return;
  std::sort(conflicts.begin(), conflicts.end());
  for (size_t i = 0; i < conflicts.size();) {
    const uint32_t earlier = conflicts[i].side;
    uint64_t lo = conflicts[i].lo, hi = conflicts[i].hi;
    for (++i; i < conflicts.size() && conflicts[i].side == earlier; ++i) {
      lo = std::min(lo, conflicts[i].lo);
      hi = std::max(hi, conflicts[i].hi);
    }
    report(sides[earlier], sides[side], lo, hi, o);
  }
}

HazardSide Checker::State::in_flight_side(const ExternalAccess& e) const {
  HazardSide s;
  s.seq = e.seq;
  s.op_kind = OpKind::kAnnotation;
  s.name = e.agent;
  s.thread = e.thread;
  s.access = e.access;
  s.region_label = e.label;
  s.external_agent = e.agent;
  s.external_seq = e.seq;
  return s;
}

void Checker::State::complete_external(const ExternalAccess& e, const v1::Op& op, const hb::OpOrder& o) {
  HazardSide s = in_flight_side(e);
  s.seq = op.seq();
  s.stream = hb::is_device_op(op) ? op.stream() : 0;
  s.thread = op.thread();
  s.nvtx = op.nvtx();
  s.role = role_of(s.stream);
  s.external_event = op.has_record() ? op.record().event() : 0;
  shadow_check(e.access, new_side(s, op, e.access, o.epoch.agent), o);
}

Checker::Checker(const CheckOptions& options, OrderObserver* observer)
    : s_(std::make_unique<State>(options, observer)) {}
Checker::~Checker() = default;

const TraceTables& Checker::tables() const {
  return s_->tables;
}

const std::vector<Hazard>& Checker::shown_so_far() const {
  return s_->result.shown;
}

bool Checker::is_group_first(const Hazard& h) const {
  return s_->result.groups[h.group].first.key() == h.key();
}

std::optional<std::string> Checker::bad_input() const {
  return s_->bad_input;
}

void Checker::add_entities(const v1::Chunk& chunk) {
  s_->label_region = s_->region_label = 0;  // the chunk may define regions
  s_->tables.add(chunk);
  s_->hb.add_entities(chunk);
  s_->resolver.add_entities(chunk, s_->tables);
  s_->pdl_facts.add_modules(chunk, s_->tables);
}

void Checker::add_op(const v1::Op& op) {
  s_->process(op);
  ++s_->result.ops;
}

void Checker::add_chunk(const v1::Chunk& chunk) {
  add_entities(chunk);
  for (const v1::Op& op : chunk.ops()) add_op(op);
}

CheckResult Checker::finish() {
  CheckResult& r = s_->result;
  r.assumptions = s_->options.assumptions;
  for (HazardGroup& g : r.groups) {
    g.shown = g.confidence >= s_->options.min_confidence && !g.suppressed;
    if (g.confidence == Confidence::kPossible) g.settle = settle_text(g.first, s_->tables);
    g.fix = suggest_fix(g.first, s_->tables);
    if (g.first.pdl) {
      g.fix.text = pdl_fix_text(g.first);
      g.fix.pytorch.clear();
      if (g.first.pdl_wait == hb::PdlWait::kUnknown) g.settle = pdl_settle_text(g.first, s_->tables);
    }
    if (g.first.programmatic.wait_seq) {
      g.fix.text = programmatic_fix_text(g.first, s_->tables);
      g.fix.pytorch.clear();
    }
  }
  r.modes = s_->resolver.mode_use();
  r.shadow_segments = s_->shadow.segment_count();
  r.inferred_accesses = s_->resolver.inferred_accesses();
  r.tables = s_->tables_ptr;
  return std::move(r);
}

CheckResult check_trace(const v1::Chunk& trace, const CheckOptions& options) {
  Checker checker(options);
  checker.add_chunk(trace);
  return checker.finish();
}

}  // namespace racetrack::race
