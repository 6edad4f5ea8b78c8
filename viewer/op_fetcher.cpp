#include "op_fetcher.h"

#include <algorithm>

namespace racetrack::viewer {

OpFetcher::OpFetcher(const TraceModel& model) : model_(model) {}
OpFetcher::~OpFetcher() = default;

Result<int> OpFetcher::locate(uint64_t seq) {
  const auto& chunks = model_.chunks();
  auto it = std::upper_bound(chunks.begin(), chunks.end(), seq,
                             [](uint64_t s, const ChunkEntry& c) { return s < c.first_seq; });
  if (it == chunks.begin()) return Error{"no op with seq " + std::to_string(seq), {}, model_.path()};
  const size_t index = static_cast<size_t>(it - chunks.begin()) - 1;
  if (cached_ != index) {
    cached_.reset();
    if (model_.encoding() == Encoding::kBinary) {
      if (!reader_) {
        auto reader = ChunkReader::open(model_.path());
        if (!reader) {
          reader.error().file = model_.path();
          return reader.error();
        }
        reader_.emplace(std::move(*reader));
      }
      auto seek = reader_->seek(chunks[index].offset);
      if (!seek) return seek.error();
      auto more = reader_->next(chunk_);
      if (!more || !*more)
        return more ? Error{"the file changed since it was opened", {}, model_.path()} : more.error();
    } else {
      auto source = TraceSource::open_unchecked(model_.path());
      if (!source) return source.error();
      auto more = source->next(chunk_);
      if (!more || !*more)
        return more ? Error{"the file changed since it was opened", {}, model_.path()} : more.error();
    }
    cached_ = index;
  }
  const auto& ops = chunk_.ops();
  auto op =
      std::lower_bound(ops.begin(), ops.end(), seq, [](const v1::Op& o, uint64_t s) { return o.seq() < s; });
  if (op == ops.end() || op->seq() != seq)
    return Error{"no op with seq " + std::to_string(seq), {}, model_.path()};
  return static_cast<int>(op - ops.begin());
}

Result<v1::Op> OpFetcher::op(uint64_t seq) {
  auto at = locate(seq);
  if (!at) return at.error();
  return chunk_.ops(*at);
}

Result<OrderNeighbours> OpFetcher::neighbours(uint64_t seq) {
  auto at = locate(seq);
  if (!at) return at.error();
  const int from = std::max(0, *at - kWindow), to = std::min(chunk_.ops_size() - 1, *at + kWindow);
  // The graph needs every stream's flags, not only those this chunk defines.
  v1::Chunk window;
  for (const v1::Stream& s : model_.tables().streams()) *window.add_streams() = s;
  for (int i = from; i <= to; ++i) *window.add_ops() = chunk_.ops(i);
  OrderNeighbours out;
  out.window_first = chunk_.ops(from).seq();
  out.window_last = chunk_.ops(to).seq();
  const hb::HbGraph graph = hb::HbGraph::build(window, out.window_first, out.window_last);
  auto op_at = [&](uint64_t s) {
    auto it = std::lower_bound(window.ops().begin(), window.ops().end(), s,
                               [](const v1::Op& o, uint64_t v) { return o.seq() < v; });
    return *it;
  };
  for (const hb::HbEdge& e : graph.edges()) {
    if (e.to_seq == seq) out.after.push_back({op_at(e.from_seq), e.kind});
    if (e.from_seq == seq) out.before.push_back({op_at(e.to_seq), e.kind});
  }
  auto by_seq = [](const OrderNeighbour& a, const OrderNeighbour& b) { return a.op.seq() < b.op.seq(); };
  std::sort(out.after.begin(), out.after.end(), by_seq);
  std::sort(out.before.begin(), out.before.end(), by_seq);
  return out;
}

}  // namespace racetrack::viewer
