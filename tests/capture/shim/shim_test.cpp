// The real capture library (libracetrack_capture.so: injection, collector,
// activity buffers, driver queries) end to end without a GPU: a stand-in
// CUDA program (shim_program.cpp) loads it against a fake libcupti and
// libcuda, plays a scenario, and the trace it leaves is read back with
// racetrack's reader, validated and checked.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bit>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "callback_decoder.h"
#include "racetrack/race/checker.h"
#include "racetrack/traces/sha256.h"
#include "racetrack/traces/trace_io.h"
#include "racetrack/traces/validate.h"
#include "record_decoder.h"
#include "shim/fakes.h"
#include "test_support.h"
#include "tiny_cubin.h"

extern char** environ;

namespace racetrack::capture {
namespace {

using namespace shim_fakes;
using racetrack::testing::read_bytes;
using racetrack::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

constexpr const char* kTraceName = "trace.rtrace";

struct ProgramRun {
  pid_t pid = 0;
  int status = -1;  // as waitpid reports it
  std::string out, err;

  bool exited_with(int code) const { return WIFEXITED(status) && WEXITSTATUS(status) == code; }
  std::string describe() const {
    std::ostringstream s;
    s << "status " << status << "\nstdout:\n" << out << "stderr:\n" << err;
    return s.str();
  }
};

bool is_capture_variable(const std::string& entry) {
  for (const char* name :
       {"RACETRACK_", "LD_LIBRARY_PATH=", "CUDA_INJECTION64_PATH=", "NVTX_INJECTION64_PATH=", "RANK=",
        "OMPI_COMM_WORLD_RANK=", "SLURM_PROCID=", "PMI_RANK="})
    if (entry.starts_with(name)) return true;
  return false;
}

// Runs the program with the capture environment `racetrack capture` would
// give it (trace in `dir`, a short flush period) plus `extra` variables, and
// the fakes first on the library path. Kills it, and any child it forked,
// after 30 s.
ProgramRun run_program(const TempDir& dir, const std::string& scenario, std::vector<std::string> extra = {}) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e)
    if (!is_capture_variable(*e)) env.emplace_back(*e);
  env.push_back(std::string("LD_LIBRARY_PATH=") + RACETRACK_SHIM_FAKES_DIR);
  env.push_back("RACETRACK_CAPTURE_OUTPUT=" + dir.path(kTraceName));
  env.push_back("RACETRACK_CAPTURE_FLUSH_MS=20");
  env.insert(env.end(), extra.begin(), extra.end());  // later entries win
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string program = RACETRACK_SHIM_PROGRAM;
  std::string argument = scenario;
  char* argv[] = {program.data(), argument.data(), nullptr};

  const std::string out_path = dir.path("program.stdout"), err_path = dir.path("program.stderr");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);  // a group of its own
  ProgramRun run;
  const int rc = posix_spawn(&run.pid, program.c_str(), &actions, &attributes, argv, envp.data());
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(rc, 0) << "cannot start " << program;
  if (rc != 0) return run;
  for (int waited_ms = 0; waitpid(run.pid, &run.status, WNOHANG) == 0; ++waited_ms) {
    if (waited_ms == 30'000) {
      ADD_FAILURE() << scenario << " hung";
      kill(-run.pid, SIGKILL);
      waitpid(run.pid, &run.status, 0);
      break;
    }
    timespec ms{0, 1'000'000};
    nanosleep(&ms, nullptr);
  }
  run.out = read_bytes(out_path);
  run.err = read_bytes(err_path);
  return run;
}

// The program's last line: what the fake CUPTI and driver saw, key=value.
std::map<std::string, uint64_t> fake_counts(const ProgramRun& run) {
  std::map<std::string, uint64_t> counts;
  const size_t at = run.out.rfind("fakes: ");
  if (at == std::string::npos) {
    ADD_FAILURE() << "no fakes line\n" << run.describe();
    return counts;
  }
  std::istringstream line(run.out.substr(at + 7, run.out.find('\n', at) - at - 7));
  for (std::string item; line >> item;) {
    const size_t eq = item.find('=');
    counts[item.substr(0, eq)] = std::stoull(item.substr(eq + 1));
  }
  return counts;
}

std::vector<std::string> racetrack_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("racetrack")) lines.push_back(line);
  return lines;
}

std::vector<std::string> traces_in(const TempDir& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir.root()))
    if (entry.path().extension() == ".rtrace") names.push_back(entry.path().filename().string());
  return names;
}

// The whole trace, which must be valid.
v1::Chunk load_valid(const TempDir& dir) {
  const std::string path = dir.path(kTraceName);
  const ValidationReport report = validate_file(path);
  for (const Error& e : report.errors) ADD_FAILURE() << "invalid trace: " << e.describe();
  auto loaded = load_trace(path);
  EXPECT_TRUE(loaded.ok()) << loaded.error().describe();
  return loaded.ok() ? std::move(*loaded) : v1::Chunk{};
}

std::string string_of(const v1::Chunk& trace, uint32_t id) {
  return id == 0 || id > static_cast<uint32_t>(trace.strings_size())
             ? ""
             : trace.strings(static_cast<int>(id) - 1);
}

std::vector<v1::Op::WhatCase> kinds_of(const v1::Chunk& trace) {
  std::vector<v1::Op::WhatCase> kinds;
  for (const v1::Op& op : trace.ops()) kinds.push_back(op.what_case());
  return kinds;
}

std::vector<const v1::Op*> ops_of(const v1::Chunk& trace, v1::Op::WhatCase kind) {
  std::vector<const v1::Op*> ops;
  for (const v1::Op& op : trace.ops())
    if (op.what_case() == kind) ops.push_back(&op);
  return ops;
}

const v1::Stream* stream_of(const v1::Chunk& trace, const v1::Op& op) {
  for (const v1::Stream& s : trace.streams())
    if (s.id() == op.stream()) return &s;
  return nullptr;
}

uint64_t native_stream(const v1::Chunk& trace, const v1::Op& op) {
  const v1::Stream* s = stream_of(trace, op);
  return s != nullptr ? s->native_id() : 0;
}

const v1::Region* region(const v1::Chunk& trace, uint32_t id) {
  for (const v1::Region& r : trace.regions())
    if (r.id() == id) return &r;
  return nullptr;
}

// An access as (mode, first byte, size), whether region-relative or not.
struct Extent {
  v1::AccessMode mode;
  uint64_t address, size;
  bool operator==(const Extent&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Extent& e) {
  return os << v1::AccessMode_Name(e.mode) << " 0x" << std::hex << e.address << std::dec << "+" << e.size;
}
std::vector<Extent> extents(const v1::Chunk& trace,
                            const google::protobuf::RepeatedPtrField<v1::Access>& accesses) {
  std::vector<Extent> out;
  for (const v1::Access& a : accesses) {
    const v1::Region* r = a.region() != 0 ? region(trace, a.region()) : nullptr;
    out.push_back({a.mode(), r != nullptr ? r->base() + a.offset() : a.address(), a.size()});
  }
  return out;
}

// axpy's third argument word: n in the low half, the float a in the high.
uint64_t n_and_a(int n, float a) {
  return uint64_t{static_cast<uint32_t>(n)} | uint64_t{std::bit_cast<uint32_t>(a)} << 32;
}

std::vector<uint64_t> words(const v1::Op& op) {
  return {op.kernel().arg_words().begin(), op.kernel().arg_words().end()};
}

std::vector<int> axpy_ns(const std::vector<const v1::Op*>& kernels) {
  std::vector<int> ns;
  for (const v1::Op* op : kernels)
    ns.push_back(op->kernel().arg_words_size() == 3 ? static_cast<int>(op->kernel().arg_words(2) & 0xFFFFFFFF)
                                                    : -1);
  return ns;
}

size_t callbacks_without_nvtx() {
  size_t n = 0;
  for (const CallbackId& id : subscribed_callbacks()) n += id.domain != CUPTI_CB_DOMAIN_NVTX;
  return n;
}

// What the final flush notes when CUPTI dropped records.
std::string dropped_note() {
  return "CUPTI dropped " + std::to_string(kDropped) + " activity records";
}

race::CheckResult check(const v1::Chunk& trace) {
  race::CheckOptions options;
  options.keep_all = true;
  options.explain_and_fix = false;
  return race::check_trace(trace, options);
}

using enum v1::Op::WhatCase;

// ---------------------------------------------------------------------------

TEST(CaptureShim, OffloadTraceHasEveryCallInOrderJoinedWithItsRecord) {
  TempDir dir;
  const ProgramRun run = run_program(dir, "offload");
  ASSERT_TRUE(run.exited_with(0)) << run.describe();
  EXPECT_THAT(racetrack_lines(run.err),
              ElementsAre(StartsWith("racetrack: wrote 10 ops (18 API calls, 11 device records) to " +
                                     dir.path(kTraceName))));
  EXPECT_THAT(run.out, HasSubstr("InitializeInjection=1\nInitializeInjectionNvtx2=1\n"));

  // The library subscribed once, enabled exactly its callbacks and kinds,
  // handed NVTX on to CUPTI, and decoded every record CUPTI delivered.
  auto fakes = fake_counts(run);
  EXPECT_EQ(fakes["subscribe_calls"], 1u);
  EXPECT_EQ(fakes["callbacks_enabled"], subscribed_callbacks().size());
  EXPECT_EQ(fakes["activity_kinds"], enabled_activity_kinds().size());
  EXPECT_EQ(fakes["nvtx_initialised"], 1u);
  EXPECT_EQ(fakes["handed_over"], fakes["queued"]);
  EXPECT_EQ(fakes["walked"], fakes["queued"]);
  EXPECT_EQ(fakes["forced_flushes"], 1u);  // at exit
  // fill's CUfunction: 2 parameters and the end; axpy's CUkernel: one 400
  // from cuFuncGetParamInfo, then 4 parameters and the end.
  EXPECT_EQ(fakes["func_param_queries"], 3u + 1u);
  EXPECT_EQ(fakes["kernel_param_queries"], 5u);

  const v1::Chunk trace = load_valid(dir);
  EXPECT_EQ(trace.header().pid(), static_cast<uint32_t>(run.pid));
  EXPECT_EQ(trace.header().clock_domain(), v1::CLOCK_DOMAIN_REALTIME);
  EXPECT_THAT(trace.header().command_line(), ElementsAre(RACETRACK_SHIM_PROGRAM, "offload"));
  ASSERT_EQ(trace.threads_size(), 1);
  EXPECT_EQ(trace.threads(0).os_tid(), static_cast<uint64_t>(run.pid));
  // Stream creation makes streams, not ops; the annotations are folded into
  // the kernel and a host access.
  ASSERT_THAT(kinds_of(trace), ElementsAre(kAlloc, kAlloc, kAlloc, kKernel, kKernel, kRecord, kWait, kMemcpy,
                                           kSync, kHostAccess));
  const auto& ops = trace.ops();

  const v1::Region* activation = region(trace, ops[0].alloc().region());
  ASSERT_NE(activation, nullptr);
  EXPECT_EQ(activation->base(), kActivation);
  EXPECT_EQ(activation->size(), kBufferBytes);
  EXPECT_EQ(activation->space(), v1::SPACE_DEVICE);
  const v1::Region* pinned = region(trace, ops[2].alloc().region());
  ASSERT_NE(pinned, nullptr);
  EXPECT_EQ(pinned->base(), kPinned);
  EXPECT_EQ(pinned->space(), v1::SPACE_PINNED_HOST);
  EXPECT_EQ(pinned->origin(), v1::ORIGIN_HOST_ALLOC);

  // The library's direct driver launch (a CUfunction) and the runtime's
  // (a CUkernel): argument words as the layouts say.
  const v1::Op& fill = ops[3];
  EXPECT_EQ(string_of(trace, fill.kernel().name()), "_Z4fillPfi");
  EXPECT_THAT(words(fill), ElementsAre(kWeights, static_cast<uint64_t>(kFillN)));
  EXPECT_THAT(fill.kernel().grid(), ElementsAre(4u, 1u, 1u));
  EXPECT_THAT(fill.kernel().block(), ElementsAre(256u, 1u, 1u));
  EXPECT_THAT(fill.kernel().accesses(), IsEmpty());
  const v1::Op& axpy = ops[4];
  EXPECT_EQ(string_of(trace, axpy.kernel().name()), "_Z4axpyPfPKfif");
  EXPECT_THAT(words(axpy), ElementsAre(kActivation, kWeights, n_and_a(kAxpyN, kAxpyA)));
  EXPECT_THAT(extents(trace, axpy.kernel().accesses()),
              ElementsAre(Extent{v1::MODE_WRITE, kActivation, kCopyBytes},
                          Extent{v1::MODE_READ, kWeights, kCopyBytes}));
  for (const v1::Op* kernel : {&fill, &axpy}) {
    EXPECT_EQ(native_stream(trace, *kernel), kCompute.id);
    ASSERT_TRUE(kernel->has_device_start() && kernel->has_device_end());
    EXPECT_EQ(kernel->device_end() - kernel->device_start(), 20'000);
    EXPECT_GE(kernel->host_end(), kernel->host_start());
  }

  // The record and the wait that binds to it.
  const v1::Op& record = ops[5];
  const v1::Op& wait = ops[6];
  EXPECT_EQ(native_stream(trace, record), kCompute.id);
  EXPECT_EQ(native_stream(trace, wait), kOffload.id);
  EXPECT_EQ(wait.wait().event(), record.record().event());
  EXPECT_EQ(record.record().sync_id(), kSyncId);
  EXPECT_EQ(wait.wait().sync_id(), kSyncId);

  // The copy: addresses from the call, direction and spaces from its record,
  // which arrived last.
  const v1::Op& copy = ops[7];
  EXPECT_EQ(native_stream(trace, copy), kOffload.id);
  EXPECT_EQ(copy.memcpy().dst(), kPinned);
  EXPECT_EQ(copy.memcpy().src(), kActivation);
  EXPECT_EQ(copy.memcpy().bytes(), kCopyBytes);
  EXPECT_EQ(copy.memcpy().direction(), v1::COPY_D2H);
  EXPECT_EQ(copy.memcpy().dst_space(), v1::SPACE_PINNED_HOST);
  EXPECT_EQ(copy.memcpy().src_space(), v1::SPACE_DEVICE);
  EXPECT_TRUE(copy.memcpy().async());
  ASSERT_TRUE(copy.has_device_start() && copy.has_device_end());
  EXPECT_EQ(copy.device_end() - copy.device_start(), 4000);

  EXPECT_EQ(ops[8].sync().kind(), v1::SYNC_STREAM);
  EXPECT_EQ(native_stream(trace, ops[8]), kOffload.id);
  EXPECT_THAT(extents(trace, ops[9].host_access().accesses()),
              ElementsAre(Extent{v1::MODE_READ, kPinned, kCopyBytes}));

  // Everything from the launch on ran inside the NVTX range.
  for (int i = 3; i < ops.size(); ++i) EXPECT_EQ(string_of(trace, ops[i].nvtx()), "step") << "op " << i;
  EXPECT_EQ(ops[0].nvtx(), 0u);

  EXPECT_EQ(check(trace).hazards, 0u);
}

TEST(CaptureShim, WithoutTheEventWaitTheCheckerFindsTheOffloadRace) {
  TempDir dir;
  const ProgramRun run = run_program(dir, "offload-nowait");
  ASSERT_TRUE(run.exited_with(0)) << run.describe();
  const v1::Chunk trace = load_valid(dir);
  ASSERT_THAT(kinds_of(trace),
              ElementsAre(kAlloc, kAlloc, kAlloc, kKernel, kKernel, kRecord, kMemcpy, kSync, kHostAccess));
  const race::CheckResult result = check(trace);
  ASSERT_EQ(result.all.size(), 1u);
  const race::Hazard& h = result.all[0];
  EXPECT_EQ(h.first.seq, trace.ops(4).seq());   // axpy writes the activation ...
  EXPECT_EQ(h.second.seq, trace.ops(6).seq());  // ... while the copy reads it
  EXPECT_EQ(h.kind, race::HazardKind::kRaw);
  EXPECT_EQ(h.confidence, race::Confidence::kDefinite);
  EXPECT_EQ(h.lo, kActivation);
}

TEST(CaptureShim, WithNvtxOffTheAnnotationsAreNotSeen) {
  TempDir dir;
  const ProgramRun run = run_program(dir, "offload", {"RACETRACK_CAPTURE_NVTX=0"});
  ASSERT_TRUE(run.exited_with(0)) << run.describe();
  EXPECT_EQ(fake_counts(run)["callbacks_enabled"], callbacks_without_nvtx());
  const v1::Chunk trace = load_valid(dir);
  ASSERT_THAT(kinds_of(trace),
              ElementsAre(kAlloc, kAlloc, kAlloc, kKernel, kKernel, kRecord, kWait, kMemcpy, kSync));
  EXPECT_THAT(trace.ops(4).kernel().accesses(), IsEmpty());
  EXPECT_EQ(trace.ops(4).nvtx(), 0u);
}

TEST(CaptureShim, ConcurrentThreadsKeepTheirOwnOrderAndArguments) {
  TempDir dir;
  const ProgramRun run = run_program(dir, "threads");
  ASSERT_TRUE(run.exited_with(0)) << run.describe();
  const v1::Chunk trace = load_valid(dir);

  std::set<uint64_t> os_tids;
  for (const v1::HostThread& t : trace.threads()) os_tids.insert(t.os_tid());
  EXPECT_EQ(os_tids.size(), static_cast<size_t>(kThreads));
  EXPECT_EQ(os_tids.count(static_cast<uint64_t>(run.pid)), 0u);  // main made no calls
  ASSERT_EQ(trace.streams_size(), kThreads);

  const auto kernels = ops_of(trace, kKernel);
  ASSERT_EQ(kernels.size(), static_cast<size_t>(kThreads * kLaunchesPerThread));
  // Each thread's launches, in its own order, on its own stream, with its
  // own arguments, all joined with their records.
  std::map<uint32_t, std::vector<const v1::Op*>> by_thread;
  for (const v1::Op* k : kernels) by_thread[k->thread()].push_back(k);
  ASSERT_EQ(by_thread.size(), static_cast<size_t>(kThreads));
  std::set<int> seen_threads;
  for (const auto& [thread, launches] : by_thread) {
    const int i = axpy_ns(launches).front() / 1000;
    seen_threads.insert(i);
    std::vector<int> expected;
    for (int k = 0; k < kLaunchesPerThread; ++k) expected.push_back(i * 1000 + k);
    EXPECT_EQ(axpy_ns(launches), expected) << "thread " << thread;
    for (const v1::Op* op : launches) {
      EXPECT_EQ(native_stream(trace, *op), kThreadStreamBase.id + static_cast<uint32_t>(i));
      EXPECT_EQ(op->kernel().arg_words(0), kActivation + static_cast<uint64_t>(i) * kCopyBytes);
      EXPECT_TRUE(op->has_device_start()) << "seq " << op->seq();
    }
  }
  EXPECT_EQ(seen_threads.size(), static_cast<size_t>(kThreads));

  // The final flush notes what CUPTI dropped.
  const v1::Op& last = trace.ops(trace.ops_size() - 1);
  ASSERT_EQ(last.what_case(), kAnnotation);
  EXPECT_EQ(string_of(trace, last.annotation().text()), dropped_note());

  // Layouts are asked once per thread state, not once per launch (the
  // second wave reuses the first's states): one 400, then 4 params + end.
  auto fakes = fake_counts(run);
  EXPECT_GE(fakes["func_param_queries"], 1u);
  EXPECT_LE(fakes["func_param_queries"], static_cast<uint64_t>(kThreads));
  EXPECT_EQ(fakes["kernel_param_queries"], 5 * fakes["func_param_queries"]);
}

TEST(CaptureShim, SigtermLeavesAFinishedTraceOfTheWorkBeforeIt) {
  TempDir dir;
  const ProgramRun run = run_program(dir, "sigterm");
  ASSERT_TRUE(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGTERM) << run.describe();
  const v1::Chunk trace = load_valid(dir);
  // The signal came during a periodic flush; the handler still waited for
  // the final one, which joins the last records and notes the dropped ones.
  ASSERT_THAT(kinds_of(trace), ElementsAre(kAlloc, kKernel, kKernel, kRecord, kAnnotation));
  EXPECT_THAT(axpy_ns(ops_of(trace, kKernel)), ElementsAre(1, 2));
  EXPECT_TRUE(trace.ops(2).has_device_start());
  EXPECT_EQ(string_of(trace, trace.ops(4).annotation().text()), dropped_note());
}

TEST(CaptureShim, AForkedChildNeitherWritesNorCorruptsTheParentsTrace) {
  TempDir dir;
  // The fork comes before the first flush: the file's header is all that
  // is written yet.
  const ProgramRun run = run_program(dir, "fork", {"RACETRACK_CAPTURE_FLUSH_MS=1000"});
  ASSERT_TRUE(run.exited_with(0)) << run.describe();
  EXPECT_THAT(run.out, HasSubstr("child exited 0\n"));
  EXPECT_THAT(racetrack_lines(run.err), ElementsAre(HasSubstr("racetrack: wrote 4 ops")));
  EXPECT_THAT(traces_in(dir), ElementsAre(kTraceName));
  const v1::Chunk trace = load_valid(dir);
  EXPECT_EQ(trace.header().pid(), static_cast<uint32_t>(run.pid));
  ASSERT_THAT(kinds_of(trace), ElementsAre(kAlloc, kKernel, kAnnotation, kKernel));
  EXPECT_THAT(axpy_ns(ops_of(trace, kKernel)), ElementsAre(1, 3));  // the child's 2 is not there
  EXPECT_EQ(string_of(trace, trace.ops(2).annotation().text()), "parent");
  ASSERT_EQ(trace.threads_size(), 1);
  EXPECT_EQ(trace.threads(0).os_tid(), static_cast<uint64_t>(run.pid));
}

// Under AddressSanitizer this catches a thread handing its state back to a
// pool the library's static destructors already destroyed.
TEST(CaptureShim, AThreadThatEndsDuringExitIsCapturedAndHarmless) {
  TempDir dir;
  const ProgramRun run = run_program(dir, "late-thread");
  ASSERT_TRUE(run.exited_with(0)) << run.describe();
  const v1::Chunk trace = load_valid(dir);
  EXPECT_THAT(axpy_ns(ops_of(trace, kKernel)), ElementsAre(1, 2));
  EXPECT_EQ(trace.threads_size(), 2);
}

TEST(CaptureShim, AnotherSubscriberLeavesTheProgramRunningUntraced) {
  TempDir dir;
  const ProgramRun run = run_program(dir, "busy");
  ASSERT_TRUE(run.exited_with(0)) << run.describe();
  EXPECT_THAT(racetrack_lines(run.err),
              ElementsAre("racetrack: another CUPTI client Nsight Systems already holds the subscription "
                          "(a profiler, Nsight or a debugger); this process runs untraced"));
  EXPECT_THAT(traces_in(dir), IsEmpty());
  auto fakes = fake_counts(run);
  EXPECT_EQ(fakes["subscribe_calls"], 1u);
  EXPECT_EQ(fakes["subscribed"], 0u);
  EXPECT_EQ(fakes["delivered"], 0u);
  EXPECT_EQ(fakes["activity_kinds"], 0u);
  EXPECT_EQ(fakes["flushes"], 0u);
}

TEST(CaptureShim, ActivityModeTracesRecordsAndWritesNothing) {
  TempDir dir;
  const ProgramRun run = run_program(dir, "activity", {"RACETRACK_CAPTURE_MODE=activity"});
  ASSERT_TRUE(run.exited_with(0)) << run.describe();
  EXPECT_THAT(racetrack_lines(run.err), IsEmpty());
  EXPECT_THAT(traces_in(dir), IsEmpty());
  auto fakes = fake_counts(run);
  EXPECT_EQ(fakes["subscribe_calls"], 0u);
  EXPECT_EQ(fakes["activity_kinds"], enabled_activity_kinds().size());
  // Flushed once, at exit: every record handed over, and none kept.
  EXPECT_EQ(fakes["forced_flushes"], 1u);
  EXPECT_GT(fakes["queued"], 0u);
  EXPECT_EQ(fakes["handed_over"], fakes["queued"]);
  EXPECT_EQ(fakes["walked"], 0u);
}

// ---------------------------------------------------------------------------
// Kernel code (docs/capture.md, "Kernel code").

std::vector<uint32_t> kernel_modules(const v1::Chunk& trace) {
  std::vector<uint32_t> modules;
  for (const v1::Op* op : ops_of(trace, kKernel)) modules.push_back(op->kernel().module());
  return modules;
}

std::vector<std::string> kernel_names(const v1::Chunk& trace) {
  std::vector<std::string> names;
  for (const v1::Op* op : ops_of(trace, kKernel)) names.push_back(string_of(trace, op->kernel().name()));
  return names;
}

// The images the "modules" scenario loads (shim_program.cpp).
std::string fill_image() {
  const std::vector<uint8_t> image = testing::tiny_cubin({"_Z4fillPfi", "_Z4axpyPfPKfif"}, 1);
  return {image.begin(), image.end()};
}
std::string axpy_image() {
  const std::vector<uint8_t> image = testing::tiny_cubin({"_Z4fillPfi", "_Z4axpyPfPKfif"}, 2);
  return {image.begin(), image.end()};
}

TEST(CaptureShim, EachLoadedModuleIsStoredOnceAndNamedByItsKernels) {
  TempDir dir;
  const ProgramRun run = run_program(dir, "modules");
  ASSERT_TRUE(run.exited_with(0)) << run.describe();
  EXPECT_THAT(racetrack_lines(run.err),
              ElementsAre(StartsWith("racetrack: wrote 4 ops"),
                          "racetrack: stored 2 modules of GPU code (" +
                              std::to_string(fill_image().size() + axpy_image().size()) +
                              " bytes of images, 0 left out)"));
  // One module query per launched handle, however often it is launched.
  EXPECT_EQ(fake_counts(run)["module_queries"], 2u);

  const v1::Chunk trace = load_valid(dir);
  // Three loads, two contents: axpy's image loaded again is the same module.
  ASSERT_EQ(trace.modules_size(), 2);
  EXPECT_EQ(trace.modules(0).image(), fill_image());
  EXPECT_EQ(trace.modules(0).sha256(), Sha256::hex(fill_image().data(), fill_image().size()));
  EXPECT_EQ(trace.modules(1).image(), axpy_image());
  // In the program's own memory: named by the file it is mapped from.
  EXPECT_THAT(string_of(trace, trace.modules(0).name()), ::testing::EndsWith("capture_shim_program"));
  // fill's module loaded inside the shim's own module query at its first
  // launch, axpy's inside its first driver launch; both images define both
  // kernels, so only those launches could tie them.
  EXPECT_THAT(kernel_names(trace),
              ElementsAre("_Z4fillPfi", "_Z4axpyPfPKfif", "_Z4axpyPfPKfif", "_Z4fillPfi"));
  EXPECT_THAT(kernel_modules(trace), ElementsAre(1u, 2u, 2u, 1u));
}

TEST(CaptureShim, NoCodeKeepsTheHashesOnly) {
  TempDir dir;
  const ProgramRun run = run_program(dir, "modules", {"RACETRACK_CAPTURE_CODE=0"});
  ASSERT_TRUE(run.exited_with(0)) << run.describe();
  const v1::Chunk trace = load_valid(dir);
  ASSERT_EQ(trace.modules_size(), 2);
  for (const v1::Module& m : trace.modules()) {
    EXPECT_TRUE(m.image().empty());
    EXPECT_TRUE(m.image_omitted());
  }
  EXPECT_EQ(trace.modules(1).sha256(), Sha256::hex(axpy_image().data(), axpy_image().size()));
  EXPECT_THAT(kernel_modules(trace), ElementsAre(1u, 2u, 2u, 1u));
}

TEST(CaptureShim, ImagesOverTheCapAreLeftOutWithAWarning) {
  TempDir dir;
  const std::string cap = std::to_string(fill_image().size());
  const ProgramRun run = run_program(dir, "modules", {"RACETRACK_CAPTURE_MAX_MODULE_BYTES=" + cap});
  ASSERT_TRUE(run.exited_with(0)) << run.describe();
  const std::string warning = "1 module images (" + std::to_string(axpy_image().size()) +
                              " bytes) left out, over --max-module-bytes " + cap + " (their sha256 is kept)";
  EXPECT_THAT(racetrack_lines(run.err), ::testing::Contains("racetrack: warning: " + warning));
  const v1::Chunk trace = load_valid(dir);
  ASSERT_EQ(trace.modules_size(), 2);
  EXPECT_EQ(trace.modules(0).image(), fill_image());
  EXPECT_TRUE(trace.modules(1).image_omitted());
  // The trace says so too.
  std::vector<std::string> notes;
  for (const v1::Op* op : ops_of(trace, kAnnotation))
    notes.push_back(string_of(trace, op->annotation().text()));
  EXPECT_THAT(notes, ::testing::Contains(warning));
}

}  // namespace
}  // namespace racetrack::capture
