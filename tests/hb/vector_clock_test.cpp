// The sparse vector clock against a dense one: every operation the
// happens-before model uses, on random agents, must give the same ticks.
#include "racetrack/hb/vector_clock.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>

namespace {

using racetrack::hb::Tick;
using racetrack::hb::VectorClock;

constexpr uint32_t kAgents = 12;

struct Dense {
  std::array<Tick, kAgents> ticks{};
};

void expect_same(const VectorClock& sparse, const Dense& dense, int step) {
  size_t nonzero = 0;
  for (uint32_t a = 0; a < kAgents; ++a) {
    EXPECT_EQ(sparse.get(a), dense.ticks[a]) << "agent " << a << " at step " << step;
    nonzero += dense.ticks[a] != 0;
  }
  EXPECT_EQ(sparse.entries(), nonzero) << "step " << step;
}

TEST(VectorClock, TickRaiseSetAndJoinAgreeWithADenseClock) {
  std::mt19937 rng(7);
  std::array<VectorClock, 3> sparse;
  std::array<Dense, 3> dense;
  for (int step = 0; step < 20000; ++step) {
    const size_t c = rng() % 3;
    const uint32_t agent = rng() % kAgents;
    const Tick t = rng() % 50;
    switch (rng() % 4) {
      case 0:
        EXPECT_EQ(sparse[c].tick(agent), dense[c].ticks[agent] + 1);
        ++dense[c].ticks[agent];
        break;
      case 1:
        sparse[c].raise(agent, t);
        dense[c].ticks[agent] = std::max(dense[c].ticks[agent], t);
        break;
      case 2:  // the model sets only ticks it has seen (never 0)
        sparse[c].set(agent, t + 1);
        dense[c].ticks[agent] = t + 1;
        break;
      default: {
        const size_t other = rng() % 3;
        bool grew = false;
        for (uint32_t a = 0; a < kAgents; ++a)
          if (dense[other].ticks[a] > dense[c].ticks[a]) {
            dense[c].ticks[a] = dense[other].ticks[a];
            grew = true;
          }
        // A self-join or a join that adds nothing reports no growth.
        EXPECT_EQ(sparse[c].join(sparse[other]), grew) << "step " << step;
      }
    }
    expect_same(sparse[c], dense[c], step);
    if (HasFailure()) return;
  }
}

TEST(VectorClock, RaiseNeverLowersAndTickStartsAtOne) {
  VectorClock c;
  EXPECT_EQ(c.tick(5), 1u);
  c.raise(5, 0);
  EXPECT_EQ(c.get(5), 1u);
  c.raise(3, 0);  // raising a missing agent to 0 stores nothing
  EXPECT_EQ(c.entries(), 1u);
  c.raise(3, 9);
  EXPECT_EQ(c.tick(3), 10u);
  EXPECT_TRUE(c.covers({3, 10}));
  EXPECT_FALSE(c.covers({3, 11}));
}

}  // namespace
