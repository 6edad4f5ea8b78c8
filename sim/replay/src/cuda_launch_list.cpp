#include "cuda_launch_list.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "racetrack/des/values.h"
#include "racetrack/replay/plan.h"

namespace racetrack::replay {
namespace {

Work work_of(const des::SimOp& s) {
  if (!s.device) return s.access_count ? Work::kHostAccess : Work::kNone;
  switch (s.resource) {
    case des::Resource::kKernel: return Work::kKernel;
    case des::Resource::kCopyH2D:
    case des::Resource::kCopyD2H:
    case des::Resource::kCopyOther: return Work::kCopy;  // a memset when it only writes (below)
    case des::Resource::kNone: break;
  }
  // The only device ops with accesses and no engine are host functions.
  return s.access_count ? Work::kHostFunc : Work::kNone;
}

// The arena image of a traced access: offset and length.
std::pair<uint64_t, uint64_t> image(const ArenaPlan& plan, const des::SimAccess& a) {
  const uint64_t lo = plan.offset(a.space, a.lo);
  return {lo, plan.offset(a.space, a.hi) - lo};
}

// A copy's or memset's runs: its write accesses (the destination's rows,
// traces extents.h) zipped by bytes with its read-only ones (the source's
// rows), so a pitched side pairs row by row with a packed one. A memset, or
// a copy with no source (an unknown side), has one run per written range.
void add_copy_runs(const des::Program& p, const ArenaPlan& plan, const des::SimOp& s, OpLaunch& o,
                   std::vector<CopyRun>& runs) {
  struct Image {
    uint32_t space;
    uint64_t offset, bytes;
  };
  std::vector<Image> dst, src;
  for (uint32_t a = s.accesses; a < s.accesses + s.access_count; ++a) {
    const auto [offset, bytes] = image(plan, p.accesses[a]);
    (p.accesses[a].writes ? dst : src).push_back({p.accesses[a].space, offset, bytes});
  }
  if (dst.empty()) {
    o.work = Work::kMemset;  // nothing to write: only the checks run
    return;
  }
  o.runs = static_cast<uint32_t>(runs.size());
  if (src.empty()) {
    o.work = Work::kMemset;
    for (const Image& d : dst) runs.push_back({0, d.space, 0, d.offset, d.bytes});
  } else {
    size_t d = 0, r = 0;
    uint64_t d_used = 0, r_used = 0;
    while (d < dst.size() && r < src.size()) {
      const uint64_t n = std::min(dst[d].bytes - d_used, src[r].bytes - r_used);
      if (n) runs.push_back({src[r].space, dst[d].space, src[r].offset + r_used, dst[d].offset + d_used, n});
      d_used += n;
      r_used += n;
      if (d_used == dst[d].bytes) {
        ++d;
        d_used = 0;
      }
      if (r_used == src[r].bytes) {
        ++r;
        r_used = 0;
      }
    }
  }
  o.run_count = static_cast<uint32_t>(runs.size()) - o.runs;
}

// A host join on a device part. The CUDA backend cannot wait for a copy to
// start: a staged copy's call (Dep::kDeviceStart) waits for it to finish,
// which orders more than the model does but never less.
bool joins_device(des::Dep::Part part) {
  return part == des::Dep::kDeviceEnd || part == des::Dep::kDeviceStart;
}

// PDL secondaries (ordering rule 1a) run on lane streams of their own, so
// they can overtake the kernels they may overlap. Per op: the op before it
// on its traced stream, and for an overlapping op the first op of its chain
// (the kernel the chain overlaps first) and its depth in the chain (1 for
// the kernel right after that one).
struct Chains {
  std::vector<int64_t> previous, root;
  std::vector<uint32_t> depth;
  explicit Chains(const des::Program& p)
      : previous(p.ops.size(), -1), root(p.ops.size(), -1), depth(p.ops.size(), 0) {
    std::unordered_map<uint32_t, uint32_t> last;
    for (uint32_t i = 0; i < p.ops.size(); ++i) {
      if (!p.ops[i].device) continue;
      if (auto it = last.find(p.ops[i].stream); it != last.end()) previous[i] = it->second;
      last[p.ops[i].stream] = i;
      if (!p.ops[i].overlaps_previous || previous[i] < 0) continue;
      const auto before = static_cast<uint32_t>(previous[i]);
      root[i] = depth[before] ? root[before] : before;
      depth[i] = depth[before] + 1;
    }
  }
  bool overlaps(uint32_t i) const { return depth[i] > 0; }
  // The ops an overlapping op may overtake: its chain from the root.
  template <class F>
  void for_overtaken(uint32_t i, F f) const {
    for (int64_t k = previous[i]; k >= 0 && k >= root[i]; k = previous[static_cast<size_t>(k)])
      f(static_cast<uint32_t>(k));
  }
};

// The done events: one for every op that a device part on another stream
// (or a lane) or a host join waits for, numbered in submission order.
// `stream_of`: each op's launch stream (-1 for host ops).
std::vector<int32_t> number_done_events(const des::Program& p, const Chains& chains,
                                        const std::vector<int32_t>& stream_of, uint32_t& count) {
  std::vector<int32_t> event_of(p.ops.size(), -1);
  // Waiting for an overlapping op waits for what it may have overtaken too,
  // except on the waiter's own launch stream, where stream order does.
  auto need = [&](uint32_t op, int32_t waiter) {
    if (stream_of[op] != waiter) event_of[op] = 0;
    if (chains.overlaps(op))
      chains.for_overtaken(op, [&](uint32_t k) {
        if (stream_of[k] != waiter) event_of[k] = 0;
      });
  };
  for (uint32_t i = 0; i < p.ops.size(); ++i) {
    const des::SimOp& s = p.ops[i];
    for (uint32_t k = s.device_deps; k < s.device_deps + s.device_dep_count; ++k)
      if (p.deps[k].part == des::Dep::kDeviceEnd && p.ops[p.deps[k].op].stream != s.stream)
        need(p.deps[k].op, stream_of[i]);
    for (uint32_t k = s.host_deps; k < s.host_deps + s.host_dep_count; ++k)
      if (joins_device(p.deps[k].part)) need(p.deps[k].op, -1);
    if (chains.overlaps(i)) {
      // Its lane waits for the op before its chain.
      const int64_t before_chain = chains.previous[static_cast<size_t>(chains.root[i])];
      if (before_chain >= 0) need(static_cast<uint32_t>(before_chain), stream_of[i]);
    } else if (chains.previous[i] >= 0 && chains.overlaps(static_cast<uint32_t>(chains.previous[i]))) {
      // Stream order resumes: it waits for the chain before it.
      need(static_cast<uint32_t>(chains.previous[i]), stream_of[i]);
    }
  }
  count = 0;
  for (int32_t& e : event_of)
    if (e == 0) e = static_cast<int32_t>(count++);
  return event_of;
}

}  // namespace

LaunchList lower_to_launches(const des::Program& p, const ArenaPlan& plan,
                             const des::SequentialReference& reference) {
  LaunchList l;
  l.granule = plan.granule();
  for (race::SpaceKey space : plan.spaces())
    l.arenas.push_back({space, plan.arena_bytes(space), plan.arena_bytes(space) / plan.granule() + 1});

  // One GPU replays every traced device, so only one traced stream can be
  // its legacy default stream; the others become blocking streams, which
  // order the same way against everything but each other.
  std::unordered_map<uint32_t, int32_t> slot_of;
  bool legacy_taken = false;
  for (uint32_t id : p.stream_ids) {
    StreamSpec spec;
    spec.traced_id = id;
    if (const v1::Stream* s = p.tables->stream(id)) {
      spec.legacy = s->flags() == v1::STREAM_LEGACY_DEFAULT && !legacy_taken;
      spec.non_blocking = s->flags() == v1::STREAM_NON_BLOCKING;
      spec.priority = s->priority();
    }
    legacy_taken = legacy_taken || spec.legacy;
    slot_of[id] = static_cast<int32_t>(l.streams.size());
    l.streams.push_back(spec);
  }

  const Chains chains(p);
  // Lane streams, by (traced stream, depth in a PDL chain).
  std::map<std::pair<uint32_t, uint32_t>, int32_t> lanes;
  std::vector<int32_t> stream_of(p.ops.size(), -1);
  for (uint32_t i = 0; i < p.ops.size(); ++i) {
    const des::SimOp& s = p.ops[i];
    if (!s.device) continue;
    stream_of[i] = slot_of.at(s.stream);
    if (!chains.overlaps(i)) continue;
    auto [it, added] = lanes.try_emplace({s.stream, chains.depth[i]}, static_cast<int32_t>(l.streams.size()));
    if (added) {
      StreamSpec spec = l.streams[static_cast<size_t>(stream_of[i])];
      spec.legacy = false;
      spec.non_blocking = true;  // ordered only by the events below
      l.streams.push_back(spec);
    }
    stream_of[i] = it->second;
  }
  const std::vector<int32_t> event_of = number_done_events(p, chains, stream_of, l.events);
  auto wait_done = [&](std::vector<uint32_t>& refs, uint32_t op, int32_t waiter) {
    if (stream_of[op] != waiter) refs.push_back(static_cast<uint32_t>(event_of[op]));
    if (chains.overlaps(op))
      chains.for_overtaken(op, [&](uint32_t k) {
        if (stream_of[k] != waiter) refs.push_back(static_cast<uint32_t>(event_of[k]));
      });
  };
  for (const auto& thread : p.threads) l.threads.emplace_back(thread.begin(), thread.end());
  std::unordered_map<uint32_t, uint32_t> last_on_stream;
  l.ops.reserve(p.ops.size());
  for (uint32_t i = 0; i < p.ops.size(); ++i) {
    const des::SimOp& s = p.ops[i];
    OpLaunch o;
    o.work = work_of(s);
    o.stream = stream_of[i];
    o.thread = s.thread;
    o.call_ns = s.call_ns;
    o.device_ns = s.device_ns;
    o.done_event = event_of[i];
    o.checks = static_cast<uint32_t>(l.checks.size());
    add_read_checks(p, plan, reference, i, l.checks);
    o.check_count = static_cast<uint32_t>(l.checks.size()) - o.checks;
    o.writes = static_cast<uint32_t>(l.writes.size());
    add_writes(p, plan, i, l.writes);
    o.write_count = static_cast<uint32_t>(l.writes.size()) - o.writes;
    if (o.work == Work::kCopy) add_copy_runs(p, plan, s, o, l.copy_runs);

    // Ops of the same thread are issued in order anyway; an op of another
    // thread that this one must come after is waited for before issuing.
    o.issue_after = static_cast<uint32_t>(l.issue_after.size());
    auto after = [&](uint32_t op, bool returned) {
      if (p.ops[op].thread != s.thread) l.issue_after.push_back({op, returned});
    };
    if (s.device) {
      // Stream order is enqueue order.
      if (auto it = last_on_stream.find(s.stream); it != last_on_stream.end()) after(it->second, false);
      last_on_stream[s.stream] = i;
      o.waits = static_cast<uint32_t>(l.event_refs.size());
      for (uint32_t k = s.device_deps; k < s.device_deps + s.device_dep_count; ++k) {
        const des::Dep& d = p.deps[k];
        if (d.part != des::Dep::kDeviceEnd) {
          after(d.op, d.part == des::Dep::kHostEnd);
        } else if (p.ops[d.op].stream != s.stream) {
          wait_done(l.event_refs, d.op, o.stream);
          after(d.op, false);  // its event must be recorded before the wait is issued
        }
      }
      if (chains.overlaps(i)) {
        // On its lane: after the op before its chain and what the chain's
        // ops waited for on other streams, not after the chain itself.
        const int64_t before_chain = chains.previous[static_cast<size_t>(chains.root[i])];
        if (before_chain >= 0) {
          wait_done(l.event_refs, static_cast<uint32_t>(before_chain), o.stream);
          after(static_cast<uint32_t>(before_chain), false);
        }
        chains.for_overtaken(i, [&](uint32_t k) {
          const OpLaunch& c = l.ops[k];
          for (uint32_t w = c.waits; w < c.waits + c.wait_count; ++w) {
            const uint32_t ref = l.event_refs[w];  // copied: push_back may reallocate
            l.event_refs.push_back(ref);
          }
        });
      } else if (chains.previous[i] >= 0 && chains.overlaps(static_cast<uint32_t>(chains.previous[i]))) {
        // Stream order resumes: after every op of the chain before it.
        wait_done(l.event_refs, static_cast<uint32_t>(chains.previous[i]), o.stream);
        after(static_cast<uint32_t>(chains.previous[i]), false);
      }
      o.wait_count = static_cast<uint32_t>(l.event_refs.size()) - o.waits;
    }
    o.joins = static_cast<uint32_t>(l.event_refs.size());
    for (uint32_t k = s.host_deps; k < s.host_deps + s.host_dep_count; ++k) {
      const des::Dep& d = p.deps[k];
      if (!joins_device(d.part)) {
        after(d.op, d.part == des::Dep::kHostEnd);
      } else {
        wait_done(l.event_refs, d.op, -1);
        after(d.op, false);
      }
    }
    o.join_count = static_cast<uint32_t>(l.event_refs.size()) - o.joins;
    o.issue_after_count = static_cast<uint32_t>(l.issue_after.size()) - o.issue_after;
    l.ops.push_back(o);
  }
  return l;
}

}  // namespace racetrack::replay
