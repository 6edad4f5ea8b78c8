// A stand-in for the GPU in the CUDA backend's tests: runs a LaunchList the
// way CUDA would, one step at a time in a seeded random order. Host threads
// issue their ops once the ops they must come after are issued (or
// returned); every stream runs its queue in order; a stream wait or a host
// synchronisation on an event that was not recorded yet does nothing, as in
// CUDA; a device op checks its reads when it starts and stamps its writes
// when it ends, and other streams' steps can fall in between. A held op
// (--stress) starts only when nothing else can move. What it returns is
// what the GPU run returns, so assemble_run maps it back.
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cuda_backend.h"

namespace racetrack::replay_test {

class LaunchEmulator {
 public:
  LaunchEmulator(const replay::LaunchList& l, uint64_t seed, std::set<uint32_t> held = {})
      : l_(l), rng_(seed), held_(std::move(held)) {}

  // One run; `deadlock` says whether it stopped with work left.
  replay::DeviceRun run(bool& deadlock) {
    replay::DeviceRun out;
    for (const replay::ArenaSpec& a : l_.arenas) out.final_stamps.emplace_back(a.granules, 0u);
    stamps_ = &out.final_stamps;
    log_ = &out.log;
    out.times.assign(l_.ops.size(), {});
    position_.assign(l_.threads.size(), 0);
    issued_.assign(l_.ops.size(), false);
    returned_.assign(l_.ops.size(), false);
    joins_.assign(l_.ops.size(), {});
    recorded_.assign(l_.events, false);
    fired_.assign(l_.events, false);
    queues_.assign(l_.streams.size(), {});
    int64_t clock = 0;
    deadlock = false;
    for (;;) {
      std::vector<Step> steps = enabled();
      if (steps.empty()) {
        deadlock = !finished();
        break;
      }
      const Step s = steps[std::uniform_int_distribution<size_t>(0, steps.size() - 1)(rng_)];
      apply(s, out.times, ++clock);
    }
    return out;
  }

 private:
  struct Item {
    enum Kind { kWait, kRun, kRecord } kind;
    uint32_t op;
    uint32_t event;
    bool armed;    // a wait: its event was recorded when the wait was issued
    bool started;  // a run: its reads are checked, its writes not yet stamped
  };
  struct Step {
    bool thread;
    uint32_t index;  // thread or stream
  };

  uint32_t current(uint32_t t) const { return l_.threads[t][position_[t]]; }

  bool finished() const {
    for (uint32_t t = 0; t < l_.threads.size(); ++t)
      if (position_[t] < l_.threads[t].size()) return false;
    for (const auto& q : queues_)
      if (!q.empty()) return false;
    return true;
  }

  // The steps that can run now; held ops' starts only when nothing else can.
  std::vector<Step> enabled() const {
    std::vector<Step> out, held;
    for (uint32_t t = 0; t < l_.threads.size(); ++t) {
      if (position_[t] >= l_.threads[t].size()) continue;
      const uint32_t op = current(t);
      const replay::OpLaunch& o = l_.ops[op];
      bool ready = true;
      if (!issued_[op]) {
        for (uint32_t k = o.issue_after; k < o.issue_after + o.issue_after_count; ++k) {
          const replay::IssueAfter& a = l_.issue_after[k];
          ready = ready && (a.returned ? returned_[a.op] : issued_[a.op]);
        }
      } else {
        for (uint32_t e : joins_[op]) ready = ready && fired_[e];
      }
      if (ready) (!issued_[op] && o.stream < 0 && held_.count(op) ? held : out).push_back({true, t});
    }
    for (uint32_t s = 0; s < queues_.size(); ++s) {
      if (queues_[s].empty()) continue;
      const Item& head = queues_[s].front();
      if (head.kind == Item::kRun && !head.started && held_.count(head.op))
        held.push_back({false, s});
      else if (head.kind != Item::kWait || !head.armed || fired_[head.event])
        out.push_back({false, s});
    }
    return out.empty() ? held : out;
  }

  void apply(const Step& s, std::vector<replay::MeasuredTimes>& times, int64_t clock) {
    if (s.thread) {
      const uint32_t op = current(s.index);
      const replay::OpLaunch& o = l_.ops[op];
      if (!issued_[op]) {
        times[op].host_start = times[op].issue = clock;
        if (o.work == replay::Work::kHostAccess) check(o);
        if (o.stream >= 0) enqueue(op, o);
        // cudaEventSynchronize on an event never recorded returns at once.
        for (uint32_t k = o.joins; k < o.joins + o.join_count; ++k)
          if (recorded_[l_.event_refs[k]]) joins_[op].push_back(l_.event_refs[k]);
        issued_[op] = true;
      } else {
        if (o.work == replay::Work::kHostAccess) stamp(op, o);
        times[op].host_end = clock;
        returned_[op] = true;
        ++position_[s.index];
      }
      return;
    }
    std::deque<Item>& q = queues_[s.index];
    Item& head = q.front();
    if (head.kind == Item::kRecord) fired_[head.event] = true;
    if (head.kind == Item::kRun && !head.started) {
      head.started = true;
      times[head.op].device_start = clock;
      check(l_.ops[head.op]);
      return;
    }
    if (head.kind == Item::kRun) {
      stamp(head.op, l_.ops[head.op]);
      times[head.op].device_end = clock;
    }
    q.pop_front();
  }

  void enqueue(uint32_t op, const replay::OpLaunch& o) {
    std::deque<Item>& q = queues_[static_cast<size_t>(o.stream)];
    for (uint32_t k = o.waits; k < o.waits + o.wait_count; ++k)
      q.push_back({Item::kWait, op, l_.event_refs[k], static_cast<bool>(recorded_[l_.event_refs[k]]), false});
    if (o.work != replay::Work::kNone) q.push_back({Item::kRun, op, 0, false, false});
    if (o.done_event >= 0) {
      const auto e = static_cast<uint32_t>(o.done_event);
      recorded_[e] = true;
      q.push_back({Item::kRecord, op, e, false, false});
    }
  }

  size_t arena_of(uint32_t space) const {
    for (size_t a = 0; a < l_.arenas.size(); ++a)
      if (l_.arenas[a].space == space) return a;
    ADD_FAILURE() << "no arena for space " << space;
    return 0;
  }

  void check(const replay::OpLaunch& o) {
    for (uint32_t k = o.checks; k < o.checks + o.check_count; ++k) {
      const replay::GranuleCheck& c = l_.checks[k];
      const std::vector<uint32_t>& stamps = (*stamps_)[arena_of(c.space)];
      for (uint64_t g = c.g0; g < c.g1; ++g)
        if (stamps.at(g) != c.expected) log_->push_back({k, stamps[g], g});
    }
  }

  void stamp(uint32_t op, const replay::OpLaunch& o) {
    for (uint32_t k = o.writes; k < o.writes + o.write_count; ++k) {
      const replay::GranuleWrite& w = l_.writes[k];
      std::vector<uint32_t>& stamps = (*stamps_)[arena_of(w.space)];
      for (uint64_t g = w.g0; g < w.g1; ++g) stamps.at(g) = replay::stamp_of(op);
    }
  }

  const replay::LaunchList& l_;
  std::mt19937_64 rng_;
  std::set<uint32_t> held_;
  std::vector<std::vector<uint32_t>>* stamps_ = nullptr;
  std::vector<replay::GranuleMismatch>* log_ = nullptr;
  std::vector<size_t> position_;
  std::vector<bool> issued_, returned_, recorded_, fired_;
  std::vector<std::vector<uint32_t>> joins_;  // events each issued op still synchronises on
  std::vector<std::deque<Item>> queues_;
};

}  // namespace racetrack::replay_test
