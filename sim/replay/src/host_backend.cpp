#include "host_backend.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include "stamps.h"

namespace racetrack::replay {
namespace {

using Clock = std::chrono::steady_clock;
enum Flag : uint8_t { kIssued = 1, kHostDone = 2, kDeviceDone = 4, kDeviceStarted = 8 };

class HostReplay {
 public:
  HostReplay(const des::Program& p, const ArenaPlan& plan, const des::SequentialReference& reference,
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

  Result<HostRun> run() {
    std::vector<uint32_t> callers;  // host threads with calls
    for (uint32_t t = 0; t < p_.threads.size(); ++t)
      if (!p_.threads[t].empty()) callers.push_back(t);
    const size_t needed = callers.size() + streams_.size();
    if (needed > kMaxReplayThreads)
      return make_error("replay runs one CPU thread per stream and per host thread: this trace needs " +
                        std::to_string(needed) + " (" + std::to_string(streams_.size()) + " streams, " +
                        std::to_string(callers.size()) + " host threads), more than racetrack's limit of " +
                        std::to_string(kMaxReplayThreads));
    start_ = Clock::now();
    std::vector<std::thread> workers;
    std::vector<std::vector<des::Mismatch>> found(needed);
    size_t slot = 0;
    try {
      for (uint32_t t : callers)
        workers.emplace_back([this, t, &out = found[slot++]] { host_thread(t, out); });
      for (const auto& [stream, ops] : streams_)
        workers.emplace_back([this, &ops = ops, &out = found[slot++]] { stream_worker(ops, out); });
    } catch (const std::system_error& e) {
      // Release the threads already started from their waits.
      {
        std::lock_guard lock(mutex_);
        abort_.store(true);
      }
      done_.notify_all();
      for (auto& w : workers) w.join();
      return make_error("replay cannot start thread " + std::to_string(workers.size() + 1) + " of " +
                        std::to_string(needed) + ": " + e.what());
    }
    for (auto& w : workers) w.join();
    HostRun run;
    for (auto& f : found) run.mismatches.insert(run.mismatches.end(), f.begin(), f.end());
    add_final_mismatches(
        p_, plan_,
        [this](uint32_t space, uint64_t g) { return arenas_.at(space)[g].load(std::memory_order_relaxed); },
        run.mismatches);
    sort_mismatches(run.mismatches);
    for (const des::OpTimes& t : times_)
      run.times.makespan_ns = std::max({run.times.makespan_ns, t.host_end, t.device_end});
    run.times.times = std::move(times_);
    return run;
  }

 private:
  int64_t now() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start_).count();
  }

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
    if (done(d)) return;
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return abort_.load() || done(d); });
  }

  // False when the run is aborted.
  bool wait_all(uint32_t first, uint32_t count) {
    for (uint32_t k = first; k < first + count; ++k) wait_for(p_.deps[k]);
    return !abort_.load(std::memory_order_relaxed);
  }

  bool done(const des::Dep& d) const {
    const uint8_t need = d.part == des::Dep::kIssue         ? kIssued
                         : d.part == des::Dep::kHostEnd     ? kHostDone
                         : d.part == des::Dep::kDeviceStart ? kDeviceStarted
                                                            : kDeviceDone;
    return flags_[d.op].load(std::memory_order_acquire) & need;
  }

  // Waits out op's delay, or less once everything its release names is done.
  void hold(uint32_t op) {
    auto it = o_.delays.find(op);
    if (it == o_.delays.end()) return;
    const auto until = Clock::now() + std::chrono::nanoseconds(it->second);
    auto release = o_.releases.find(op);
    if (release == o_.releases.end() || release->second.empty()) return std::this_thread::sleep_until(until);
    std::unique_lock lock(mutex_);
    done_.wait_until(lock, until, [&] {
      return abort_.load() || std::all_of(release->second.begin(), release->second.end(),
                                          [&](const des::Dep& d) { return done(d); });
    });
  }

  // Compares the granules op's reads check with the sequential run's
  // versions; `checks` is the calling thread's scratch space.
  void check_reads(uint32_t op, std::vector<GranuleCheck>& checks, std::vector<des::Mismatch>& out) {
    checks.clear();
    add_read_checks(p_, plan_, reference_, op, checks);
    for (const GranuleCheck& c : checks) {
      const auto* arena = arenas_.at(c.space).get();
      for (uint64_t g = c.g0; g < c.g1; ++g) {
        const uint32_t seen = arena[g].load(std::memory_order_relaxed);
        if (seen != c.expected)
          add_granule_mismatch(plan_, {op, writer_of(c.expected), writer_of(seen), c.space, c.lo, c.hi}, g,
                               out);
      }
    }
  }

  void stamp_writes(uint32_t op, std::vector<GranuleWrite>& writes) {
    writes.clear();
    add_writes(p_, plan_, op, writes);
    for (const GranuleWrite& w : writes) {
      auto* arena = arenas_.at(w.space).get();
      const uint32_t stamp = w.stamp ? w.stamp : stamp_of(op);
      for (uint64_t g = w.g0; g < w.g1; ++g) arena[g].store(stamp, std::memory_order_relaxed);
    }
  }

  void host_thread(uint32_t t, std::vector<des::Mismatch>& out) {
    std::vector<GranuleCheck> checks;
    std::vector<GranuleWrite> writes;
    for (uint32_t op : p_.threads[t]) {
      const des::SimOp& s = p_.ops[op];
      if (!s.device) hold(op);
      times_[op].host_start = now();
      spin(s.call_ns);
      times_[op].issue = now();
      if (!s.device) check_reads(op, checks, out);
      mark(op, kIssued);
      if (!wait_all(s.host_deps, s.host_dep_count)) return;
      if (!s.device) stamp_writes(op, writes);
      times_[op].host_end = now();
      mark(op, kHostDone);
    }
  }

  void stream_worker(const racetrack::SpillArray<uint32_t>& ops, std::vector<des::Mismatch>& out) {
    std::vector<GranuleCheck> checks;
    std::vector<GranuleWrite> writes;
    // Ops still running on threads of their own, because a PDL secondary
    // (rule 1a) behind them may start before they end.
    std::vector<std::thread> overlapped;
    auto join_overlapped = [&] {
      for (auto& t : overlapped) t.join();
      overlapped.clear();
    };
    for (size_t k = 0; k < ops.size(); ++k) {
      const uint32_t op = ops[k];
      const des::SimOp& s = p_.ops[op];
      if (!s.overlaps_previous) join_overlapped();  // stream order resumes
      if (!wait_all(s.device_deps, s.device_dep_count)) break;
      if (!s.staged) hold(op);
      times_[op].device_start = now();
      check_reads(op, checks, out);
      mark(op, kDeviceStarted);  // a staged copy's call returns once its source is read
      if (s.staged) hold(op);    // so only its write can be held back
      const bool next_overlaps = k + 1 < ops.size() && p_.ops[ops[k + 1]].overlaps_previous;
      if (next_overlaps) {
        try {
          // It ends no sooner than the secondary starts: the overlap the
          // rule allows, shown every run.
          overlapped.emplace_back([this, op, next = ops[k + 1]] {
            wait_for({next, des::Dep::kDeviceStart});
            std::vector<GranuleWrite> own;
            finish_device(op, own);
          });
          continue;
        } catch (const std::system_error&) {
          // No thread to spare: run it in order, as without PDL.
        }
      }
      finish_device(op, writes);
    }
    join_overlapped();
  }

  void finish_device(uint32_t op, std::vector<GranuleWrite>& writes) {
    spin(p_.ops[op].device_ns);
    stamp_writes(op, writes);
    times_[op].device_end = now();
    mark(op, kDeviceDone);
  }

  const des::Program& p_;
  const ArenaPlan& plan_;
  const des::SequentialReference& reference_;
  const HostRunOptions& o_;
  std::vector<std::atomic<uint8_t>> flags_;
  racetrack::SpillArray<des::OpTimes> times_;
  std::map<race::SpaceKey, std::unique_ptr<std::atomic<uint32_t>[]>> arenas_;
  std::map<uint32_t, racetrack::SpillArray<uint32_t>> streams_;  // device ops of each stream, in order
  std::mutex mutex_;
  std::condition_variable done_;
  std::atomic<bool> abort_{false};  // a thread could not be started (set under mutex_)
  Clock::time_point start_;
};

}  // namespace

Result<HostRun> run_on_host(const des::Program& program, const ArenaPlan& plan,
                            const des::SequentialReference& reference, const HostRunOptions& options) {
  return HostReplay(program, plan, reference, options).run();
}

}  // namespace racetrack::replay
