#include "shim/collector.h"

#include <cupti.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "record_decoder.h"

namespace racetrack::capture {
namespace {

int64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

void sleep_ms(int64_t ms) {
  timespec ts{static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1'000'000};
  nanosleep(&ts, nullptr);
}

std::vector<std::string> own_command_line() {
  std::vector<std::string> args;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  while (std::getline(in, arg, '\0')) args.push_back(arg);
  return args;
}

// What the size cap left out, empty when nothing.
std::string over_cap_text(const ModuleStats& s, const CaptureConfig& config) {
  if (s.over_cap == 0) return {};
  return std::to_string(s.over_cap) + " module images (" + std::to_string(s.over_cap_bytes) +
         " bytes) left out, over --max-module-bytes " + std::to_string(config.max_module_bytes) +
         " (their sha256 is kept)";
}

v1::Header header_for(const CaptureConfig& config) {
  v1::Header h;
  h.set_producer("racetrack-capture 0.1");
  h.set_pid(static_cast<uint32_t>(getpid()));
  h.set_rank(config.rank);
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof host - 1) == 0) h.set_host(host);
  for (const std::string& arg : own_command_line()) h.add_command_line(arg);
  return h;
}

}  // namespace

Result<std::unique_ptr<Collector>> Collector::start(const CaptureConfig& config, ActivityBuffers* buffers) {
  const std::string wanted = expand_output_path(config.output_pattern, getpid(), config.rank);
  auto claimed = claim_output(wanted, getpid());
  if (!claimed) return claimed.error();
  ::close(claimed->fd);
  // In place: a killed program must leave every chunk flushed so far.
  WriterOptions in_place;
  in_place.in_place = true;
  auto writer = TraceWriter::create(claimed->path, in_place);
  if (!writer) return writer.error();
  // Nothing may wait in the FILE buffer between cycles, or a child forked
  // before the first cycle writes it again at exit(): the file's own header
  // is buffered until now.
  if (Status flushed = writer->flush(); !flushed) return flushed.error();
  std::unique_ptr<Collector> c(new Collector(config, buffers, claimed->path, std::move(*writer)));
  c->thread_ = std::thread([raw = c.get()] { raw->run(); });
  return c;
}

Collector::Collector(const CaptureConfig& config, ActivityBuffers* buffers, std::string path,
                     TraceWriter writer)
    : config_(config), path_(std::move(path)), writer_(std::move(writer)), buffers_(buffers) {
  AssemblerOptions options;
  options.header = header_for(config);
  options.modules.keep_images = config.code;
  options.modules.max_image_bytes = config.max_module_bytes;
  assembler_ = std::make_unique<TraceAssembler>(writer_, std::move(options));
}

Collector::~Collector() {
  stopping_.store(true);
  if (thread_.joinable()) thread_.join();
}

ThreadSlot* Collector::register_thread() {
  std::lock_guard lock(slots_mutex_);
  slots_.push_back(std::make_unique<ThreadSlot>());
  return slots_.back().get();
}

void Collector::run() {
  // Signals go to application threads: the handler waits for this thread.
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGINT);
  sigaddset(&blocked, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &blocked, nullptr);
  const int64_t slice_ms = 20;
  int64_t waited = 0;
  while (!stopping_.load()) {
    sleep_ms(slice_ms);
    waited += slice_ms;
    int request = signal_request_.load();
    if (request == 0 && waited < config_.flush_period_ms) continue;
    waited = 0;
    cycle(request == 2);
    // The signal handler waits for this: its request was served by a cycle
    // that started after it (a newer request stays for the next cycle).
    if (request != 0) signal_request_.compare_exchange_strong(request, 0);
    if (request == 2) return;
  }
}

void Collector::cycle(bool final) {
  std::lock_guard lock(cycle_mutex_);
  if (finished_.load()) return;
  cuptiActivityFlushAll(final ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
  for (const CompletedBuffer& b : buffers_->take_completed()) {
    BufferRecordSource source(&cuptiActivityGetNextRecord, b.data, b.valid_bytes);
    while (const CUpti_Activity* record = source.next())
      if (auto decoded = decode_record(*record)) assembler_->add_record(std::move(*decoded));
    if (source.failed()) ++corrupt_buffers_;
    buffers_->release(b.data);
  }
  // Read the watermark before draining: an op below it is already logged.
  uint64_t complete_below = next_seq_.load();
  std::vector<ThreadSlot*> slots;
  {
    std::lock_guard slots_lock(slots_mutex_);
    for (auto& s : slots_) slots.push_back(s.get());
  }
  for (ThreadSlot* s : slots) complete_below = std::min(complete_below, s->inflight.load());
  for (ThreadSlot* s : slots)
    s->log.drain(
        [&](const ApiEvent& e, std::span<const uint64_t> payload) { assembler_->add_api(e, payload); });
  // After the logs: an image is left before its load is logged.
  for (const ModuleImage& image : module_images_.take())
    assembler_->add_module_image(image.cupti_module, image.bytes, image.source);
  const int64_t now = realtime_ns();
  Status status = Ok{};
  if (final) {
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS && dropped > 0)
      assembler_->note("CUPTI dropped " + std::to_string(dropped) + " activity records", now);
    if (corrupt_buffers_ > 0)
      assembler_->note(std::to_string(corrupt_buffers_) + " activity buffers ended early", now);
    if (const std::string text = over_cap_text(assembler_->stats().modules, config_); !text.empty())
      assembler_->note(text, now);
    status = assembler_->finish();
    if (status) status = writer_.close();
    finished_.store(true, std::memory_order_release);
  } else {
    status = assembler_->advance(complete_below, now);
  }
  if (!status) {
    std::fprintf(stderr, "racetrack: writing %s failed: %s; the capture stops\n", path_.c_str(),
                 status.error().describe().c_str());
    finished_.store(true, std::memory_order_release);
  }
}

void Collector::request_flush_from_signal(bool final) {
  // A cycle already under way when the signal came does not count: it may
  // have drained the logs before the last calls, and a final request must
  // see the trace finished before the process dies.
  // A flush request never downgrades a pending final one.
  const int wanted = final ? 2 : 1;
  int pending = signal_request_.load();
  while (pending < wanted && !signal_request_.compare_exchange_weak(pending, wanted)) {
  }
  for (int i = 0; i < 250 && signal_request_.load() != 0 && !finished(); ++i) sleep_ms(20);
}

void Collector::stop() {
  stopping_.store(true);
  if (thread_.joinable()) thread_.join();
  cycle(true);
  const AssemblerStats& s = assembler_->stats();
  std::fprintf(stderr, "racetrack: wrote %llu ops (%llu API calls, %llu device records) to %s\n",
               static_cast<unsigned long long>(s.ops_written), static_cast<unsigned long long>(s.api_events),
               static_cast<unsigned long long>(s.records), path_.c_str());
  if (s.modules.stored > 0)
    std::fprintf(stderr, "racetrack: stored %llu modules of GPU code (%llu bytes of images, %llu left out)\n",
                 static_cast<unsigned long long>(s.modules.stored),
                 static_cast<unsigned long long>(s.modules.image_bytes),
                 static_cast<unsigned long long>(s.modules.left_out));
  if (const std::string text = over_cap_text(s.modules, config_); !text.empty())
    std::fprintf(stderr, "racetrack: warning: %s\n", text.c_str());
  if (!config_.index_path.empty()) {
    const int fd = ::open(config_.index_path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
      const std::string line = path_ + "\n";
      [[maybe_unused]] ssize_t n = ::write(fd, line.data(), line.size());
      ::close(fd);
    }
  }
}

}  // namespace racetrack::capture
