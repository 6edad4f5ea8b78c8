#include "racetrack/traces/tables.h"

#include "racetrack/traces/describe.h"

namespace racetrack {
namespace {

template <typename T, typename Field>
void add_dense(std::vector<T>& into, const Field& from) {
  for (const auto& entity : from)
    if (entity.id() == into.size() + 1) into.push_back(entity);
}

// An enum value in a byte; one out of range (an invalid trace's) becomes
// 255, which names no value either.
uint8_t small_enum(int value) {
  return value >= 0 && value < 255 ? static_cast<uint8_t>(value) : 255;
}

}  // namespace

void TraceTables::add(const v1::Chunk& chunk) {
  if (chunk.has_header() && !has_header_) {
    header_ = chunk.header();
    has_header_ = true;
  }
  strings_.insert(strings_.end(), chunk.strings().begin(), chunk.strings().end());
  add_dense(streams_, chunk.streams());
  add_dense(events_, chunk.events());
  add_dense(threads_, chunk.threads());
  if (region_detail_ == RegionDetail::kNone) return;
  for (const v1::Region& r : chunk.regions())
    if (r.id() == region_facts_.size() + 1)
      region_facts_.push_back({r.base(), r.size(), r.label(), small_enum(r.space()), small_enum(r.origin())});
}

std::string_view TraceTables::string(uint32_t id) const {
  return id >= 1 && id <= strings_.size() ? std::string_view(strings_[id - 1]) : std::string_view();
}

std::string TraceTables::stream_label(uint32_t id) const {
  const v1::Stream* s = stream(id);
  if (!s) return "stream " + std::to_string(id);
  if (s->name()) return std::string(string(s->name()));
  std::string label = "stream " + std::to_string(id);
  if (s->flags() == v1::STREAM_LEGACY_DEFAULT) return label + " (legacy default)";
  if (s->role() != v1::ROLE_UNKNOWN) label += " (" + std::string(role_name(s->role())) + ")";
  return label;
}

std::string TraceTables::event_label(uint32_t id) const {
  const v1::Event* e = event(id);
  if (e && e->name()) return std::string(string(e->name()));
  return "event " + std::to_string(id);
}

std::string TraceTables::region_label(uint32_t id) const {
  const RegionFacts* r = region_facts(id);
  if (r && r->label) return std::string(string(r->label));
  return "region " + std::to_string(id);
}

}  // namespace racetrack
