#include "racetrack/des/engine.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <queue>

namespace racetrack::des {
namespace {

enum EventType : uint8_t { kDeviceEnd, kHostEnd, kThreadResume, kDeviceReady, kHostStart };

// At equal times, by type (ends first, so starts see their writes), then by
// id: an op's index (indices follow seqs) or a thread's. 16 bytes, so the
// heap moves less.
struct Event {
  int64_t time;
  uint64_t order;  // type << 32 | id
  Event(int64_t t, EventType type, uint32_t id) : time(t), order(uint64_t{type} << 32 | id) {}
  EventType type() const { return static_cast<EventType>(order >> 32); }
  uint32_t id() const { return static_cast<uint32_t>(order); }
  bool operator>(const Event& o) const { return time != o.time ? time > o.time : order > o.order; }
};

// kClaimed: the op left its stream's queue for the device (started, or
// waiting for an engine of its pool).
enum Flag : uint8_t { kIssued = 1, kHostDone = 2, kDeviceDone = 4, kDeviceStarted = 8, kClaimed = 16 };
// Bits of Engine::awaited_: which parts of an op something waits on, so
// wake looks up waiters only for those (most parts nobody waits on).
uint8_t part_bit(Dep::Part part) {
  return static_cast<uint8_t>(1u << part);
}

uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// exp(sigma * N(0,1)) from a hash of (seed, seq): the same per op whatever
// order the ops run in.
double jitter_factor(double sigma, uint64_t seed, uint64_t seq) {
  if (sigma <= 0) return 1.0;
  const uint64_t a = mix(seed * 0x9E3779B97F4A7C15ull + seq), b = mix(a + 0x632BE59BD9B4E019ull);
  const double u1 = (static_cast<double>(a >> 11) + 1.0) * 0x1.0p-53,
               u2 = static_cast<double>(b >> 11) * 0x1.0p-53;
  const double normal = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  return std::exp(sigma * normal);
}

class Engine {
 public:
  Engine(const Program& p, const Schedule& s, MemoryObserver* observer)
      : p_(p),
        s_(s),
        observer_(observer),
        times_(p.ops.size()),
        flags_(p.ops.size(), 0),
        awaited_(p.ops.size(), 0),
        threads_(p.threads.size()),
        streams_(p.stream_ids.size()) {
    pools_[static_cast<int>(Resource::kKernel)].free = s.kernel_slots;
    pools_[static_cast<int>(Resource::kCopyH2D)].free = p.h2d_engines;
    pools_[static_cast<int>(Resource::kCopyD2H)].free = p.d2h_engines;
    pools_[static_cast<int>(Resource::kCopyOther)].free = s.other_copy_engines;
  }

  Result<RunResult> run() {
    for (uint32_t t = 0; t < threads_.size(); ++t) push({0, kThreadResume, t});
    while (!events_.empty()) {
      const Event e = events_.top();
      events_.pop();
      now_ = e.time;
      switch (e.type()) {
        case kThreadResume: advance_thread(e.id()); break;
        case kDeviceReady: try_start(e.id()); break;
        case kDeviceEnd: finish_device(e.id()); break;
        case kHostStart: observer_->on_start(e.id()); break;
        case kHostEnd: observer_->on_end(e.id()); break;
      }
    }
    RunResult result;
    for (uint32_t i = 0; i < p_.ops.size(); ++i) {
      const bool done = (flags_[i] & kHostDone) && (!p_.ops[i].device || (flags_[i] & kDeviceDone));
      if (!done)
        return make_error("the schedule deadlocked: op #" + std::to_string(p_.ops[i].seq) +
                          " never ran (its dependencies can never all finish)");
      result.makespan_ns = std::max({result.makespan_ns, times_[i].host_end, times_[i].device_end});
    }
    result.times = std::move(times_);
    return result;
  }

 private:
  struct Pool {
    uint32_t free = 0;
    std::priority_queue<std::tuple<int64_t, uint64_t, uint32_t>,
                        std::vector<std::tuple<int64_t, uint64_t, uint32_t>>,
                        std::greater<>>
        waiting;  // (ready time, seq, op)
  };
  struct ThreadState {
    size_t pos = 0;
    int64_t time = 0;
  };
  struct StreamState {
    std::deque<uint32_t> queue;  // enqueued, not yet done, in stream order
  };
  struct Waiter {
    bool thread;
    uint32_t id;
  };

  void push(Event e) { events_.push(e); }

  // Program::stream_ids is sorted and short: a search, not a hash, per op.
  StreamState& stream(uint32_t id) {
    const auto it = std::lower_bound(p_.stream_ids.begin(), p_.stream_ids.end(), id);
    return streams_[static_cast<size_t>(it - p_.stream_ids.begin())];
  }

  bool done(const Dep& d) const {
    const uint8_t need = d.part == Dep::kIssue         ? kIssued
                         : d.part == Dep::kHostEnd     ? kHostDone
                         : d.part == Dep::kDeviceStart ? kDeviceStarted
                                                       : kDeviceDone;
    return flags_[d.op] & need;
  }
  int64_t time_of(const Dep& d) const {
    const OpTimes& t = times_[d.op];
    switch (d.part) {
      case Dep::kIssue: return t.issue;
      case Dep::kHostEnd: return t.host_end;
      case Dep::kDeviceStart: return t.device_start;
      default: return t.device_end;
    }
  }

  // All deps done: the time the last one was. Else registers `waiter` on the
  // first missing one and returns -1.
  int64_t deps_time(uint32_t first, uint32_t count, uint32_t op, Waiter waiter) {
    int64_t latest = 0;
    auto visit = [&](const Dep& d) {
      if (!done(d)) {
        waiters_[key(d)].push_back(waiter);
        awaited_[d.op] |= part_bit(d.part);
        return false;
      }
      latest = std::max(latest, time_of(d));
      return true;
    };
    for (uint32_t k = first; k < first + count; ++k)
      if (!visit(p_.deps[k])) return -1;
    if (s_.extra_deps.empty()) return latest;
    if (auto extra = s_.extra_deps.find(op); extra != s_.extra_deps.end())
      for (const Dep& d : extra->second)
        if (!visit(d)) return -1;
    return latest;
  }

  static uint64_t key(const Dep& d) { return (uint64_t{d.op} << 2) | d.part; }

  void wake(uint32_t op, Dep::Part part) {
    if (!(awaited_[op] & part_bit(part))) return;
    auto it = waiters_.find(key({op, part}));
    if (it == waiters_.end()) return;
    for (const Waiter& w : it->second) push({now_, w.thread ? kThreadResume : kDeviceReady, w.id});
    waiters_.erase(it);
  }

  int64_t delay(uint32_t op) const {
    if (s_.delays.empty()) return 0;
    auto it = s_.delays.find(op);
    return it == s_.delays.end() ? 0 : std::max<int64_t>(0, it->second);
  }

  void advance_thread(uint32_t tid) {
    ThreadState& th = threads_[tid];
    const auto& ops = p_.threads[tid];
    while (th.pos < ops.size()) {
      const uint32_t i = ops[th.pos];
      const SimOp& op = p_.ops[i];
      OpTimes& t = times_[i];
      if (!(flags_[i] & kIssued)) {
        t.host_start = add_ns(th.time, op.device ? 0 : delay(i));
        t.issue = add_ns(t.host_start, op.call_ns);
        flags_[i] |= kIssued;
        if (op.device) enqueue(i);
        wake(i, Dep::kIssue);
      }
      const int64_t joins =
          deps_time(op.host_deps, op.host_dep_count, op.device ? UINT32_MAX : i, {true, tid});
      if (joins < 0) return;  // blocked: resumed when the dependency is done
      t.host_end = std::max(t.issue, joins);
      flags_[i] |= kHostDone;
      th.time = t.host_end;
      if (observer_ && !op.device && (op.access_count || observes_external(i))) {
        push({t.host_start, kHostStart, i});
        push({t.host_end, kHostEnd, i});
      }
      wake(i, Dep::kHostEnd);
      ++th.pos;
    }
  }

  void enqueue(uint32_t i) {
    StreamState& st = stream(p_.ops[i].stream);
    st.queue.push_back(i);
    if (may_claim(st, i)) push({times_[i].issue, kDeviceReady, i});
  }

  // Stream order: the op at the front of the queue, or a PDL secondary
  // (rule 1a) whose every op ahead of it has been claimed.
  bool may_claim(const StreamState& st, uint32_t i) const {
    for (size_t k = 0; k < st.queue.size(); ++k) {
      const uint32_t q = st.queue[k];
      if (q == i) return !(flags_[i] & kClaimed) && (k == 0 || p_.ops[i].overlaps_previous);
      if (!(flags_[q] & kClaimed)) return false;
    }
    return false;
  }

  // The first op of the queue not yet claimed, if it may be now.
  void ready_next(const StreamState& st) {
    for (uint32_t q : st.queue) {
      if (flags_[q] & kClaimed) continue;
      if (may_claim(st, q)) push({std::max(now_, times_[q].issue), kDeviceReady, q});
      return;
    }
  }

  void try_start(uint32_t i) {
    const SimOp& op = p_.ops[i];
    StreamState& st = stream(op.stream);
    if ((flags_[i] & kDeviceDone) || !may_claim(st, i)) return;
    const int64_t deps = deps_time(op.device_deps, op.device_dep_count, i, {false, i});
    if (deps < 0) return;
    const int64_t ready = add_ns(std::max(times_[i].issue, deps), op.staged ? 0 : delay(i));
    if (ready > now_) {
      push({ready, kDeviceReady, i});
      return;
    }
    flags_[i] |= kClaimed;
    ready_next(st);  // a PDL secondary behind it may start too
    if (op.resource == Resource::kNone) return start(i);
    Pool& pool = pools_[static_cast<int>(op.resource)];
    if (pool.free > 0) {
      --pool.free;
      start(i);
    } else {
      pool.waiting.emplace(now_, op.seq, i);
    }
  }

  void start(uint32_t i) {
    const SimOp& op = p_.ops[i];
    double factor = jitter_factor(s_.jitter_sigma, s_.seed, op.seq);
    if (!s_.stream_slowdown.empty())
      if (auto slow = s_.stream_slowdown.find(op.stream); slow != s_.stream_slowdown.end())
        factor *= slow->second;
    times_[i].device_start = now_;
    flags_[i] |= kDeviceStarted;
    const int64_t held = op.staged ? delay(i) : 0;  // a staged copy's write, not its read, is held back
    push({add_ns(add_ns(now_, duration_ns(std::round(static_cast<double>(op.device_ns) * factor))), held),
          kDeviceEnd, i});
    if (observer_) observer_->on_start(i);
    wake(i, Dep::kDeviceStart);
  }

  // A host call that observes an external agent's completion lands its
  // access (external_landings.h).
  bool observes_external(uint32_t i) const {
    const auto [first, last] = p_.observed_at(i);
    return first != last;
  }

  void finish_device(uint32_t i) {
    const SimOp& op = p_.ops[i];
    times_[i].device_end = now_;
    flags_[i] |= kDeviceDone;
    if (observer_) observer_->on_end(i);
    if (op.resource != Resource::kNone) {
      Pool& pool = pools_[static_cast<int>(op.resource)];
      if (pool.waiting.empty()) {
        ++pool.free;
      } else {
        const uint32_t next = std::get<2>(pool.waiting.top());
        pool.waiting.pop();
        start(next);
      }
    }
    StreamState& st = stream(op.stream);
    // A PDL secondary may end before the op ahead of it.
    if (st.queue.front() == i)
      st.queue.pop_front();
    else
      st.queue.erase(std::find(st.queue.begin(), st.queue.end(), i));
    ready_next(st);
    wake(i, Dep::kDeviceEnd);
  }

  const Program& p_;
  const Schedule& s_;
  MemoryObserver* observer_;
  SpillArray<OpTimes> times_;
  SpillArray<uint8_t> flags_;
  SpillArray<uint8_t> awaited_;  // part_bit of each part with waiters
  std::vector<ThreadState> threads_;
  std::vector<StreamState> streams_;  // by position in Program::stream_ids
  Pool pools_[5];
  std::unordered_map<uint64_t, std::vector<Waiter>> waiters_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  int64_t now_ = 0;
};

}  // namespace

Result<RunResult> run(const Program& program, const Schedule& schedule, MemoryObserver* observer) {
  return Engine(program, schedule, observer).run();
}

}  // namespace racetrack::des
