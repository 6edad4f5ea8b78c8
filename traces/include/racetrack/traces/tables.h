// The entity tables of a trace (strings, streams, events, host threads,
// regions), accumulated chunk by chunk as a trace is streamed. Ids are dense
// and 1-based; id 0 means "none" and looks up as nullptr / "".
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "racetrack/traces/container.h"

namespace racetrack {

// What reports need of a region: 24 bytes where its message takes ~120.
struct RegionFacts {
  uint64_t base = 0, size = 0;
  uint32_t label = 0;  // string id
  uint8_t space = 0;   // v1::AddressSpace
  uint8_t origin = 0;  // v1::RegionOrigin
};

// How much of each region the tables keep. Regions are the one table that
// grows with a trace's length (an allocation each), so streaming passes
// keep only facts, or nothing when they track regions themselves.
enum class RegionDetail : uint8_t { kNone, kFacts };

class TraceTables {
 public:
  // kFacts unless set.
  void set_regions(RegionDetail detail) { region_detail_ = detail; }

  // Registers the entities a chunk defines. Ids that are not the next dense
  // id are reported by the Validator; here they are skipped.
  void add(const v1::Chunk& chunk);

  const v1::Header& header() const { return header_; }
  bool has_header() const { return has_header_; }

  std::string_view string(uint32_t id) const;
  const v1::Stream* stream(uint32_t id) const { return find(streams_, id); }
  const v1::Event* event(uint32_t id) const { return find(events_, id); }
  const v1::HostThread* thread(uint32_t id) const { return find(threads_, id); }
  // With kFacts.
  const RegionFacts* region_facts(uint32_t id) const {
    return id >= 1 && id <= region_facts_.size() ? &region_facts_[id - 1] : nullptr;
  }

  size_t string_count() const { return strings_.size(); }
  const std::vector<v1::Stream>& streams() const { return streams_; }
  const std::vector<v1::Event>& events() const { return events_; }
  const std::vector<v1::HostThread>& threads() const { return threads_; }

  // "compute" / "stream 3 (d2h)": the user name, else the id and role.
  std::string stream_label(uint32_t id) const;
  std::string event_label(uint32_t id) const;
  std::string region_label(uint32_t id) const;

 private:
  template <typename T>
  static const T* find(const std::vector<T>& v, uint32_t id) {
    return id >= 1 && id <= v.size() ? &v[id - 1] : nullptr;
  }

  v1::Header header_;
  bool has_header_ = false;
  std::vector<std::string> strings_;
  std::vector<v1::Stream> streams_;
  std::vector<v1::Event> events_;
  std::vector<v1::HostThread> threads_;
  std::deque<RegionFacts> region_facts_;  // a deque: no doubling copy as it grows
  RegionDetail region_detail_ = RegionDetail::kFacts;
};

}  // namespace racetrack
