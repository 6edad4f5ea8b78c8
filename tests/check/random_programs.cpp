#include "random_programs.h"

#include <algorithm>
#include <string>
#include <vector>

namespace racetrack::check_test {
namespace {

// Sizes and offsets are multiples of this, so programs share byte ranges
// often without being large.
constexpr uint64_t kGranule = 16;
constexpr uint64_t kDeviceBase = 0x7f0000000000ull;
constexpr uint64_t kPinnedBase = 0x200000000ull;
constexpr uint64_t kPageableBase = 0x560000000ull;

struct Region {
  uint32_t id = 0;
  uint64_t base = 0, size = 0;
  v1::AddressSpace space = v1::SPACE_DEVICE;
  v1::RegionOrigin origin = v1::ORIGIN_CUDA_MALLOC;
  uint32_t device = 0;
  bool live = true;
};

// A byte range to touch: inside a region, or (region 0) by address alone.
struct Range {
  uint32_t region = 0;
  uint64_t offset = 0, address = 0, size = 0;
  v1::AddressSpace space = v1::SPACE_DEVICE;
};

enum class Kind {
  kKernel,
  kRawKernel,
  kMemcpy,
  kMemset,
  kRecord,
  kWait,
  kSync,
  kQuery,
  kHostAccess,
  kHostFunc,
  kFree,
  kAlloc,
  kGraph
};

struct Weighted {
  Kind kind;
  uint64_t weight;
};

constexpr Weighted kMix[] = {
    {Kind::kKernel, 22},    {Kind::kRawKernel, 3}, {Kind::kMemcpy, 14}, {Kind::kMemset, 5},
    {Kind::kRecord, 10},    {Kind::kWait, 10},     {Kind::kSync, 6},    {Kind::kQuery, 6},
    {Kind::kHostAccess, 7}, {Kind::kHostFunc, 3},  {Kind::kFree, 4},    {Kind::kAlloc, 1},
    {Kind::kGraph, 6},
};

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  v1::Chunk run() {
    v1::Header& h = *c_.mutable_header();
    h.set_format_version(kFormatVersion);
    h.set_producer("check_test random program");
    h.set_rank(-1);
    h.set_clock_domain(v1::CLOCK_DOMAIN_SYNTHETIC);
    add_streams();
    add_threads_and_events();
    add_regions();
    const uint64_t ops = rng_.uniform(10, 40);
    while (seq_ <= ops) add_op();
    // A region without an alloc op would live from the start.
    while (!pending_allocs_.empty()) add_pending_alloc();
    return std::move(c_);
  }

 private:
  uint32_t intern(const std::string& text) {
    c_.add_strings(text);
    return static_cast<uint32_t>(c_.strings_size());
  }

  // Sometimes a second device, whose memory reuses device 0's addresses
  // (separate address spaces) and whose streams have their own legacy rules.
  void add_streams() {
    devices_ = rng_.chance(1, 4) ? 2 : 1;
    const uint64_t n = rng_.uniform(2, 4);
    bool legacy[2] = {false, false};
    for (uint32_t i = 1; i <= n; ++i) {
      const auto device = static_cast<uint32_t>(i == 1 ? 0 : rng_.uniform(0, devices_ - 1));
      auto flags = static_cast<v1::StreamFlags>(rng_.uniform(0, 3));
      // One legacy default stream per device at most, as in CUDA.
      if (flags == v1::STREAM_LEGACY_DEFAULT && legacy[device]) flags = v1::STREAM_BLOCKING;
      legacy[device] |= flags == v1::STREAM_LEGACY_DEFAULT;
      v1::Stream& s = *c_.add_streams();
      s.set_id(i);
      s.set_device(device);
      s.set_flags(flags);
      s.set_role(i == 1 ? v1::ROLE_COMPUTE : static_cast<v1::StreamRole>(rng_.uniform(2, 4)));
      s.set_name(intern("s" + std::to_string(i)));
    }
  }

  void add_threads_and_events() {
    threads_ = static_cast<uint32_t>(rng_.uniform(1, 2));
    for (uint32_t i = 1; i <= threads_; ++i) {
      v1::HostThread& t = *c_.add_threads();
      t.set_id(i);
      t.set_os_tid(100 + i);
      t.set_name(intern("t" + std::to_string(i)));
    }
    events_ = static_cast<uint32_t>(rng_.uniform(2, 4));
    for (uint32_t i = 1; i <= events_; ++i) {
      v1::Event& e = *c_.add_events();
      e.set_id(i);
      e.set_name(intern("e" + std::to_string(i)));
    }
  }

  uint64_t random_size(uint64_t min_granules, uint64_t max_granules) {
    return kGranule * rng_.uniform(min_granules, max_granules);
  }

  const Region& add_region(v1::AddressSpace space, v1::RegionOrigin origin, uint64_t base, uint64_t size,
                           uint32_t device = 0) {
    v1::Region& r = *c_.add_regions();
    r.set_id(static_cast<uint32_t>(c_.regions_size()));
    r.set_space(space);
    r.set_base(base);
    r.set_size(size);
    r.set_device(device);
    r.set_origin(origin);
    r.set_label(intern("r" + std::to_string(r.id())));
    regions_.push_back({r.id(), base, size, space, origin, device, true});
    return regions_.back();
  }

  // A new driver allocation at the end of the device's area.
  const Region& add_segment(uint32_t device, uint64_t size) {
    const Region& r = add_region(v1::SPACE_DEVICE, v1::ORIGIN_CUDA_MALLOC, device_end_[device], size, device);
    device_end_[device] += size;
    return r;
  }

  // Device segments lie back to back so address ranges can span two; a
  // block (and maybe an annotation) nests inside the first one.
  void add_regions() {
    for (uint64_t n = rng_.uniform(2, 3); n > 0; --n) add_segment(0, random_size(4, 16));
    if (devices_ > 1) add_segment(1, random_size(4, 16));
    if (rng_.chance(2, 3)) {
      const Region seg = regions_.front();
      const uint64_t offset = kGranule * rng_.uniform(0, seg.size / kGranule - 2);
      const uint64_t size = kGranule * rng_.uniform(1, (seg.size - offset) / kGranule);
      const Region block = add_region(v1::SPACE_DEVICE, v1::ORIGIN_FRAMEWORK_BLOCK, seg.base + offset, size);
      if (rng_.chance(1, 3)) add_region(v1::SPACE_DEVICE, v1::ORIGIN_ANNOTATION, block.base, kGranule);
    }
    uint64_t pinned = kPinnedBase;
    for (uint64_t n = rng_.uniform(1, 2); n > 0; --n) {
      const uint64_t size = random_size(4, 16);
      add_region(v1::SPACE_PINNED_HOST, v1::ORIGIN_HOST_ALLOC, pinned, size);
      pinned += size;
    }
    add_region(v1::SPACE_PAGEABLE_HOST, v1::ORIGIN_HOST_MALLOC, kPageableBase, random_size(4, 8));
  }

  // A live region of the wanted spaces (device memory of `on_device` only,
  // when it is not -1).
  const Region* pick(bool device, bool pinned, bool pageable, int on_device = -1) {
    std::vector<const Region*> live;
    for (const Region& r : regions_) {
      const bool right_device = on_device < 0 || r.device == static_cast<uint32_t>(on_device);
      const bool wanted = (device && r.space == v1::SPACE_DEVICE && right_device) ||
                          (pinned && r.space == v1::SPACE_PINNED_HOST) ||
                          (pageable && r.space == v1::SPACE_PAGEABLE_HOST);
      if (r.live && wanted) live.push_back(&r);
    }
    return live.empty() ? nullptr : live[rng_.uniform(0, live.size() - 1)];
  }
  const Region* pick_device() { return pick(true, false, false); }
  const Region* pick_host() { return pick(false, true, true); }

  Range range_in(const Region& r, uint64_t max_size = ~0ull) {
    const uint64_t granules = r.size / kGranule;
    const uint64_t first = rng_.uniform(0, granules - 1);
    const uint64_t count =
        rng_.uniform(1, std::min(granules - first, std::max<uint64_t>(1, max_size / kGranule)));
    return Range{r.id, first * kGranule, r.base + first * kGranule, count * kGranule, r.space};
  }

  // Anywhere in a device's area, regardless of region boundaries.
  Range device_address_range(uint32_t device) {
    const uint64_t granules = (device_end_[device] - kDeviceBase) / kGranule;
    const uint64_t first = rng_.uniform(0, granules - 1);
    const uint64_t count = rng_.uniform(1, std::min<uint64_t>(granules - first, 8));
    return Range{0, 0, kDeviceBase + first * kGranule, count * kGranule, v1::SPACE_DEVICE};
  }

  uint32_t random_stream() { return static_cast<uint32_t>(rng_.uniform(1, c_.streams_size())); }
  uint32_t device_of(uint32_t stream) const { return c_.streams(static_cast<int>(stream) - 1).device(); }
  uint32_t random_event() { return static_cast<uint32_t>(rng_.uniform(1, events_)); }

  v1::Op& new_op(uint32_t stream) {
    v1::Op& op = *c_.add_ops();
    op.set_seq(seq_++);
    op.set_thread(thread_);
    op.set_stream(stream);
    op.set_host_start(clock_);
    clock_ += 1000;
    op.set_host_end(clock_);
    return op;
  }

  void set_access(v1::Access& a, const Range& r, v1::AccessMode mode, v1::Precision precision) {
    if (r.region) {
      a.set_region(r.region);
      a.set_offset(r.offset);
    } else {
      a.set_address(r.address);
    }
    a.set_size(r.size);
    a.set_mode(mode);
    a.set_precision(precision);
  }

  // A kernel with explicit accesses: random modes, precisions and ranges,
  // mostly device memory, sometimes pinned memory or a bare address range.
  void fill_kernel(v1::Kernel& k, uint32_t device) {
    k.set_name(intern("k" + std::to_string(rng_.uniform(0, 3))));
    for (uint64_t n = rng_.uniform(1, 3); n > 0; --n) {
      Range r;
      const Region* region = rng_.chance(1, 8) ? pick(false, true, false) : pick_device();
      if (region && !rng_.chance(1, 4))
        r = range_in(*region);
      else
        r = device_address_range(device);
      const auto mode = static_cast<v1::AccessMode>(rng_.uniform(0, 3));
      const auto precision = static_cast<v1::Precision>(rng_.chance(2, 3) ? 0 : rng_.uniform(1, 2));
      k.add_arg_words(r.address);
      v1::Access& a = *k.add_accesses();
      set_access(a, r, mode, precision);
      a.set_arg_index(static_cast<uint32_t>(k.arg_words_size()));
    }
  }

  // Only argument words: pointers into live regions and a scalar.
  void fill_raw_kernel(v1::Kernel& k) {
    k.set_name(intern("raw" + std::to_string(rng_.uniform(0, 1))));
    for (uint64_t n = rng_.uniform(1, 3); n > 0; --n) {
      const Region* r = rng_.chance(1, 5) ? pick_host() : pick_device();
      if (r) k.add_arg_words(r->base + kGranule * rng_.uniform(0, r->size / kGranule - 1));
    }
    k.add_arg_words(rng_.uniform(1, 4096));
  }

  bool fill_copy(v1::Memcpy& c, bool in_graph) {
    // H2D, D2H, D2D or (rarely) H2H; graph copies stay off pageable memory.
    const auto dir = static_cast<v1::CopyDirection>(in_graph || rng_.chance(7, 8) ? rng_.uniform(1, 3) : 4);
    const bool pageable = !in_graph && rng_.chance(1, 3);
    const Region* host = pageable ? pick(false, false, true) : pick(false, true, false);
    const Region* src = dir == v1::COPY_H2D || dir == v1::COPY_H2H ? host : pick_device();
    const Region* dst = dir == v1::COPY_D2H || dir == v1::COPY_H2H ? pick_host() : pick_device();
    if (!src || !dst) return false;
    const uint64_t size = std::min(range_in(*src).size, dst->size);
    const Range from = range_in(*src, size), to = range_in(*dst, from.size);
    const uint64_t bytes = std::min(from.size, to.size);
    c.set_src(from.address);
    c.set_dst(to.address);
    c.set_bytes(bytes);
    c.set_src_space(src->space);
    c.set_dst_space(dst->space);
    c.set_src_device(src->device);
    c.set_dst_device(dst->device);
    const bool peer = dir == v1::COPY_D2D && src->device != dst->device;
    c.set_direction(peer ? v1::COPY_P2P : dir);
    c.set_async(in_graph || rng_.chance(3, 4));
    return true;
  }

  // A memset's address is in its stream's device memory.
  bool fill_memset(v1::Memset& m, uint32_t device) {
    const Region* r = pick(true, false, false, static_cast<int>(device));
    if (!r) return false;
    const Range range = range_in(*r);
    m.set_dst(range.address);
    m.set_bytes(range.size);
    m.set_value(static_cast<uint32_t>(rng_.uniform(0, 255)));
    m.set_space(v1::SPACE_DEVICE);
    m.set_async(true);
    return true;
  }

  void add_host_accesses(google::protobuf::RepeatedPtrField<v1::Access>& out, uint64_t count) {
    for (; count > 0; --count) {
      const Region* r = pick_host();
      if (!r) return;
      Range range = range_in(*r);
      if (rng_.chance(1, 3)) range.region = 0;  // by address
      set_access(*out.Add(), range, static_cast<v1::AccessMode>(rng_.uniform(1, 3)), v1::PRECISION_EXACT);
    }
  }

  void add_graph(uint32_t stream) {
    v1::GraphLaunch& g = *new_op(stream).mutable_graph();
    g.set_graph_id(rng_.uniform(1, 3));
    for (uint32_t i = 0, n = static_cast<uint32_t>(rng_.uniform(2, 4)); i < n; ++i) {
      v1::GraphNode& node = *g.add_nodes();
      node.set_index(i);
      for (uint32_t dep = 0; dep < i; ++dep)
        if (rng_.chance(1, 2)) node.add_deps(dep);
      const uint64_t what = rng_.uniform(1, 4);
      if (what == 3 && fill_copy(*node.mutable_memcpy(), true)) continue;
      node.clear_memcpy();
      if (what == 4 && fill_memset(*node.mutable_memset(), device_of(stream))) continue;
      node.clear_memset();
      fill_kernel(*node.mutable_kernel(), device_of(stream));
    }
  }

  // Frees a region (stream-ordered, cudaFree, or a plain host-side free)
  // and hands its base address to a new region, now or a few ops later.
  void add_free() {
    const Region* r = pick(true, true, false);
    if (!r) return add_record();
    const Region old = *r;
    regions_[old.id - 1].live = false;
    const bool device = old.space == v1::SPACE_DEVICE;
    const uint64_t how = rng_.uniform(device ? 1 : 2, 3);
    v1::Free& f = *new_op(how == 1 ? random_stream() : 0).mutable_free();
    f.set_region(old.id);
    f.set_stream_ordered(how == 1);
    f.set_device_sync(how == 2 || (how == 1 && rng_.chance(1, 4)));
    const Region& fresh = add_region(old.space, old.origin, old.base,
                                     kGranule * rng_.uniform(1, old.size / kGranule), old.device);
    regions_.back().live = false;
    pending_allocs_.push_back(fresh.id);
    if (rng_.chance(1, 2)) add_pending_alloc();
  }

  void add_pending_alloc() {
    const uint32_t id = pending_allocs_.front();
    pending_allocs_.erase(pending_allocs_.begin());
    Region& r = regions_[id - 1];
    const uint64_t how = rng_.uniform(r.space == v1::SPACE_DEVICE ? 1 : 2, 3);
    v1::Alloc& a = *new_op(how == 1 ? random_stream() : 0).mutable_alloc();
    a.set_region(id);
    a.set_stream_ordered(how == 1);
    a.set_device_sync(how == 2 || (how == 1 && rng_.chance(1, 4)));
    r.live = true;
  }

  // cudaMalloc of a new segment: the driver synchronises the device.
  void add_alloc() {
    const uint32_t id =
        add_segment(static_cast<uint32_t>(rng_.uniform(0, devices_ - 1)), random_size(4, 8)).id;
    v1::Alloc& a = *new_op(0).mutable_alloc();
    a.set_region(id);
    a.set_device_sync(true);
  }

  void add_record() { new_op(random_stream()).mutable_record()->set_event(random_event()); }

  void add_op() {
    thread_ = static_cast<uint32_t>(rng_.uniform(1, threads_));
    if (!pending_allocs_.empty() && rng_.chance(1, 4)) return add_pending_alloc();
    uint64_t total = 0;
    for (const Weighted& w : kMix) total += w.weight;
    uint64_t draw = rng_.uniform(1, total);
    Kind kind = Kind::kKernel;
    for (const Weighted& w : kMix) {
      if (draw <= w.weight) {
        kind = w.kind;
        break;
      }
      draw -= w.weight;
    }
    switch (kind) {
      case Kind::kKernel: {
        const uint32_t stream = random_stream();
        fill_kernel(*new_op(stream).mutable_kernel(), device_of(stream));
        break;
      }
      case Kind::kRawKernel: fill_raw_kernel(*new_op(random_stream()).mutable_kernel()); break;
      case Kind::kMemcpy: {
        v1::Memcpy c;
        if (!fill_copy(c, false)) return add_record();
        *new_op(random_stream()).mutable_memcpy() = c;
        break;
      }
      case Kind::kMemset: {
        v1::Memset m;
        const uint32_t stream = random_stream();
        if (!fill_memset(m, device_of(stream))) return add_record();
        *new_op(stream).mutable_memset() = m;
        break;
      }
      case Kind::kRecord: add_record(); break;
      case Kind::kWait: new_op(random_stream()).mutable_wait()->set_event(random_event()); break;
      case Kind::kSync: {
        const auto which = static_cast<v1::SyncKind>(rng_.uniform(0, 2));
        v1::Sync& s = *new_op(which == v1::SYNC_STREAM ? random_stream() : 0).mutable_sync();
        s.set_kind(which);
        if (which == v1::SYNC_EVENT) s.set_event(random_event());
        if (which == v1::SYNC_DEVICE) s.set_device(static_cast<uint32_t>(rng_.uniform(0, devices_ - 1)));
        break;
      }
      case Kind::kQuery: {
        const bool stream = rng_.chance(1, 2);
        v1::Query& q = *new_op(stream ? random_stream() : 0).mutable_query();
        q.set_kind(stream ? v1::QUERY_STREAM : v1::QUERY_EVENT);
        if (!stream) q.set_event(random_event());
        q.set_ready(rng_.chance(1, 2));
        break;
      }
      case Kind::kHostAccess:
        add_host_accesses(*new_op(0).mutable_host_access()->mutable_accesses(), rng_.uniform(1, 2));
        break;
      case Kind::kHostFunc: {
        v1::HostFunc& f = *new_op(random_stream()).mutable_host_func();
        f.set_name(intern("callback"));
        add_host_accesses(*f.mutable_accesses(), 1);
        break;
      }
      case Kind::kFree: add_free(); break;
      case Kind::kAlloc: add_alloc(); break;
      case Kind::kGraph: add_graph(random_stream()); break;
    }
  }

  Rng rng_;
  v1::Chunk c_;
  uint64_t seq_ = 1;
  int64_t clock_ = 0;
  uint32_t devices_ = 1, threads_ = 1, events_ = 1, thread_ = 1;
  std::vector<Region> regions_;
  std::vector<uint32_t> pending_allocs_;
  uint64_t device_end_[2] = {kDeviceBase, kDeviceBase};
};

}  // namespace

v1::Chunk random_program(uint64_t seed) {
  return Generator(seed).run();
}

}  // namespace racetrack::check_test
