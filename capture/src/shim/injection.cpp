// The injected side of `racetrack capture`: InitializeInjection (called by
// the driver during cuInit when CUDA_INJECTION64_PATH names this library),
// the CUPTI callback that logs API, NVTX and graph-node events on the
// calling thread, the activity-buffer callbacks, and the exit, signal and
// fork hooks. Callbacks never call the CUDA runtime (docs/cupti-notes.md §4.4), take
// no locks and allocate nothing after a thread's first call.
#include <cupti.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "callback_decoder.h"
#include "capture_config.h"
#include "record_decoder.h"
#include "shim/collector.h"
#include "shim/driver_queries.h"

#define RACETRACK_EXPORT extern "C" __attribute__((visibility("default")))

namespace racetrack::capture {
namespace {

constexpr int kMaxDepth = 4;  // runtime call > nested driver call > ...

struct InFlight {
  ApiEvent event;
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
  uint32_t words;
};

// Everything one application thread needs, allocated at its first call.
struct ThreadState {
  ThreadSlot* slot = nullptr;
  uint64_t os_tid = 0;
  int depth = 0;
  InFlight stack[kMaxDepth];
  uint64_t scratch[kMaxDepth][ThreadLog::kMaxPayloadWords];
  ShimDriverQueries queries;
};

std::mutex g_init_mutex;
bool g_initialised = false;
std::atomic<bool> g_active{false};
pid_t g_pid = 0;
CaptureConfig g_config;
Collector* g_collector = nullptr;  // lives until the process ends
ActivityBuffers* g_buffers = nullptr;
struct sigaction g_old_actions[NSIG];

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// Thread states are pooled: a thread that ends hands its state (and the log
// the collector keeps draining) to the next thread that calls CUDA, so
// short-lived threads cost no memory. The pointer is a plain thread_local
// (never destroyed), because CUDA calls made from static destructors at exit
// still arrive after the thread's thread_local objects are gone.
std::mutex g_states_mutex;
// Never destroyed (like the collector): a thread that ends after the static
// destructors ran still hands its state back, and the states stay reachable.
std::vector<ThreadState*>& g_free_states = *new std::vector<ThreadState*>;
thread_local ThreadState* t_state = nullptr;
thread_local bool t_exiting = false;

struct ThreadReaper {
  ~ThreadReaper() {
    t_exiting = true;
    if (t_state == nullptr) return;
    t_state->slot->inflight.store(ThreadSlot::kIdle, std::memory_order_release);
    std::lock_guard lock(g_states_mutex);
    g_free_states.push_back(t_state);
    t_state = nullptr;
  }
};

ThreadState& thread_state() {
  if (t_state != nullptr) return *t_state;
  ThreadState* state = nullptr;
  {
    std::lock_guard lock(g_states_mutex);
    if (!g_free_states.empty()) {
      state = g_free_states.back();
      g_free_states.pop_back();
    }
  }
  if (state == nullptr) {
    state = new ThreadState;
    state->slot = g_collector->register_thread();
  }
  state->os_tid = static_cast<uint64_t>(syscall(SYS_gettid));
  state->depth = 0;
  t_state = state;
  if (!t_exiting) {
    thread_local ThreadReaper reaper;
    (void)reaper;
  }
  return *state;
}

// Stamps an event with its place in submission order and logs it. `enter`
// events stay on the thread's stack until their EXIT.
uint64_t take_seq(ThreadState& t) {
  std::atomic<uint64_t>& next = g_collector->next_seq();
  // Publish a lower bound before taking the seq, so the collector never
  // passes a seq that is taken but not yet logged.
  if (t.depth == 0) t.slot->inflight.store(next.load());
  return next.fetch_add(1);
}

void log_instant(ThreadState& t, ApiEvent& e, uint32_t words) {
  e.seq = take_seq(t);
  e.os_tid = t.os_tid;
  e.host_start = e.host_end = now_ns();
  t.slot->log.append(e, std::span<const uint64_t>(t.scratch[t.depth < kMaxDepth ? t.depth : 0],
                                                  words));
  if (t.depth == 0) t.slot->inflight.store(ThreadSlot::kIdle, std::memory_order_release);
}

void on_api(ThreadState& t, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
            const CUpti_CallbackData& cb) {
  if (cb.callbackSite == CUPTI_API_ENTER) {
    if (t.depth == kMaxDepth) return;
    InFlight& f = t.stack[t.depth];
    f.event = ApiEvent{};
    Payload payload{t.scratch[t.depth], ThreadLog::kMaxPayloadWords, 0};
    if (!decode_api_enter(domain, cbid, cb, t.queries, f.event, payload)) return;
    f.domain = domain;
    f.cbid = cbid;
    f.words = payload.used;
    f.event.seq = take_seq(t);
    f.event.correlation = cb.correlationId;
    f.event.os_tid = t.os_tid;
    f.event.host_start = now_ns();
    ++t.depth;
    return;
  }
  if (t.depth == 0) return;
  InFlight& f = t.stack[t.depth - 1];
  // Only the EXIT of a call whose ENTER was logged.
  if (f.domain != domain || f.cbid != cbid || f.event.correlation != cb.correlationId) return;
  decode_api_exit(domain, cbid, cb, t.queries, f.event);
  f.event.host_end = now_ns();
  t.slot->log.append(f.event, std::span<const uint64_t>(t.scratch[t.depth - 1], f.words));
  if (--t.depth == 0) t.slot->inflight.store(ThreadSlot::kIdle, std::memory_order_release);
}

void on_nvtx(ThreadState& t, CUpti_CallbackId cbid, const CUpti_NvtxData& data) {
  if (t.depth == kMaxDepth) return;
  ApiEvent e;
  Payload payload{t.scratch[t.depth], ThreadLog::kMaxPayloadWords, 0};
  if (!decode_nvtx(cbid, data, e, payload)) return;
  log_instant(t, e, payload.used);
}

void on_resource(ThreadState& t, CUpti_CallbackId cbid, const CUpti_ResourceData& data) {
  if (t.depth == kMaxDepth) return;
  ApiEvent e;
  if (!decode_resource(cbid, data, t.queries, e)) return;
  // A node created inside a launch or copy call: that call was captured
  // into a graph, not executed.
  if (e.kind == ApiKind::kGraphNodeCreated && t.depth > 0)
    t.stack[t.depth - 1].event.graph_node = e.handle;
  log_instant(t, e, 0);
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                          const void* data) {
  if (!g_active.load(std::memory_order_relaxed) || g_collector->finished()) return;
  ThreadState& t = thread_state();
  switch (domain) {
    case CUPTI_CB_DOMAIN_RUNTIME_API:
    case CUPTI_CB_DOMAIN_DRIVER_API:
      on_api(t, domain, cbid, *static_cast<const CUpti_CallbackData*>(data));
      break;
    case CUPTI_CB_DOMAIN_NVTX:
      on_nvtx(t, cbid, *static_cast<const CUpti_NvtxData*>(data));
      break;
    case CUPTI_CB_DOMAIN_RESOURCE:
      on_resource(t, cbid, *static_cast<const CUpti_ResourceData*>(data));
      break;
    default:
      break;
  }
}

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = g_buffers->acquire();
  *size = *buffer != nullptr ? ActivityBuffers::kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI on_buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  if (buffer == nullptr) return;
  if (g_collector != nullptr)
    g_buffers->complete(buffer, valid);
  else  // activity-only mode: the records are the cost being measured, not kept
    g_buffers->release(buffer);
}

void on_exit() {
  if (getpid() != g_pid) return;  // a forked child: the parent owns the capture
  g_active.store(false);
  if (g_collector != nullptr)
    g_collector->stop();
  else
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

void on_signal(int sig, siginfo_t* info, void* context) {
  const struct sigaction& old = g_old_actions[sig];
  const bool chained = (old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL;
  if (g_collector != nullptr && getpid() == g_pid) g_collector->request_flush_from_signal(!chained);
  if (!chained) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  if ((old.sa_flags & SA_SIGINFO) != 0)
    old.sa_sigaction(sig, info, context);
  else if (old.sa_handler != SIG_IGN)
    old.sa_handler(sig);
}

void install_signal_handlers() {
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction action {};
    action.sa_sigaction = on_signal;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(sig, &action, &g_old_actions[sig]);
  }
}

void install_fork_hooks() {
  // The child must not inherit a lock another thread held at the fork.
  pthread_atfork(
      [] {
        g_states_mutex.lock();
        if (g_collector) g_collector->before_fork();
      },
      [] {
        if (g_collector) g_collector->after_fork();
        g_states_mutex.unlock();
      },
      [] {
        if (g_collector) g_collector->after_fork();
        g_states_mutex.unlock();
        g_active.store(false);  // no CUPTI work in children
      });
}

bool subscribe(CUpti_SubscriberHandle* subscriber) {
  using SubscribeV2 = CUptiResult (*)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*,
                                      CUpti_SubscriberParams*);
  char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
  CUptiResult rc;
  // The process's CUPTI may predate cuptiSubscribe_v2 (docs/cupti-notes.md §8).
  if (auto v2 = reinterpret_cast<SubscribeV2>(dlsym(RTLD_DEFAULT, "cuptiSubscribe_v2"))) {
    CUpti_SubscriberParams params{};
    params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    params.subscriberName = "racetrack";
    params.oldSubscriberName = holder;
    params.oldSubscriberSize = sizeof holder - 1;
    rc = v2(subscriber, on_callback, nullptr, &params);
  } else {
    rc = cuptiSubscribe(subscriber, on_callback, nullptr);
  }
  if (rc == CUPTI_SUCCESS) return true;
  if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
    std::fprintf(stderr,
                 "racetrack: another CUPTI client%s%s already holds the subscription "
                 "(a profiler, Nsight or a debugger); this process runs untraced\n",
                 holder[0] != '\0' ? " " : "", holder);
  else
    std::fprintf(stderr, "racetrack: cuptiSubscribe failed (CUPTI error %d); untraced\n",
                 static_cast<int>(rc));
  return false;
}

bool enable_activity() {
  if (cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed) != CUPTI_SUCCESS)
    return false;
  for (CUpti_ActivityKind kind : enabled_activity_kinds())
    if (cuptiActivityEnable(kind) != CUPTI_SUCCESS)
      std::fprintf(stderr, "racetrack: CUPTI activity kind %d unavailable\n",
                   static_cast<int>(kind));
  return true;
}

int initialize() {
  std::lock_guard lock(g_init_mutex);
  if (g_initialised) return 1;
  g_initialised = true;
  g_pid = getpid();
  auto config = config_from_env([](const char* name) { return std::getenv(name); });
  if (!config) {
    std::fprintf(stderr, "racetrack: %s; this process runs untraced\n",
                 config.error().message.c_str());
    return 1;
  }
  g_config = *config;
  g_buffers = new ActivityBuffers(4);
  if (g_config.mode == CaptureMode::kActivityOnly) {
    if (enable_activity()) std::atexit(on_exit);
    return 1;
  }
  CUpti_SubscriberHandle subscriber{};
  if (!subscribe(&subscriber)) return 1;
  auto collector = Collector::start(g_config, g_buffers);
  if (!collector) {
    std::fprintf(stderr, "racetrack: %s; this process runs untraced\n",
                 collector.error().describe().c_str());
    cuptiUnsubscribe(subscriber);
    return 1;
  }
  g_collector = collector->release();
  for (const CallbackId& id : subscribed_callbacks()) {
    if (id.domain == CUPTI_CB_DOMAIN_NVTX && !g_config.nvtx) continue;
    cuptiEnableCallback(1, subscriber, id.domain, id.cbid);
  }
  enable_activity();
  std::atexit(on_exit);
  install_signal_handlers();
  install_fork_hooks();
  g_active.store(true);
  return 1;
}

}  // namespace
}  // namespace racetrack::capture

RACETRACK_EXPORT int InitializeInjection(void) { return racetrack::capture::initialize(); }

// NVTX_INJECTION64_PATH names this library too (`racetrack capture` sets
// it): hand NVTX to the CUPTI the process actually loaded, which turns NVTX
// calls into CUPTI NVTX callbacks.
RACETRACK_EXPORT int InitializeInjectionNvtx2(const void* get_export_table) {
  using Init = int (*)(const void*);
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiSubscribe), &info) == 0) return 0;
  void* cupti = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (cupti == nullptr) return 0;
  auto init = reinterpret_cast<Init>(dlsym(cupti, "InitializeInjectionNvtx2"));
  return init != nullptr ? init(get_export_table) : 0;
}
