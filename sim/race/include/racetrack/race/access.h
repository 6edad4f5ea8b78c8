// The byte ranges an op touches, resolved for the checker: copies and memsets
// exactly, kernels from their recorded accesses or from their argument words
// against the live regions (annotation > allocator block > block inferred
// inside a driver allocation > driver allocation), host accesses and host
// functions from their lists.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "racetrack/race/address_index.h"
#include "racetrack/race/inferred_blocks.h"
#include "racetrack/race/region_pages.h"
#include "racetrack/traces/tables.h"

namespace racetrack::code {
struct KernelModes;
}

namespace racetrack::race {

class CodeModeTable;

// Address spaces (SpaceKey, region_pages.h): 0 is host memory (pinned and
// pageable share one space), d + 1 is device d's memory.
inline constexpr SpaceKey kHostSpace = 0;
inline SpaceKey device_space(uint32_t device) {
  return device + 1;
}
SpaceKey space_key(v1::AddressSpace space, uint32_t device);

// Where an access's read/write mode came from, most trusted first
// (docs/check.md, "Where access modes come from").
enum class ModeSource : uint8_t {
  kRecorded,     // the op itself: a copy, a memset, an op-level record or annotation
  kMachineCode,  // the kernel's own machine code (racetrack modes)
  kRule,         // a --kernel-modes rule
  kUnknown,      // nothing says
};
inline constexpr int kModeSources = 4;
// "recorded", "machine-code", "rule", "unknown" (the JSON values).
const char* mode_source_name(ModeSource source);

struct ResolvedAccess {
  SpaceKey space = 0;
  uint64_t lo = 0, hi = 0;
  bool reads = false, writes = false;  // an unknown mode sets both
  bool mode_known = true;
  ModeSource mode_source = ModeSource::kRecorded;
  // A kernel that also reaches memory through pointers no argument word
  // gives (loaded from memory, module globals): those accesses are unseen.
  bool indirect = false;
  v1::Precision precision = v1::PRECISION_EXACT;
  uint32_t region = 0;  // finest live region containing lo, 0 if none
  uint32_t index = 0;   // position among the op's (or graph node's) accesses
  uint32_t node = 0;    // graph node position + 1; 0 outside graphs
  // From argument words: the lowest and highest pointer merged into the
  // access, evidence of where in its extent the kernel touches memory.
  bool has_anchor = false;
  uint64_t anchor_lo = 0, anchor_hi = 0;
  // An inferred block that reaches over seams of abutting exact ranges: the
  // first seam (0 if none). Evidence that the pointer's tensor spans them.
  uint64_t first_seam = 0;
};

// Which argument words of a kernel are read and which written, for kernels
// whose trace carries no modes (`--kernel-modes FILE`).
struct KernelModeRule {
  std::regex pattern;
  std::string source;                   // the pattern as written
  std::vector<uint32_t> reads, writes;  // 1-based argument word indices
};

// Parses a kernel-modes file: one rule per line, `REGEX reads=1,2 writes=3`,
// `#` comments. Errors name the line.
Result<std::vector<KernelModeRule>> parse_kernel_modes(const std::string& text);

// How the kernels' modes were settled so far, for reports.
struct ModeUse {
  std::array<uint64_t, kModeSources> launches{};  // kernel launches (and graph nodes) by ModeSource
  std::set<uint32_t> indirect_kernels;            // name string ids of launched kernels with indirect access
  uint64_t indirect_launches = 0;
  std::vector<std::string> notes;  // machine code not analysed, and why (CodeModeTable::notes)
  // NCCL collectives launched with no recorded accesses: their buffers sit
  // in a work struct no argument word gives, so they are not checked.
  std::set<std::string> unknown_collectives;  // "AllReduce", ...
  uint64_t unknown_collective_launches = 0;
};

class AccessResolver {
 public:
  // `code_modes` holds the machine-code modes of the trace's modules;
  // add_entities adds each chunk's modules to it. Null: none are used.
  explicit AccessResolver(std::vector<KernelModeRule> rules = {},
                          std::shared_ptr<CodeModeTable> code_modes = nullptr);

  // Entities: regions (live from the start unless an alloc op names them)
  // and streams (for the device of raw kernel pointers). `tables` (which
  // must outlive the resolver) names kernels for the kernel-mode rules.
  void add_entities(const v1::Chunk& chunk, const TraceTables& tables);
  // Lifetime ops; call before resolve() for the same op.
  void on_op(const v1::Op& op);
  // The op's accesses, appended to `out` (cleared first).
  void resolve(const v1::Op& op, std::vector<ResolvedAccess>& out);

  // A region that is live or not yet allocated; freed regions are dropped
  // (nullptr), so the table holds only the live state.
  const RegionInfo* region(uint32_t id) const { return regions_.find(id); }
  // The finest live region containing [lo, hi) in `space`, or 0.
  uint32_t find_region(SpaceKey space, uint64_t lo, uint64_t hi) const;
  // Whether a kernel's rule or record settled its modes (for reports).
  bool has_rule(uint32_t kernel_name) const;
  ModeUse mode_use() const;
  // Narrow argument words inside driver allocations to inferred blocks
  // (default) or give them the whole allocation.
  void set_infer_blocks(bool on) { infer_blocks_ = on; }
  // Kernel accesses given an inferred extent so far.
  uint64_t inferred_accesses() const { return inferred_accesses_; }

 private:
  // Live regions of one precision class in one space, by base (the info
  // pointer saves a lookup per search: region pages stay put).
  struct Live {
    uint32_t id = 0;
    const RegionInfo* info = nullptr;
  };
  using LiveMap = AddressIndex<Live>;
  enum Tier { kAnnotation, kBlock, kSegment, kTiers };
  static constexpr size_t kMaxBecomingLive = 1024;
  // The finest live region containing [lo, hi) in `space`, or {0, null}.
  Live find_live(SpaceKey space, uint64_t lo, uint64_t hi) const;
  static Tier tier_of(v1::RegionOrigin origin);
  void set_live(uint32_t id, bool live);
  // Enters the regions made live since the last search into the maps.
  void update_search() const;
  LiveMap& live_map(const RegionInfo& r) const;
  void add_explicit(const v1::Access& a, SpaceKey default_space, uint32_t index, uint32_t node,
                    std::vector<ResolvedAccess>& out) const;
  void add_kernel(const v1::Kernel& k, SpaceKey space, uint32_t node, std::vector<ResolvedAccess>& out);
  void add_copy(const v1::Memcpy& c, uint32_t node, std::vector<ResolvedAccess>& out) const;
  void add_memset(const v1::Memset& m, SpaceKey space, uint32_t node, std::vector<ResolvedAccess>& out) const;
  const KernelModeRule* rule_for(uint32_t name);
  // The machine code's modes for a launch (null: none), counting where the
  // launch's modes come from.
  const code::KernelModes* code_for(const v1::Kernel& k, const KernelModeRule* rule);
  // Extents from pointers (inferred_blocks.h): where each argument word of
  // the current kernel points.
  struct Located {
    SpaceKey space;
    uint32_t region;  // 0: the word points into no live region
    const RegionInfo* info;
    InferredBlocks::Mark mark;  // set for a pointer into a driver allocation
  };
  void locate_words(const v1::Kernel& k, SpaceKey space);
  // The last lookups of argument words, by word and the kernel's device
  // space: most launches pass the pointers an earlier launch passed. Valid
  // while no region has become live or been freed since (live_version_).
  struct WordLookup {
    uint64_t word = 0, version = 0;
    SpaceKey space = 0;
    Located at{};  // without its mark
  };
  void note_exact_ranges(const std::vector<ResolvedAccess>& accesses);
  ResolvedAccess word_extent(const Located& at, uint64_t word) const;

  std::vector<KernelModeRule> rules_;
  RegionPages regions_;
  uint32_t regions_defined_ = 0;
  // The maps of live regions to search by address, brought up to date at
  // the next search: most blocks are freed before one, and never enter
  // them. Regions with live_order up to searchable_through_ are in them.
  mutable std::map<SpaceKey, std::array<LiveMap, kTiers>> live_;  // finest tier first
  mutable std::vector<uint32_t> becoming_live_;
  mutable uint32_t searchable_through_ = 0;
  uint32_t live_orders_ = 0;
  std::vector<uint32_t> stream_device_;
  const TraceTables* tables_ = nullptr;
  std::unordered_map<uint32_t, const KernelModeRule*> rule_cache_;
  std::shared_ptr<CodeModeTable> code_modes_;
  std::unordered_map<uint64_t, const code::KernelModes*> code_cache_;  // by module << 32 | name
  ModeUse use_;
  InferredBlocks blocks_;
  bool infer_blocks_ = true;
  uint64_t inferred_accesses_ = 0;
  std::vector<Located> located_;  // the current kernel's words
  std::array<WordLookup, 512> word_lookups_{};
  uint64_t live_version_ = 1;
  // Every region ever live lies in [lowest_, highest_): a word outside it
  // (a scalar argument, mostly) points nowhere, without a search.
  uint64_t lowest_ = UINT64_MAX, highest_ = 0;
};

}  // namespace racetrack::race
