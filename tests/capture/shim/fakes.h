// The test hooks of the fake libcupti.so.13 and libcuda.so.1 the shim test
// loads the real capture library against, and the handles and layouts the
// fakes, the fake CUDA program and the test agree on. No GPU, no CUDA.
#pragma once
#include <cupti.h>

#include <cstddef>
#include <cstdint>

extern "C" {

// --- fake CUPTI (fake_cupti.cpp) -------------------------------------------

// Hands a callback to the subscriber when it enabled (domain, cbid), as
// CUPTI does on the calling thread. Returns 1 when delivered.
int fake_cupti_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);
// Queues an activity record (a CUpti_Activity* of its kind's size); the next
// cuptiActivityFlushAll hands every queued record over in one buffer.
void fake_cupti_add_record(const void* record, size_t size);
// The next cuptiSubscribe fails as when another tool holds the subscription.
void fake_cupti_set_busy(const char* holder);
// What cuptiGetStreamIdEx answers for a stream handle.
void fake_cupti_set_stream_id(uint64_t stream, uint32_t id);
// What cuptiActivityGetNumDroppedRecords answers.
void fake_cupti_set_dropped_records(size_t dropped);
// Unforced flushes (the collector's periodic ones) then take this long...
void fake_cupti_set_flush_delay_ms(int ms);
// ... and this returns once one of them is under way.
void fake_cupti_wait_for_slow_flush(void);

struct FakeCuptiStats {
  uint32_t subscribe_calls;
  uint32_t subscribed;         // a subscriber holds the subscription now
  uint32_t callbacks_enabled;  // (domain, cbid) pairs
  uint32_t activity_kinds_enabled;
  uint32_t callbacks_delivered;
  uint32_t flushes;
  uint32_t forced_flushes;
  uint32_t buffers_completed;
  uint32_t records_queued;
  uint32_t records_delivered;
  uint32_t records_walked;    // handed out by cuptiActivityGetNextRecord
  uint32_t nvtx_initialised;  // InitializeInjectionNvtx2 got the export table
};
struct FakeCuptiStats fake_cupti_stats(void);

// --- fake driver (fake_cuda.cpp) -------------------------------------------

struct FakeCudaStats {
  uint32_t func_param_queries;    // cuFuncGetParamInfo calls
  uint32_t kernel_param_queries;  // cuKernelGetParamInfo calls
  uint32_t module_queries;        // cuFuncGetModule calls
};
struct FakeCudaStats fake_cuda_stats(void);
// Called (once) from inside cuFuncGetModule for `handle`, as lazy loading
// loads a module when a query first needs it.
void fake_cuda_set_module_query_hook(uint64_t handle, void (*hook)(void));

}  // extern "C"

namespace racetrack::capture::shim_fakes {

// The one context, as the driver hands it to callbacks, and CUPTI's id for it.
inline const CUcontext kContext = reinterpret_cast<CUcontext>(0xC0DE0);
inline constexpr uint32_t kContextId = 1;
inline constexpr uint32_t kLegacyStreamId = 7;  // CUPTI's id of the NULL stream (§3.1)

// axpy(float* x, const float* y, int n, float a), launched through the
// runtime: the driver callback sees a CUkernel (cuFuncGetParamInfo says 400).
inline constexpr uint64_t kAxpyKernel = 0xA0A000;
// fill(float* p, int n), launched through the driver directly (a CUfunction).
inline constexpr uint64_t kFillFunction = 0xF0F000;

// Their modules: fill's CUmodule directly, axpy's through its CUlibrary.
inline constexpr uint64_t kFillModule = 0x30F000;
inline constexpr uint64_t kAxpyLibrary = 0x11A000;
inline constexpr uint64_t kAxpyModule = 0x30A000;
// CUPTI's module ids of the "modules" scenario's loads.
inline constexpr uint32_t kFillCuptiModule = 1;
inline constexpr uint32_t kAxpyCuptiModule = 2;
inline constexpr uint32_t kAxpyAgainCuptiModule = 3;  // the same image, loaded again

struct Param {
  size_t offset, size;
};
inline constexpr Param kAxpyParams[] = {{0, 8}, {8, 8}, {16, 4}, {20, 4}};
inline constexpr Param kFillParams[] = {{0, 8}, {8, 4}};

// The programs' memory: two cudaMalloc buffers and a cudaMallocHost one.
inline constexpr uint64_t kActivation = 0x7f0000000000;
inline constexpr uint64_t kWeights = 0x7f0000100000;
inline constexpr uint64_t kPinned = 0x7e0000000000;
inline constexpr uint64_t kBufferBytes = 1 << 20;
inline constexpr uint64_t kCopyBytes = 4096;  // the offloaded slice, and what axpy writes

// A stream's handle and CUPTI's id for it.
struct FakeStream {
  uint64_t handle;
  uint32_t id;
};
inline constexpr FakeStream kCompute{0x5001, 13};
inline constexpr FakeStream kOffload{0x5002, 14};
// The "threads" scenario: thread i creates stream kThreadStreamBase + i.
inline constexpr FakeStream kThreadStreamBase{0x6000, 20};
inline constexpr int kThreads = 4;  // in two waves, so the second reuses the first's logs
inline constexpr int kLaunchesPerThread = 20;

inline constexpr uint64_t kEvent = 0xE0E0;
inline constexpr uint32_t kEventId = 1;
inline constexpr uint64_t kSyncId = 1;

inline constexpr int kAxpyN = 1024;
inline constexpr float kAxpyA = 3.0f;
inline constexpr int kFillN = 256;
// CUPTI's dropped-record count in the "threads" and "sigterm" scenarios.
inline constexpr size_t kDropped = 3;

}  // namespace racetrack::capture::shim_fakes
