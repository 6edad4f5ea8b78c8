#include "thread_log.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace racetrack::capture {
namespace {

ApiEvent event_with_seq(uint64_t seq) {
  ApiEvent e;
  e.seq = seq;
  e.kind = ApiKind::kLaunch;
  return e;
}

TEST(ThreadLog, DrainsEventsWithTheirPayloadsInOrder) {
  ThreadLog log;
  const std::vector<uint64_t> words{11, 22, 33};
  log.append(event_with_seq(1), words);
  log.append(event_with_seq(2), {});
  std::vector<uint64_t> seqs;
  std::vector<std::vector<uint64_t>> payloads;
  EXPECT_EQ(log.drain([&](const ApiEvent& e, std::span<const uint64_t> p) {
              seqs.push_back(e.seq);
              payloads.emplace_back(p.begin(), p.end());
            }),
            2u);
  EXPECT_EQ(seqs, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(payloads[0], words);
  EXPECT_TRUE(payloads[1].empty());
  EXPECT_EQ(log.drain([](const ApiEvent&, std::span<const uint64_t>) {}), 0u);
}

TEST(ThreadLog, MovesToANewBlockWhenEventsOrWordsRunOut) {
  ThreadLog log;
  std::vector<uint64_t> big(ThreadLog::kMaxPayloadWords, 7);
  const uint64_t count = 3 * LogBlock::kEvents;
  for (uint64_t i = 0; i < count; ++i) {
    big[0] = i;
    log.append(event_with_seq(i), i % 100 == 0 ? std::span<const uint64_t>(big)
                                               : std::span<const uint64_t>());
  }
  uint64_t next = 0;
  bool payloads_intact = true;
  log.drain([&](const ApiEvent& e, std::span<const uint64_t> p) {
    EXPECT_EQ(e.seq, next++);
    if (e.seq % 100 == 0)
      payloads_intact &= p.size() == big.size() && p[0] == e.seq && p.back() == 7;
  });
  EXPECT_EQ(next, count);
  EXPECT_TRUE(payloads_intact);
  EXPECT_GE(log.blocks_allocated(), 3u);
}

TEST(ThreadLog, RecyclesDrainedBlocks) {
  ThreadLog log;
  for (int round = 0; round < 50; ++round) {
    for (uint32_t i = 0; i < LogBlock::kEvents; ++i) log.append(event_with_seq(i), {});
    log.drain([](const ApiEvent&, std::span<const uint64_t>) {});
  }
  // 50 blocks' worth of events went through, a handful of blocks exist.
  EXPECT_LE(log.blocks_allocated(), 3u);
}

TEST(ThreadLog, ConcurrentProducerAndConsumerLoseNothing) {
  ThreadLog log;
  constexpr uint64_t kCount = 200000;
  std::atomic<bool> done{false};
  std::thread producer([&] {
    uint64_t words[2] = {0, 0};
    for (uint64_t i = 0; i < kCount; ++i) {
      words[0] = i * 3;
      log.append(event_with_seq(i), std::span<const uint64_t>(words, i % 3));
    }
    done.store(true);
  });
  uint64_t next = 0;
  bool intact = true;
  auto visit = [&](const ApiEvent& e, std::span<const uint64_t> p) {
    intact &= e.seq == next;
    intact &= p.size() == e.seq % 3 && (p.empty() || p[0] == e.seq * 3);
    ++next;
  };
  while (!done.load()) log.drain(visit);
  producer.join();
  log.drain(visit);
  EXPECT_EQ(next, kCount);
  EXPECT_TRUE(intact);
}

}  // namespace
}  // namespace racetrack::capture
