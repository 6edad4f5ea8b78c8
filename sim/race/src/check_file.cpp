// check_file: the check's pass over a trace file, with fixes verified a
// chunk behind it, or in a pass of their own when that cannot keep up
// (fix_verifier.h, docs/check.md "Verifying fixes").
#include <atomic>
#include <deque>
#include <memory>
#include <optional>

#include "fix_verifier.h"
#include "racetrack/race/checker.h"
#include "racetrack/race/external_agents.h"
#include "racetrack/race/graph_lifetime_text.h"
#include "racetrack/race/pdl.h"
#include "racetrack/traces/prefetch.h"
#include "racetrack/traces/trace_io.h"
#include "tick_map.h"
#include "verifier_thread.h"
#include "wrong_wait.h"

namespace racetrack::race {
namespace {

// Chunks the verifier runs behind the check: a hazard found in a chunk
// whose first op (and the op its explanation names) lie no further back
// is verified without a second pass.
constexpr size_t kVerifyLag = 1;

std::string explain(const Hazard& h, const TickMap& ticks, const WrongWaits& waits, const TraceTables& t) {
  if (h.second.graph_lifetime != GraphLifetime::kNone) return graph_lifetime_explanation(h, t);
  if (h.first.external_agent) return external_explanation(h, t);
  if (h.programmatic.wait_seq) return programmatic_explanation(h, t);
  if (std::string wrong = waits.explain(h, t); !wrong.empty()) return wrong;
  const HazardSide& a = h.first;
  const HazardSide& b = h.second;
  const std::string where_a = a.stream ? t.stream_label(a.stream) : "host thread " + std::to_string(a.thread);
  const std::string where_b = b.stream ? t.stream_label(b.stream) : "host thread " + std::to_string(b.thread);
  const std::string second = "#" + std::to_string(b.seq) + " on " + where_b;
  if (h.pdl) return pdl_explanation(h, t);
  if (a.access.node)
    return second + " is not ordered after graph node " + std::to_string(a.access.node - 1) + " of launch #" +
           std::to_string(a.seq);
  if (h.ordered_up_to_tick == 0)
    return second + " is not ordered after anything on " + where_a + ", where the racing op #" +
           std::to_string(a.seq) + " runs";
  const auto* point = ticks.find(a, h.ordered_up_to_tick);
  const std::string upto =
      point ? "#" + std::to_string(point->first) + " (" + point->second + ")" : "an earlier op";
  return second + " is ordered after " + where_a + " only up to " + upto + ", but the racing op is #" +
         std::to_string(a.seq);
}

// Reads `path` again from the start into `verifier`: every chunk, on a
// reader thread; or the first `chunks`, on this one (a reader would decode
// one chunk past them).
Status verify_from_start(const std::string& path, FixVerifier& verifier, const CheckOptions& options,
                         std::optional<uint64_t> chunks = std::nullopt) {
  if (chunks == 0) return Ok{};
  auto reopened = TraceSource::open_unchecked(path);  // the check validated it
  if (!reopened) return reopened.error();
  auto apply = [&](auto& source, uint64_t count) -> Status {
    for (uint64_t n = 0; n < count && !verifier.gave_up(); ++n) {
      auto chunk = source.read();
      if (!chunk) return chunk.error();
      if (!*chunk) break;
      verifier.add_chunk(**chunk);
      if (options.progress) options.progress("verifying fixes", source.position(), source.size());
    }
    return Ok{};
  };
  if (chunks) return apply(*reopened, *chunks);
  PrefetchingSource source(std::move(*reopened));
  return apply(source, UINT64_MAX);
}

// The verdicts of a verifier that has seen the whole trace.
void take_verdicts(const FixVerifier& verifier, CheckResult& result) {
  result.hazards_after_fixes = 0;
  for (const Hazard& h : result.shown) result.hazards_after_fixes += verifier.unordered(h.key());
  result.fixes_verified = result.hazards_after_fixes == 0;
  for (HazardGroup& g : result.groups) {
    if (!g.shown) continue;
    g.explanation = explain(g.first, verifier.ticks(), verifier.waits(), *result.tables);
    g.fix.verified = g.fix.available && !verifier.unordered(g.first.key());
  }
}

// Verification during the pass: the verifier, started on a thread of its
// own at the first hazard to show, learns each one as the check reports it.
class VerifyingPass {
 public:
  VerifyingPass(const std::string& path, const CheckOptions& options)
      : path_(path), options_(options), on_(options.explain_and_fix && options.verify_during_pass) {}

  // Before the check reads its next chunk, the reader may reuse the memory
  // of every chunk but the check's, the kVerifyLag behind it and one the
  // verifier is still applying.
  void before_read() {
    if (thread_) thread_->wait_for_chunks(1);
  }

  // After the check took a chunk.
  void after_chunk(const v1::Chunk& chunk, const Checker& checker) {
    behind_.push_back(&chunk);
    ++chunks_;
    learn(checker);
    for (; behind_.size() > kVerifyLag; behind_.pop_front())
      if (thread_) post_chunk(behind_.front(), true);
  }

  // Whether the verifier's thread has started.
  bool running() const { return thread_ != nullptr; }

  // At the end of the pass: the verifier, or null when verification needs a
  // pass of its own.
  Result<std::unique_ptr<FixVerifier>> finish() {
    if (!thread_) return std::unique_ptr<FixVerifier>();
    for (const v1::Chunk* chunk : behind_) post_chunk(chunk, false);
    auto verifier = thread_->finish();
    if (!verifier) return verifier.error();
    (*verifier)->finish();
    if ((*verifier)->gave_up()) return std::unique_ptr<FixVerifier>();
    return std::move(*verifier);
  }

 private:
  struct Learned {
    Hazard hazard;
    Fix fix;
    bool group_first;
  };

  // `counted`: the check waits for it before reusing its memory.
  void post_chunk(const v1::Chunk* chunk, bool counted) {
    if (gave_up_.load(std::memory_order_relaxed)) return;  // a pass of its own verifies
    thread_->post(
        [chunk](FixVerifier& v) {
          v.add_chunk(*chunk);
          return Status{Ok{}};
        },
        counted);
  }

  void learn(const Checker& checker) {
    const std::vector<Hazard>& shown = checker.shown_so_far();
    if (!on_ || learned_ == shown.size() || gave_up_.load(std::memory_order_relaxed)) return;
    const bool starting = !thread_;
    if (starting) thread_ = std::make_unique<VerifierThread>(std::make_unique<FixVerifier>(options_));
    // Fixes are worded here: the check's tables are the check thread's.
    std::vector<Learned> batch;
    for (; learned_ < shown.size(); ++learned_) {
      const Hazard& h = shown[learned_];
      // A group's first since superseded needs no explanation; the final
      // one is the first when the chunk that reported it is done.
      batch.push_back({h, suggest_fix(h, checker.tables()), checker.is_group_first(h)});
    }
    thread_->post([this, batch = std::move(batch)](FixVerifier& v) {
      for (const Learned& l : batch) {
        v.want_fix(l.hazard, l.fix);
        if (l.group_first) v.want_explanation(l.hazard);
      }
      if (v.gave_up()) gave_up_.store(true, std::memory_order_relaxed);
      return Status{Ok{}};
    });
    if (starting) {
      // The chunks before those still held are read again.
      const uint64_t before = chunks_ - behind_.size();
      thread_->post(
          [path = path_, before](FixVerifier& v) { return verify_from_start(path, v, {}, before); });
    }
  }

  const std::string& path_;
  const CheckOptions& options_;
  const bool on_;
  // Set by the verifier's thread once it gave up: the check then stops
  // wording fixes for it and posting it chunks.
  std::atomic<bool> gave_up_{false};
  std::unique_ptr<VerifierThread> thread_;  // after gave_up_, which its work sets
  std::deque<const v1::Chunk*> behind_;  // checked, not yet given to the verifier
  uint64_t chunks_ = 0;
  size_t learned_ = 0;
};

}  // namespace

Result<CheckResult> check_file(const std::string& path, const CheckOptions& options) {
  auto opened = TraceSource::open(path);
  if (!opened) return opened.error();
  // Decodes the next chunk while this one is checked, and keeps the chunks
  // the verifier has still to apply.
  PrefetchingSource source(std::move(*opened), PrefetchingSource::Validation::kSpareThread, kVerifyLag);
  Checker checker(options);
  VerifyingPass verifying(path, options);
  for (;;) {
    verifying.before_read();
    auto chunk = source.read();
    if (!chunk) return chunk.error();
    if (!*chunk) break;
    checker.add_chunk(**chunk);
    if (auto why = checker.bad_input()) return Error{*why, source.chunk_offset(), path};
    verifying.after_chunk(**chunk, checker);
    if (verifying.running()) source.another_thread_busy();
    if (options.progress) options.progress("checking", source.position(), source.size());
  }
  auto verified = verifying.finish();
  if (!verified) return verified.error();
  std::unique_ptr<FixVerifier> verifier = std::move(*verified);
  CheckResult result = checker.finish();
  result.fixes_verified = result.shown.empty();
  if (!options.explain_and_fix || result.shown.empty()) return result;
  result.fixes_checked = true;

  if (!verifier) {
    // A pass of its own, every hazard known before it starts.
    verifier = std::make_unique<FixVerifier>(options);
    for (const Hazard& h : result.shown) verifier->want_fix(h, suggest_fix(h, *result.tables));
    for (const HazardGroup& g : result.groups)
      if (g.shown) verifier->want_explanation(g.first);
    if (auto status = verify_from_start(path, *verifier, options); !status) return status.error();
    verifier->finish();
  }
  if (auto why = verifier->bad_input()) return Error{*why, {}, path};
  take_verdicts(*verifier, result);
  return result;
}

}  // namespace racetrack::race
