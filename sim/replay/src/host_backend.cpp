#include "host_backend.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace racetrack::replay {
namespace {

using Clock = std::chrono::steady_clock;
enum Flag : uint8_t { kIssued = 1, kHostDone = 2, kDeviceDone = 4 };

class HostReplay {
 public:
  HostReplay(const des::Program& p, const ArenaPlan& plan, const des::ValueTracker& reference,
             const HostRunOptions& o)
      : p_(p), plan_(plan), reference_(reference), o_(o), flags_(p.ops.size()), times_(p.ops.size()) {
    for (race::SpaceKey space : plan.spaces()) {
      const uint64_t granules = plan.arena_bytes(space) / plan.granule() + 1;
      arenas_[space] = std::make_unique<std::atomic<uint32_t>[]>(granules);
      for (uint64_t g = 0; g < granules; ++g) arenas_[space][g].store(0, std::memory_order_relaxed);
    }
    for (uint32_t i = 0; i < p.ops.size(); ++i)
      if (p.ops[i].device) streams_[p.ops[i].stream].push_back(i);
  }

  HostRun run() {
    start_ = Clock::now();
    std::vector<std::thread> workers;
    std::vector<std::vector<des::Mismatch>> found(p_.threads.size() + streams_.size());
    size_t slot = 0;
    for (uint32_t t = 0; t < p_.threads.size(); ++t)
      workers.emplace_back([this, t, &out = found[slot++]] { host_thread(t, out); });
    for (const auto& [stream, ops] : streams_)
      workers.emplace_back([this, &ops = ops, &out = found[slot++]] { stream_worker(ops, out); });
    for (auto& w : workers) w.join();
    HostRun run;
    for (auto& f : found) run.mismatches.insert(run.mismatches.end(), f.begin(), f.end());
    check_final(run.mismatches);
    std::sort(run.mismatches.begin(), run.mismatches.end(), [](const des::Mismatch& a, const des::Mismatch& b) {
      return std::tie(a.reader, a.lo) < std::tie(b.reader, b.lo);
    });
    for (const des::OpTimes& t : times_)
      run.times.makespan_ns = std::max({run.times.makespan_ns, t.host_end, t.device_end});
    run.times.times = std::move(times_);
    return run;
  }

 private:
  int64_t now() const { return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start_).count(); }

  void spin(int64_t ns) const {
    if (!o_.traced_timing || ns <= 0) return;
    const auto until = Clock::now() + std::chrono::nanoseconds(ns);
    if (ns > 200000) std::this_thread::sleep_until(until - std::chrono::microseconds(50));
    while (Clock::now() < until) {
    }
  }

  void mark(uint32_t op, Flag f) {
    {
      std::lock_guard lock(mutex_);
      flags_[op].fetch_or(f, std::memory_order_release);
    }
    done_.notify_all();
  }

  void wait_for(const des::Dep& d) {
    const uint8_t need = d.part == des::Dep::kIssue ? kIssued : d.part == des::Dep::kHostEnd ? kHostDone : kDeviceDone;
    if (flags_[d.op].load(std::memory_order_acquire) & need) return;
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return flags_[d.op].load(std::memory_order_acquire) & need; });
  }

  void wait_all(uint32_t first, uint32_t count) {
    for (uint32_t k = first; k < first + count; ++k) wait_for(p_.deps[k]);
  }

  void hold(uint32_t op) {
    auto it = o_.delays.find(op);
    if (it != o_.delays.end()) std::this_thread::sleep_for(std::chrono::nanoseconds(it->second));
  }

  // Granule indices whose start lies in the arena image of [lo, hi).
  std::pair<uint64_t, uint64_t> granules(race::SpaceKey space, uint64_t lo, uint64_t hi) const {
    const uint64_t g = plan_.granule();
    const uint64_t a = plan_.offset(space, lo), b = plan_.offset(space, hi);
    return {(a + g - 1) / g, (b + g - 1) / g};
  }

  // The traced bytes of [lo, hi) (whose arena image starts at `a`) that
  // land in granule g: exact unscaled, within 1/scale bytes scaled down.
  std::pair<uint64_t, uint64_t> traced_span(uint64_t lo, uint64_t hi, uint64_t a, uint64_t g) const {
    auto back = [&](uint64_t y) {
      if (y <= a) return lo;
      const double s = plan_.scale();
      const uint64_t d = s >= 1.0 ? y - a : static_cast<uint64_t>(std::ceil(static_cast<double>(y - a) / s));
      return std::min(hi, lo + d);
    };
    return {back(g * plan_.granule()), back((g + 1) * plan_.granule())};
  }

  // Adds granule g of [lo, hi) to `out`, merged with the previous entry
  // when it continues it.
  void add_mismatch(std::vector<des::Mismatch>& out, uint32_t reader, uint32_t expected, uint32_t observed,
                    race::SpaceKey space, uint64_t lo, uint64_t hi, uint64_t g) const {
    const auto [a_lo, a_hi] = traced_span(lo, hi, plan_.offset(space, lo), g);
    des::Mismatch* prev = out.empty() ? nullptr : &out.back();
    if (prev && prev->reader == reader && prev->expected == expected && prev->observed == observed &&
        prev->space == space && prev->lo <= a_lo && prev->hi >= a_lo)
      prev->hi = std::max(prev->hi, a_hi);
    else
      out.push_back({reader, expected, observed, space, a_lo, a_hi});
  }

  void check_reads(uint32_t op, std::vector<des::Mismatch>& out) {
    const des::SimOp& s = p_.ops[op];
    for (uint32_t a = s.accesses; a < s.accesses + s.access_count; ++a) {
      const des::SimAccess& acc = p_.accesses[a];
      if (!acc.reads) continue;
      auto* arena = arenas_.at(acc.space).get();
      const auto [first, last] = reference_.expected(a);
      for (const des::ExpectedWriter* e = first; e != last; ++e) {
        const uint32_t expected = e->writer == des::kInitial ? 0 : e->writer + 1;
        const auto [g0, g1] = granules(acc.space, e->lo, e->hi);
        for (uint64_t g = g0; g < g1; ++g) {
          const uint32_t seen = arena[g].load(std::memory_order_relaxed);
          if (seen == expected) continue;
          // Report in traced addresses: the granule's span within e.
          add_mismatch(out, op, e->writer, seen == 0 ? des::kInitial : seen - 1, acc.space, e->lo, e->hi, g);
        }
      }
    }
  }

  // After the run: every granule must hold its last writer in submission
  // order, as in the sequential run (a WAW shows here when nothing reads the
  // bytes afterwards). Walks the writes backwards, so the first one to
  // reach a granule is its expected writer.
  void check_final(std::vector<des::Mismatch>& out) const {
    std::map<race::SpaceKey, std::vector<bool>> settled;
    for (race::SpaceKey space : plan_.spaces())
      settled[space].assign(plan_.arena_bytes(space) / plan_.granule() + 1, false);
    std::vector<des::Mismatch> found;
    for (uint32_t op = static_cast<uint32_t>(p_.ops.size()); op-- > 0;) {
      const des::SimOp& s = p_.ops[op];
      for (uint32_t a = s.accesses; a < s.accesses + s.access_count; ++a) {
        const des::SimAccess& acc = p_.accesses[a];
        if (!acc.writes) continue;
        auto* arena = arenas_.at(acc.space).get();
        std::vector<bool>& done = settled[acc.space];
        const auto [g0, g1] = granules(acc.space, acc.lo, acc.hi);
        for (uint64_t g = g0; g < g1; ++g) {
          if (done[g]) continue;
          done[g] = true;
          const uint32_t seen = arena[g].load(std::memory_order_relaxed);
          if (seen != op + 1)
            add_mismatch(found, des::kInitial, op, seen == 0 ? des::kInitial : seen - 1, acc.space, acc.lo,
                         acc.hi, g);
        }
      }
    }
    out.insert(out.end(), found.begin(), found.end());
  }

  void stamp_writes(uint32_t op) {
    const des::SimOp& s = p_.ops[op];
    for (uint32_t a = s.accesses; a < s.accesses + s.access_count; ++a) {
      const des::SimAccess& acc = p_.accesses[a];
      if (!acc.writes) continue;
      auto* arena = arenas_.at(acc.space).get();
      const auto [g0, g1] = granules(acc.space, acc.lo, acc.hi);
      for (uint64_t g = g0; g < g1; ++g) arena[g].store(op + 1, std::memory_order_relaxed);
    }
  }

  void host_thread(uint32_t t, std::vector<des::Mismatch>& out) {
    for (uint32_t op : p_.threads[t]) {
      const des::SimOp& s = p_.ops[op];
      if (!s.device) hold(op);
      times_[op].host_start = now();
      spin(s.call_ns);
      times_[op].issue = now();
      if (!s.device) check_reads(op, out);
      mark(op, kIssued);
      wait_all(s.host_deps, s.host_dep_count);
      if (!s.device) stamp_writes(op);
      times_[op].host_end = now();
      mark(op, kHostDone);
    }
  }

  void stream_worker(const std::vector<uint32_t>& ops, std::vector<des::Mismatch>& out) {
    for (uint32_t op : ops) {
      const des::SimOp& s = p_.ops[op];
      wait_all(s.device_deps, s.device_dep_count);
      hold(op);
      times_[op].device_start = now();
      check_reads(op, out);
      spin(s.device_ns);
      stamp_writes(op);
      times_[op].device_end = now();
      mark(op, kDeviceDone);
    }
  }

  const des::Program& p_;
  const ArenaPlan& plan_;
  const des::ValueTracker& reference_;
  const HostRunOptions& o_;
  std::vector<std::atomic<uint8_t>> flags_;
  std::vector<des::OpTimes> times_;
  std::map<race::SpaceKey, std::unique_ptr<std::atomic<uint32_t>[]>> arenas_;
  std::map<uint32_t, std::vector<uint32_t>> streams_;
  std::mutex mutex_;
  std::condition_variable done_;
  Clock::time_point start_;
};

}  // namespace

HostRun run_on_host(const des::Program& program, const ArenaPlan& plan, const des::ValueTracker& reference,
                    const HostRunOptions& options) {
  return HostReplay(program, plan, reference, options).run();
}

}  // namespace racetrack::replay
