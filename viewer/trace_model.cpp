#include "trace_model.h"

#include <algorithm>
#include <limits>

#include "racetrack/traces/describe.h"

namespace racetrack::viewer {
namespace {

// NVTX paths nest deeper than anyone reads at a glance; deeper levels share
// the last lane.
constexpr uint32_t kMaxNvtxDepth = 4;

template <typename Array>
uint64_t bytes_of(const Array& v) {
  return v.capacity() * sizeof(typename Array::value_type);
}

}  // namespace

size_t Lane::first_ending_after(int64_t t) const {
  return static_cast<size_t>(std::upper_bound(end.begin(), end.end(), t) - end.begin());
}

size_t Lane::first_starting_at(int64_t t) const {
  return static_cast<size_t>(std::lower_bound(start.begin(), start.end(), t) - start.begin());
}

std::optional<OpRef> TraceModel::find(uint64_t seq) const {
  for (uint32_t l = 0; l < lanes_.size(); ++l) {
    const Lane& lane = lanes_[l];
    if (lane.type == LaneType::kNvtx) continue;
    auto it = std::lower_bound(lane.seq.begin(), lane.seq.end(), seq);
    if (it != lane.seq.end() && *it == seq) return OpRef{l, static_cast<uint32_t>(it - lane.seq.begin())};
  }
  return std::nullopt;
}

QString TraceModel::label(OpRef ref) const {
  const Lane& lane = lanes_[ref.lane];
  const OpCategory category = lane.category[ref.index];
  const uint32_t name = lane.name[ref.index];
  if (lane.type == LaneType::kNvtx) return QString::fromStdString(std::string(nvtx_name(name)));
  switch (category) {
    case OpCategory::kKernel:
      return name ? short_kernel_name(tables_.string(name)) : QStringLiteral("kernel");
    case OpCategory::kCopyD2H: return QStringLiteral("D2H");
    case OpCategory::kCopyH2D: return QStringLiteral("H2D");
    case OpCategory::kCopyD2D: return QStringLiteral("D2D");
    default: break;
  }
  QString text = category_word(category);
  if (name) text += QLatin1Char(' ') + QString::fromStdString(std::string(tables_.string(name)));
  return text;
}

QString TraceModel::search_text(OpCategory category, uint32_t name) const {
  QString text = category_word(category);
  if (name) text += QLatin1Char(' ') + QString::fromStdString(std::string(tables_.string(name)));
  return text;
}

std::vector<Dependency> TraceModel::dependencies_of(OpRef ref) const {
  std::vector<Dependency> out;
  for (const Dependency& d : dependencies_)
    if (d.record == ref || d.wait == ref) out.push_back(d);
  return out;
}

uint64_t TraceModel::memory_bytes() const {
  uint64_t bytes = sizeof(*this) + bytes_of(lanes_) + bytes_of(dependencies_) + bytes_of(chunks_);
  for (const Lane& l : lanes_)
    bytes += bytes_of(l.start) + bytes_of(l.end) + bytes_of(l.seq) + bytes_of(l.name) + bytes_of(l.category);
  return bytes + bytes_of(regions_);
}

std::string TraceModel::region_label(uint32_t id) const {
  const RegionRecord* r = region(id);
  if (r && r->label) return std::string(tables_.string(r->label));
  return "region " + std::to_string(id);
}

// The open NVTX range at each depth of one host thread.
struct TraceModelBuilder::NvtxState {
  uint32_t path = 0;                                // the path of the thread's last op
  std::array<uint32_t, kMaxNvtxDepth> lane{};       // lane index + 1, 0: not made yet
  std::array<uint32_t, kMaxNvtxDepth> component{};  // of the open range, 0: none open
};

TraceModelBuilder::TraceModelBuilder(std::string path, Encoding encoding, uint64_t file_size)
    : model_(std::make_unique<TraceModel>()) {
  model_->path_ = std::move(path);
  model_->encoding_ = encoding;
  model_->file_size_ = file_size;
  model_->nvtx_names_.emplace_back();
  // Regions are kept as RegionRecords instead (the details panel finds the
  // region an address falls in, by lifetime).
  model_->tables_.set_regions(RegionDetail::kNone);
}

TraceModelBuilder::~TraceModelBuilder() = default;

uint32_t TraceModelBuilder::add_lane(LaneType type, uint32_t entity, uint32_t depth) {
  Lane lane;
  lane.type = type;
  lane.entity = entity;
  lane.depth = depth;
  model_->lanes_.push_back(std::move(lane));
  category_time_.emplace_back();
  return static_cast<uint32_t>(model_->lanes_.size() - 1);
}

uint32_t TraceModelBuilder::stream_lane(uint32_t stream) {
  auto [it, added] = stream_lanes_.try_emplace(stream, 0);
  if (added) it->second = add_lane(LaneType::kStream, stream, 0);
  return it->second;
}

uint32_t TraceModelBuilder::thread_lane(uint32_t thread) {
  auto [it, added] = thread_lanes_.try_emplace(thread, 0);
  if (added) it->second = add_lane(LaneType::kThread, thread, 0);
  return it->second;
}

void TraceModelBuilder::add_chunk(const v1::Chunk& chunk, uint64_t offset) {
  TraceTables& tables = model_->tables_;
  const size_t streams_before = tables.streams().size(), threads_before = tables.threads().size();
  tables.add(chunk);
  // Every stream and thread the trace defines gets a lane, even without ops.
  for (size_t i = streams_before; i < tables.streams().size(); ++i) stream_lane(tables.streams()[i].id());
  for (size_t i = threads_before; i < tables.threads().size(); ++i) thread_lane(tables.threads()[i].id());
  auto& regions = model_->regions_;
  for (const v1::Region& r : chunk.regions())
    if (r.id() == regions.size() + 1)  // dense ids, as the tables keep them
      regions.push_back({r.base(), r.size(), r.alloc_seq(), r.free_seq(), r.id(), r.label(), r.device(),
                         r.space(), r.origin()});
  if (chunk.ops_size() > 0) model_->chunks_.push_back({offset, chunk.ops(0).seq()});
  for (const v1::Op& op : chunk.ops()) add_op(op);
}

uint32_t TraceModelBuilder::op_name(const v1::Op& op) const {
  const TraceTables& tables = model_->tables_;
  auto event_name = [&](uint32_t event) {
    const v1::Event* e = tables.event(event);
    return e ? e->name() : 0u;
  };
  auto region_label = [&](uint32_t region) {
    const RegionRecord* r = model_->region(region);
    return r ? r->label : 0u;
  };
  switch (op.what_case()) {
    case v1::Op::kKernel: return op.kernel().name();
    case v1::Op::kHostFunc: return op.host_func().name();
    case v1::Op::kRecord: return event_name(op.record().event());
    case v1::Op::kWait: return event_name(op.wait().event());
    case v1::Op::kSync: return op.sync().kind() == v1::SYNC_EVENT ? event_name(op.sync().event()) : 0u;
    case v1::Op::kQuery: return op.query().kind() == v1::QUERY_EVENT ? event_name(op.query().event()) : 0u;
    case v1::Op::kAlloc: return region_label(op.alloc().region());
    case v1::Op::kFree: return region_label(op.free().region());
    case v1::Op::kAnnotation: return op.annotation().text();
    default: return 0;
  }
}

void TraceModelBuilder::add_op(const v1::Op& op) {
  const OpSpan span = placer_.place(op);
  const uint32_t l = span.lane == LaneKind::kStream ? stream_lane(span.lane_id) : thread_lane(span.lane_id);
  Lane& lane = model_->lanes_[l];
  const OpRef ref{l, static_cast<uint32_t>(lane.size())};
  const OpCategory category = category_of(op);
  lane.start.push_back(span.start_ns);
  lane.end.push_back(span.end_ns);
  lane.seq.push_back(op.seq());
  lane.name.push_back(op_name(op));
  lane.category.push_back(category);
  category_time_[l][static_cast<int>(category)] += static_cast<uint64_t>(span.end_ns - span.start_ns);

  if (span.lane == LaneKind::kStream) {
    if (op.has_record()) {
      latest_record_[op.record().event()] = ref;
    } else if (op.has_wait()) {
      if (auto it = latest_record_.find(op.wait().event()); it != latest_record_.end())
        model_->dependencies_.push_back({it->second, ref});
    }
  }
  model_->start_ns_ = any_op_ ? std::min(model_->start_ns_, span.start_ns) : span.start_ns;
  model_->end_ns_ = any_op_ ? std::max(model_->end_ns_, span.end_ns) : span.end_ns;
  any_op_ = true;
  ++model_->op_count_;
  add_nvtx(op);
}

const std::vector<uint32_t>& TraceModelBuilder::nvtx_components(uint32_t path) {
  auto [it, added] = nvtx_paths_.try_emplace(path);
  if (!added) return it->second;
  const std::string_view text = model_->tables_.string(path);
  size_t from = 0;
  while (from <= text.size() && it->second.size() < kMaxNvtxDepth) {
    size_t slash = text.find('/', from);
    // The last lane takes the rest of a deep path.
    if (slash == std::string_view::npos || it->second.size() + 1 == kMaxNvtxDepth) slash = text.size();
    const std::string part(text.substr(from, slash - from));
    if (!part.empty()) {
      auto [id, fresh] = nvtx_ids_.try_emplace(part, static_cast<uint32_t>(model_->nvtx_names_.size()));
      if (fresh) model_->nvtx_names_.push_back(part);
      it->second.push_back(id->second);
    }
    from = slash + 1;
  }
  return it->second;
}

// NVTX ranges are pushed and popped on the host: a range at depth d spans
// the host calls of consecutive ops of its thread whose paths agree up to d.
void TraceModelBuilder::add_nvtx(const v1::Op& op) {
  auto& slot = nvtx_[op.thread()];
  if (!slot) {
    if (!op.nvtx()) return;
    slot = std::make_unique<NvtxState>();
  }
  NvtxState& state = *slot;
  const std::vector<uint32_t> none;
  const std::vector<uint32_t>& parts = op.nvtx() ? nvtx_components(op.nvtx()) : none;
  const int64_t host_start = std::max<int64_t>(op.host_start(), 0);
  const int64_t host_end = std::max(op.host_end(), host_start + 1);
  bool same_so_far = true;
  for (uint32_t d = 0; d < kMaxNvtxDepth; ++d) {
    const uint32_t component = d < parts.size() ? parts[d] : 0;
    same_so_far = same_so_far && component == state.component[d];
    if (component == 0) {
      state.component[d] = 0;
      continue;
    }
    if (!state.lane[d]) state.lane[d] = add_lane(LaneType::kNvtx, op.thread(), d) + 1;
    Lane& lane = model_->lanes_[state.lane[d] - 1];
    if (same_so_far) {
      lane.end.back() = std::max(lane.end.back(), host_end);
      continue;
    }
    const int64_t start = lane.size() ? std::max(host_start, lane.end.back()) : host_start;
    lane.start.push_back(start);
    lane.end.push_back(std::max(host_end, start + 1));
    lane.seq.push_back(op.seq());
    lane.name.push_back(component);
    lane.category.push_back(OpCategory::kNvtx);
    state.component[d] = component;
  }
  state.path = op.nvtx();
}

void TraceModelBuilder::arrange_groups() {
  TraceModel& m = *model_;
  const TraceTables& tables = m.tables_;
  std::vector<std::pair<uint32_t, uint32_t>> streams;  // (device, lane)
  std::vector<uint32_t> thread_ids;
  for (uint32_t l = 0; l < m.lanes_.size(); ++l) {
    Lane& lane = m.lanes_[l];
    if (lane.type == LaneType::kStream) {
      const v1::Stream* s = tables.stream(lane.entity);
      streams.emplace_back(s ? s->device() : 0, l);
      lane.label = QString::fromStdString(stream_lane_name(tables, lane.entity));
    } else if (lane.type == LaneType::kThread) {
      thread_ids.push_back(lane.entity);
      lane.label = QString::fromStdString(thread_lane_name(tables, lane.entity));
    }
  }
  std::stable_sort(streams.begin(), streams.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : m.lanes_[a.second].entity < m.lanes_[b.second].entity;
  });
  std::optional<uint32_t> group_device;
  for (const auto& [device, l] : streams) {
    if (group_device != device) {
      m.groups_.push_back({QString::fromStdString(device_lane_name(tables, device)), {}});
      group_device = device;
    }
    m.lanes_[l].group = static_cast<uint32_t>(m.groups_.size() - 1);
    m.groups_.back().lanes.push_back(l);
  }
  if (thread_ids.empty()) return;
  std::sort(thread_ids.begin(), thread_ids.end());
  m.groups_.push_back({QString::fromStdString(host_lane_name(tables)), {}});
  const uint32_t host = static_cast<uint32_t>(m.groups_.size() - 1);
  for (uint32_t thread : thread_ids) {
    const QString thread_name = QString::fromStdString(thread_lane_name(tables, thread));
    auto add = [&](uint32_t l) {
      m.lanes_[l].group = host;
      m.groups_.back().lanes.push_back(l);
    };
    add(thread_lanes_.at(thread));
    if (auto it = nvtx_.find(thread); it != nvtx_.end() && it->second)
      for (uint32_t d = 0; d < kMaxNvtxDepth; ++d)
        if (const uint32_t l1 = it->second->lane[d]) {
          m.lanes_[l1 - 1].label =
              d == 0 ? QStringLiteral("NVTX ") + thread_name : QStringLiteral("NVTX level %1").arg(d + 1);
          add(l1 - 1);
        }
  }
}

std::unique_ptr<TraceModel> TraceModelBuilder::finish() {
  TraceModel& m = *model_;
  arrange_groups();
  for (uint32_t l = 0; l < m.lanes_.size(); ++l) {
    Lane& lane = m.lanes_[l];
    // By time, not count: an offload stream holds as many records as
    // copies, but the copies are what it spends its time on.
    const auto& time = category_time_[l];
    lane.usual = lane.type == LaneType::kNvtx
                     ? OpCategory::kNvtx
                     : static_cast<OpCategory>(std::max_element(time.begin(), time.end()) - time.begin());
    lane.start.shrink_to_fit();
    lane.end.shrink_to_fit();
    lane.seq.shrink_to_fit();
    lane.name.shrink_to_fit();
    lane.category.shrink_to_fit();
  }
  auto wait_start = [&](const Dependency& d) { return m.start(d.wait); };
  std::stable_sort(m.dependencies_.begin(), m.dependencies_.end(),
                   [&](const Dependency& a, const Dependency& b) { return wait_start(a) < wait_start(b); });
  for (const Dependency& d : m.dependencies_)
    m.longest_dependency_ns_ = std::max(m.longest_dependency_ns_, m.start(d.wait) - m.end(d.record));
  m.dependencies_.shrink_to_fit();
  m.chunks_.shrink_to_fit();
  if (m.end_ns_ <= m.start_ns_) m.end_ns_ = m.start_ns_ + 1;
  return std::move(model_);
}

Result<std::unique_ptr<TraceModel>> load_model(const std::string& path, const LoadProgress& progress) {
  auto source = TraceSource::open(path);
  if (!source) return source.error();
  TraceModelBuilder builder(path, source->encoding(), source->size());
  for (;;) {
    const uint64_t offset = source->position();
    auto chunk = source->read();
    if (!chunk) return chunk.error();
    if (!*chunk) break;
    builder.add_chunk(**chunk, offset);
    if (progress && !progress(source->position(), source->size())) return Error{"loading stopped", {}, path};
  }
  return builder.finish();
}

}  // namespace racetrack::viewer
