// The callback decoder fed CUpti_CallbackData built on the stack around real
// CUDA 13.0 parameter structs, with a fake DriverQueries: no GPU needed.
#include "callback_decoder.h"

#include "copy_shape_words.h"

// cupti.h leaves the NVTX parameter structs out.
#include <generated_nvtx_meta.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace racetrack::capture {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const CUcontext kContext = reinterpret_cast<CUcontext>(0xC0DE0);
constexpr uint32_t kContextId = 5;
constexpr uint32_t kStreamId = 13;

template <class Handle>
Handle handle(uint64_t value) {
  return reinterpret_cast<Handle>(value);
}

class FakeQueries : public DriverQueries {
 public:
  struct StreamQuery {
    CUcontext context;
    uint64_t stream;
    bool per_thread;
  };

  const ParamLayout* param_layout(uint64_t function) override {
    layout_queries.push_back(function);
    const auto it = layouts.find(function);
    return it == layouts.end() ? nullptr : &it->second;
  }
  uint32_t stream_id(CUcontext context, uint64_t stream, bool per_thread) override {
    stream_queries.push_back({context, stream, per_thread});
    return kStreamId;
  }
  uint32_t context_id(CUcontext context) override { return context == kContext ? kContextId : 99; }
  uint64_t graph_exec_id(uint64_t graph_exec) override { return graph_exec + 1000; }
  uint64_t graph_node_id(uint64_t graph_node) override { return graph_node + 2000; }
  uint64_t function_module(uint64_t function) override {
    module_queries.push_back(function);
    return function == 0 ? 0 : function + 0x100000;
  }

  std::map<uint64_t, ParamLayout> layouts;
  std::vector<uint64_t> layout_queries;
  std::vector<StreamQuery> stream_queries;
  std::vector<uint64_t> module_queries;
};

// axpy(float*, const float*, int, float) as the driver lays it out (§4.3).
const ParamLayout kAxpyLayout{{{0, 8}, {8, 8}, {16, 4}, {20, 4}}};

class CallbackDecoderTest : public ::testing::Test {
 protected:
  bool enter(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params,
             CUcontext context = kContext) {
    CUpti_CallbackData data{};
    data.callbackSite = CUPTI_API_ENTER;
    data.functionParams = params;
    data.context = context;
    data.correlationId = 77;
    return decode_api_enter(domain, cbid, data, queries_, event_, payload_);
  }
  bool enter_runtime(CUpti_CallbackId cbid, const void* params, CUcontext context = kContext) {
    return enter(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, params, context);
  }
  bool enter_driver(CUpti_CallbackId cbid, const void* params, CUcontext context = kContext) {
    return enter(CUPTI_CB_DOMAIN_DRIVER_API, cbid, params, context);
  }

  // `result` is stored as cudaError_t or CUresult, as CUPTI does per domain.
  void exit(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params, int result,
            CUcontext context = kContext) {
    cudaError_t runtime_result = static_cast<cudaError_t>(result);
    CUresult driver_result = static_cast<CUresult>(result);
    CUpti_CallbackData data{};
    data.callbackSite = CUPTI_API_EXIT;
    data.functionParams = params;
    data.functionReturnValue = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? static_cast<void*>(&runtime_result)
                                                                     : static_cast<void*>(&driver_result);
    data.context = context;
    data.correlationId = 77;
    decode_api_exit(domain, cbid, data, queries_, event_);
  }
  void exit_runtime(CUpti_CallbackId cbid, const void* params, int result = 0, CUcontext context = kContext) {
    exit(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, params, result, context);
  }
  void exit_driver(CUpti_CallbackId cbid, const void* params, int result = 0, CUcontext context = kContext) {
    exit(CUPTI_CB_DOMAIN_DRIVER_API, cbid, params, result, context);
  }

  std::vector<uint64_t> words() const {
    return {storage_.begin() + event_.payload_offset,
            storage_.begin() + event_.payload_offset + event_.payload_words};
  }
  std::string text() const {
    return {reinterpret_cast<const char*>(storage_.data() + event_.payload_offset), event_.payload_bytes};
  }

  FakeQueries queries_;
  ApiEvent event_;
  std::array<uint64_t, 64> storage_{};
  Payload payload_{storage_.data(), static_cast<uint32_t>(storage_.size()), 0};
};

// ---------------------------------------------------------------------------
// Launches and argument words.

struct AxpyArgs {
  float* x = reinterpret_cast<float*>(0x7f0000001000);
  const float* y = reinterpret_cast<const float*>(0x7f0000200000);
  int n = 1000;
  float a = 3.0f;
  void* params[4] = {&x, &y, &n, &a};

  uint64_t third_word() const {
    return uint64_t{static_cast<uint32_t>(n)} | uint64_t{std::bit_cast<uint32_t>(a)} << 32;
  }
};

TEST_F(CallbackDecoderTest, LaunchKernelSplitsAxpyArgumentsIntoWords) {
  queries_.layouts[0xF00] = kAxpyLayout;
  AxpyArgs args;
  const cuLaunchKernel_params params{.f = handle<CUfunction>(0xF00),
                                     .gridDimX = 4,
                                     .gridDimY = 2,
                                     .gridDimZ = 1,
                                     .blockDimX = 256,
                                     .blockDimY = 1,
                                     .blockDimZ = 1,
                                     .sharedMemBytes = 128,
                                     .hStream = handle<CUstream>(0x5000),
                                     .kernelParams = args.params,
                                     .extra = nullptr};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &params));

  EXPECT_EQ(event_.kind, ApiKind::kLaunch);
  EXPECT_EQ(event_.domain, ApiDomain::kDriver);
  EXPECT_EQ(event_.cbid, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
  EXPECT_EQ(event_.correlation, 77u);
  EXPECT_EQ(event_.flags, 0);
  EXPECT_EQ(event_.handle, 0xF00u);
  EXPECT_THAT(event_.grid, ElementsAre(4u, 2u, 1u));
  EXPECT_THAT(event_.block, ElementsAre(256u, 1u, 1u));
  EXPECT_EQ(event_.shared_mem, 128u);
  EXPECT_EQ(event_.stream, 0x5000u);
  EXPECT_EQ(event_.payload_offset, 0u);
  EXPECT_THAT(words(), ElementsAre(0x7f0000001000u, 0x7f0000200000u, args.third_word()));
  EXPECT_EQ(args.third_word(), 0x40400000'000003E8u);  // 3.0f and 1000 (§4.3)
  EXPECT_EQ(payload_.used, 3u);
  EXPECT_THAT(queries_.layout_queries, ElementsAre(0xF00u));
  // The function's module, asked of the driver (the shim caches it).
  EXPECT_EQ(event_.module, 0xF00u + 0x100000);
  EXPECT_THAT(queries_.module_queries, ElementsAre(0xF00u));
}

TEST_F(CallbackDecoderTest, SecondLaunchAppendsAfterTheFirst) {
  queries_.layouts[0xF00] = kAxpyLayout;
  AxpyArgs args;
  const cuLaunchKernel_params params{
      handle<CUfunction>(0xF00), 1, 1, 1, 1, 1, 1, 0, nullptr, args.params, nullptr};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &params));
  args.n = 7;
  event_ = {};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &params));
  EXPECT_EQ(event_.payload_offset, 3u);
  EXPECT_EQ(event_.payload_words, 3u);
  EXPECT_EQ(payload_.used, 6u);
  EXPECT_EQ(words()[2] & 0xFFFFFFFFu, 7u);
}

// A by-value struct parameter, as ATen and cuBLAS pass them (§4.3).
struct Extent {
  uint64_t base;
  uint32_t count;
  uint16_t tag;
};

TEST_F(CallbackDecoderTest, LaunchKernelExReadsConfigAndStructParameter) {
  // (int k, Extent e): k at 0, e at 8 (its 8-byte alignment), 24 bytes in all.
  queries_.layouts[0xABC0] = ParamLayout{{{0, 4}, {8, sizeof(Extent)}}};
  int k = -2;
  Extent extent{0x7f0000400000, 96, 0xBEEF};
  void* args[] = {&k, &extent};
  CUlaunchConfig config{};
  config.gridDimX = 8;
  config.gridDimY = 3;
  config.gridDimZ = 2;
  config.blockDimX = 128;
  config.blockDimY = 2;
  config.blockDimZ = 1;
  config.sharedMemBytes = 4096;
  config.hStream = CU_STREAM_PER_THREAD;
  const cuLaunchKernelEx_params params{&config, handle<CUfunction>(0xABC0), args, nullptr};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &params));

  EXPECT_EQ(event_.kind, ApiKind::kLaunch);
  EXPECT_EQ(event_.handle, 0xABC0u);
  EXPECT_THAT(event_.grid, ElementsAre(8u, 3u, 2u));
  EXPECT_THAT(event_.block, ElementsAre(128u, 2u, 1u));
  EXPECT_EQ(event_.shared_mem, 4096u);
  EXPECT_EQ(event_.stream, 0x2u);
  EXPECT_EQ(event_.flags, kFlagPerThreadStream);  // cudaStreamPerThread handle
  EXPECT_THAT(words(), ElementsAre(0xFFFFFFFEu, 0x7f0000400000u, 96u | uint64_t{0xBEEF} << 32));
}

TEST_F(CallbackDecoderTest, LaunchKernelExReadsProgrammaticStreamSerialization) {
  queries_.layouts[0xABC0] = ParamLayout{{{0, 4}}};
  int k = 1;
  void* args[] = {&k};
  CUlaunchAttribute attrs[3]{};
  attrs[0].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
  attrs[0].value.cooperative = 1;
  attrs[1].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attrs[1].value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config{};
  config.gridDimX = config.blockDimX = 1;
  config.hStream = handle<CUstream>(0x5000);
  config.attrs = attrs;
  config.numAttrs = 2;
  const cuLaunchKernelEx_params params{&config, handle<CUfunction>(0xABC0), args, nullptr};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &params));
  EXPECT_EQ(event_.flags, kFlagProgrammatic);

  // Set to 0, or listed past numAttrs: an ordinary launch.
  attrs[1].value.programmaticStreamSerializationAllowed = 0;
  attrs[2].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attrs[2].value.programmaticStreamSerializationAllowed = 1;
  event_ = {};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &params));
  EXPECT_EQ(event_.flags, 0u);
  // The last setting wins.
  config.numAttrs = 3;
  event_ = {};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &params));
  EXPECT_EQ(event_.flags, kFlagProgrammatic);
  // No attribute list: nothing to read.
  config.attrs = nullptr;
  event_ = {};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &params));
  EXPECT_EQ(event_.flags, 0u);
}

TEST_F(CallbackDecoderTest, LaunchKernelExReadsProgrammaticEvent) {
  queries_.layouts[0xABC0] = ParamLayout{{{0, 4}}};
  int k = 1;
  void* args[] = {&k};
  CUlaunchAttribute attrs[3]{};
  attrs[0].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT;
  attrs[0].value.programmaticEvent.event = handle<CUevent>(0xE700);
  attrs[0].value.programmaticEvent.flags = 0;
  attrs[0].value.programmaticEvent.triggerAtBlockStart = 0;
  attrs[1].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attrs[1].value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config{};
  config.gridDimX = config.blockDimX = 1;
  config.hStream = handle<CUstream>(0x5000);
  config.attrs = attrs;
  config.numAttrs = 1;
  const cuLaunchKernelEx_params params{&config, handle<CUfunction>(0xABC0), args, nullptr};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &params));
  EXPECT_EQ(event_.event, 0xE700u);
  EXPECT_EQ(event_.flags, 0u);  // triggers once every block triggered or exited

  // Both attributes, each block triggering at its start.
  attrs[0].value.programmaticEvent.triggerAtBlockStart = 1;
  config.numAttrs = 2;
  event_ = {};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &params));
  EXPECT_EQ(event_.event, 0xE700u);
  EXPECT_EQ(event_.flags, kFlagProgrammatic | kFlagProgrammaticEventAtBlockStart);

  // The last setting wins: a later entry names another event, without the block-start trigger.
  attrs[2].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT;
  attrs[2].value.programmaticEvent.event = handle<CUevent>(0xE800);
  config.numAttrs = 3;
  event_ = {};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &params));
  EXPECT_EQ(event_.event, 0xE800u);
  EXPECT_EQ(event_.flags, kFlagProgrammatic);

  // Listed past numAttrs: not read.
  config.numAttrs = 0;
  event_ = {};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &params));
  EXPECT_EQ(event_.event, 0u);
  EXPECT_EQ(event_.flags, 0u);
}

TEST_F(CallbackDecoderTest, LaunchWithoutConfigKeepsHandleAndWords) {
  queries_.layouts[0xABC0] = ParamLayout{{{0, 4}}};
  int k = 9;
  void* args[] = {&k};
  const cuLaunchKernelEx_params params{nullptr, handle<CUfunction>(0xABC0), args, nullptr};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &params));
  EXPECT_EQ(event_.handle, 0xABC0u);
  EXPECT_THAT(event_.grid, ElementsAre(0u, 0u, 0u));
  EXPECT_THAT(words(), ElementsAre(9u));
}

TEST_F(CallbackDecoderTest, ExtraBufferIsSlicedByParameterOffsets) {
  // (int, double*): the packed buffer's padding bytes hold junk, which the
  // words must not carry.
  queries_.layouts[0xF00] = ParamLayout{{{0, 4}, {8, 8}}};
  std::array<unsigned char, 16> buffer;
  buffer.fill(0xAA);
  const int first = 41;
  const uint64_t second = 0x7f0000003000;
  std::memcpy(buffer.data(), &first, sizeof first);
  std::memcpy(buffer.data() + 8, &second, sizeof second);
  size_t buffer_size = buffer.size();
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer.data(), CU_LAUNCH_PARAM_BUFFER_SIZE, &buffer_size,
                   CU_LAUNCH_PARAM_END};
  const cuLaunchKernel_params params{
      handle<CUfunction>(0xF00), 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, extra};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &params));
  EXPECT_THAT(words(), ElementsAre(41u, second));
}

TEST_F(CallbackDecoderTest, ExtraBufferSmallerThanLayoutGivesNoWords) {
  queries_.layouts[0xF00] = ParamLayout{{{0, 4}, {8, 8}}};
  std::array<unsigned char, 16> buffer{};
  size_t buffer_size = 12;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer.data(), CU_LAUNCH_PARAM_BUFFER_SIZE, &buffer_size,
                   CU_LAUNCH_PARAM_END};
  const cuLaunchKernel_params params{
      handle<CUfunction>(0xF00), 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, extra};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &params));
  EXPECT_EQ(event_.payload_words, 0u);
  EXPECT_EQ(payload_.used, 0u);
}

TEST_F(CallbackDecoderTest, UnknownLayoutRecordsTheLaunchWithoutWords) {
  AxpyArgs args;
  const cuLaunchKernel_params params{
      handle<CUfunction>(0xDEAD), 2, 1, 1, 64, 1, 1, 0, nullptr, args.params, nullptr};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &params));
  EXPECT_EQ(event_.kind, ApiKind::kLaunch);
  EXPECT_EQ(event_.grid[0], 2u);
  EXPECT_EQ(event_.payload_words, 0u);
  EXPECT_EQ(payload_.used, 0u);
  EXPECT_THAT(queries_.layout_queries, ElementsAre(0xDEADu));
}

TEST_F(CallbackDecoderTest, KernelWithoutParametersTakesNoWords) {
  queries_.layouts[0xF00] = ParamLayout{};
  const cuLaunchKernel_params params{
      handle<CUfunction>(0xF00), 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &params));
  EXPECT_EQ(event_.kind, ApiKind::kLaunch);
  EXPECT_EQ(event_.payload_words, 0u);
  EXPECT_EQ(payload_.used, 0u);
}

TEST_F(CallbackDecoderTest, PayloadWithoutRoomGetsNoPartialWords) {
  queries_.layouts[0xF00] = kAxpyLayout;
  AxpyArgs args;
  payload_.used = 62;  // two words left, axpy needs three
  storage_[62] = 0x1111;
  const cuLaunchKernel_params params{
      handle<CUfunction>(0xF00), 1, 1, 1, 1, 1, 1, 0, nullptr, args.params, nullptr};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &params));
  EXPECT_EQ(event_.kind, ApiKind::kLaunch);
  EXPECT_EQ(event_.payload_words, 0u);
  EXPECT_EQ(payload_.used, 62u);
  EXPECT_EQ(storage_[62], 0x1111u);  // untouched
}

TEST_F(CallbackDecoderTest, CooperativeLaunchPtszIsPerThread) {
  queries_.layouts[0xF00] = kAxpyLayout;
  AxpyArgs args;
  const cuLaunchCooperativeKernel_ptsz_params params{
      handle<CUfunction>(0xF00), 16, 1, 1, 32, 1, 1, 0, nullptr, args.params};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz, &params));
  EXPECT_EQ(event_.kind, ApiKind::kLaunch);
  EXPECT_EQ(event_.flags, kFlagPerThreadStream);
  EXPECT_EQ(event_.stream, 0u);
  EXPECT_EQ(event_.payload_words, 3u);

  exit_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz, &params);
  ASSERT_EQ(queries_.stream_queries.size(), 1u);
  EXPECT_EQ(queries_.stream_queries[0].stream, 0u);
  EXPECT_TRUE(queries_.stream_queries[0].per_thread);
  EXPECT_EQ(event_.stream_id, kStreamId);
}

TEST_F(CallbackDecoderTest, RuntimeLaunchesAreNotRecorded) {
  const std::array<unsigned char, 64> zeros{};
  EXPECT_FALSE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, zeros.data()));
  EXPECT_FALSE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, zeros.data()));
  EXPECT_EQ(event_.kind, ApiKind::kUnknown);
}

// ---------------------------------------------------------------------------
// Copies and memsets.

TEST_F(CallbackDecoderTest, RuntimeMemcpyAsync) {
  const cudaMemcpyAsync_v3020_params params{handle<void*>(0x1000), handle<const void*>(0x7f0000001000), 4096,
                                            cudaMemcpyDeviceToHost, handle<cudaStream_t>(0x5000)};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, &params));
  EXPECT_EQ(event_.kind, ApiKind::kMemcpy);
  EXPECT_EQ(event_.domain, ApiDomain::kRuntime);
  EXPECT_EQ(event_.flags, kFlagAsync);
  EXPECT_EQ(event_.dst, 0x1000u);
  EXPECT_EQ(event_.src, 0x7f0000001000u);
  EXPECT_EQ(event_.bytes, 4096u);
  EXPECT_EQ(event_.value, 2u);
  EXPECT_EQ(event_.stream, 0x5000u);
  EXPECT_EQ(event_.stream_id, kNoId);  // resolved at EXIT

  exit_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, &params);
  EXPECT_EQ(event_.result, 0);
  EXPECT_EQ(event_.context_id, kContextId);
  EXPECT_EQ(event_.stream_id, kStreamId);
  ASSERT_EQ(queries_.stream_queries.size(), 1u);
  EXPECT_EQ(queries_.stream_queries[0].context, kContext);
  EXPECT_EQ(queries_.stream_queries[0].stream, 0x5000u);
  EXPECT_FALSE(queries_.stream_queries[0].per_thread);
}

// Peer copies are recorded as device-to-device copies; their activity
// record (PTOP) makes them COPY_P2P with both devices (docs/ordering-rules.md 6f).
TEST_F(CallbackDecoderTest, PeerCopiesAreRecorded) {
  const cudaMemcpyPeer_v4000_params blocking{handle<void*>(0x2000), 1, handle<const void*>(0x3000), 0, 512};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000, &blocking));
  EXPECT_EQ(event_.kind, ApiKind::kMemcpy);
  EXPECT_EQ(event_.flags, 0);
  EXPECT_EQ(event_.dst, 0x2000u);
  EXPECT_EQ(event_.src, 0x3000u);
  EXPECT_EQ(event_.bytes, 512u);
  EXPECT_EQ(event_.value, 3u);  // cudaMemcpyDeviceToDevice
  EXPECT_EQ(event_.stream, 0u);

  const cuMemcpyPeerAsync_params async{0x4000, nullptr, 0x5000, nullptr, 256, handle<CUstream>(0x6000)};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync, &async));
  EXPECT_EQ(event_.kind, ApiKind::kMemcpy);
  EXPECT_EQ(event_.flags, kFlagAsync);
  EXPECT_EQ(event_.dst, 0x4000u);
  EXPECT_EQ(event_.src, 0x5000u);
  EXPECT_EQ(event_.bytes, 256u);
  EXPECT_EQ(event_.stream, 0x6000u);
}

TEST_F(CallbackDecoderTest, RuntimeMemcpyPtszAndSyncPtdsArePerThread) {
  const cudaMemcpyAsync_ptsz_v7000_params async_params{handle<void*>(0x1000), handle<const void*>(0x2000), 8,
                                                       cudaMemcpyDeviceToDevice, nullptr};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000, &async_params));
  EXPECT_EQ(event_.flags, kFlagAsync | kFlagPerThreadStream);
  EXPECT_EQ(event_.value, 3u);

  event_ = {};
  const cudaMemcpy_ptds_v7000_params sync_params{handle<void*>(0x1000), handle<const void*>(0x2000), 8,
                                                 cudaMemcpyHostToDevice};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000, &sync_params));
  EXPECT_EQ(event_.kind, ApiKind::kMemcpy);
  EXPECT_EQ(event_.flags, kFlagPerThreadStream);
  EXPECT_EQ(event_.stream, 0u);
  EXPECT_EQ(event_.value, 1u);
}

TEST_F(CallbackDecoderTest, RuntimeSyncMemcpyIsOnTheLegacyStream) {
  const cudaMemcpy_v3020_params params{handle<void*>(0x1000), handle<const void*>(0x2000), 64,
                                       cudaMemcpyDefault};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, &params));
  EXPECT_EQ(event_.flags, 0);
  EXPECT_EQ(event_.stream, 0u);
  EXPECT_EQ(event_.value, 4u);
  exit_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, &params);
  ASSERT_EQ(queries_.stream_queries.size(), 1u);
  EXPECT_EQ(queries_.stream_queries[0].stream, 0u);
  EXPECT_FALSE(queries_.stream_queries[0].per_thread);
}

TEST_F(CallbackDecoderTest, DriverMemcpyDtoHAsync) {
  const cuMemcpyDtoHAsync_v2_params params{handle<void*>(0x7f0000005000), 0x302000000, 1728,
                                           handle<CUstream>(0x6000)};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2, &params));
  EXPECT_EQ(event_.kind, ApiKind::kMemcpy);
  EXPECT_EQ(event_.flags, kFlagAsync);
  EXPECT_EQ(event_.dst, 0x7f0000005000u);
  EXPECT_EQ(event_.src, 0x302000000u);
  EXPECT_EQ(event_.bytes, 1728u);
  EXPECT_EQ(event_.value, 2u);
  EXPECT_EQ(event_.stream, 0x6000u);
}

TEST_F(CallbackDecoderTest, DriverCopiesUseCudaMemcpyKindNumbers) {
  const cuMemcpyHtoD_v2_params htod{0x302000000, handle<const void*>(0x7f0000005000), 16};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, &htod));
  EXPECT_EQ(event_.value, 1u);
  EXPECT_EQ(event_.dst, 0x302000000u);
  EXPECT_EQ(event_.flags, 0);

  event_ = {};
  const cuMemcpyDtoDAsync_v2_ptsz_params dtod{0x302000000, 0x302001000, 32, nullptr};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz, &dtod));
  EXPECT_EQ(event_.value, 3u);
  EXPECT_EQ(event_.flags, kFlagAsync | kFlagPerThreadStream);

  event_ = {};
  const cuMemcpyAsync_params generic{0x302000000, 0x7f0000005000, 48, handle<CUstream>(0x6000)};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync, &generic));
  EXPECT_EQ(event_.value, 4u);
  EXPECT_EQ(event_.bytes, 48u);
  EXPECT_EQ(event_.stream, 0x6000u);
}

TEST_F(CallbackDecoderTest, RuntimeMemsetAsync) {
  const cudaMemsetAsync_v3020_params params{handle<void*>(0x302000000), 0xAB, 1000,
                                            handle<cudaStream_t>(0x5000)};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, &params));
  EXPECT_EQ(event_.kind, ApiKind::kMemset);
  EXPECT_EQ(event_.flags, kFlagAsync);
  EXPECT_EQ(event_.dst, 0x302000000u);
  EXPECT_EQ(event_.value, 0xABu);
  EXPECT_EQ(event_.bytes, 1000u);
  EXPECT_EQ(event_.element_size, 1u);
  EXPECT_EQ(event_.stream, 0x5000u);
}

TEST_F(CallbackDecoderTest, DriverMemsetCountsBytesFromElements) {
  const cuMemsetD32Async_params d32{0x302000000, 0xDEADBEEF, 100, handle<CUstream>(0x6000)};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async, &d32));
  EXPECT_EQ(event_.kind, ApiKind::kMemset);
  EXPECT_EQ(event_.flags, kFlagAsync);
  EXPECT_EQ(event_.value, 0xDEADBEEFu);
  EXPECT_EQ(event_.bytes, 400u);
  EXPECT_EQ(event_.element_size, 4u);
  EXPECT_EQ(event_.stream, 0x6000u);

  event_ = {};
  const cuMemsetD16_v2_params d16{0x302000000, 0x1234, 10};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2, &d16));
  EXPECT_EQ(event_.bytes, 20u);
  EXPECT_EQ(event_.element_size, 2u);
  EXPECT_EQ(event_.value, 0x1234u);
  EXPECT_EQ(event_.flags, 0);
}

// ---------------------------------------------------------------------------
// Events, streams and their ids.

TEST_F(CallbackDecoderTest, EventRecordAndStreamWait) {
  const cudaEventRecord_v3020_params record{handle<cudaEvent_t>(0xE1), handle<cudaStream_t>(0x5000)};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, &record));
  EXPECT_EQ(event_.kind, ApiKind::kEventRecord);
  EXPECT_EQ(event_.event, 0xE1u);
  EXPECT_EQ(event_.stream, 0x5000u);

  event_ = {};
  const cudaStreamWaitEvent_v3020_params wait{handle<cudaStream_t>(0x6000), handle<cudaEvent_t>(0xE1), 0};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, &wait));
  EXPECT_EQ(event_.kind, ApiKind::kStreamWait);
  EXPECT_EQ(event_.stream, 0x6000u);
  EXPECT_EQ(event_.event, 0xE1u);
  exit_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, &wait);
  ASSERT_EQ(queries_.stream_queries.size(), 1u);
  EXPECT_EQ(queries_.stream_queries[0].stream, 0x6000u);  // the waiting stream
}

TEST_F(CallbackDecoderTest, EventRecordOnPerThreadStreamHandle) {
  const cuEventRecordWithFlags_params params{handle<CUevent>(0xE2), CU_STREAM_PER_THREAD, 1};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags, &params));
  EXPECT_EQ(event_.kind, ApiKind::kEventRecord);
  EXPECT_EQ(event_.flags, kFlagPerThreadStream);
  EXPECT_EQ(event_.value, 1u);
  exit_driver(CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags, &params);
  ASSERT_EQ(queries_.stream_queries.size(), 1u);
  EXPECT_TRUE(queries_.stream_queries[0].per_thread);
}

TEST_F(CallbackDecoderTest, EventQueryNotReadyIsKeptAsResult) {
  const cudaEventQuery_v3020_params params{handle<cudaEvent_t>(0xE1)};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020, &params));
  EXPECT_EQ(event_.kind, ApiKind::kEventQuery);
  EXPECT_EQ(event_.event, 0xE1u);
  exit_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020, &params, cudaErrorNotReady);
  EXPECT_EQ(event_.result, 600);
  EXPECT_EQ(event_.context_id, kContextId);
  EXPECT_THAT(queries_.stream_queries, IsEmpty());  // an event query names no stream
}

TEST_F(CallbackDecoderTest, StreamQueryNotReadyStillResolvesTheStream) {
  const cuStreamQuery_params params{handle<CUstream>(0x6000)};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuStreamQuery, &params));
  exit_driver(CUPTI_DRIVER_TRACE_CBID_cuStreamQuery, &params, CUDA_ERROR_NOT_READY);
  EXPECT_EQ(event_.kind, ApiKind::kStreamQuery);
  EXPECT_EQ(event_.result, CUDA_ERROR_NOT_READY);
  EXPECT_EQ(event_.stream_id, kStreamId);
}

TEST_F(CallbackDecoderTest, StreamCreateWithPriorityReadsTheNewHandleAtExit) {
  cudaStream_t created = nullptr;
  const cudaStreamCreateWithPriority_v5050_params params{&created, cudaStreamNonBlocking, -3};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050, &params));
  EXPECT_EQ(event_.kind, ApiKind::kStreamCreate);
  EXPECT_EQ(event_.value, 1u);
  EXPECT_EQ(event_.priority, -3);
  EXPECT_EQ(event_.stream, 0u);

  created = handle<cudaStream_t>(0x7000);  // what the runtime writes
  exit_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050, &params);
  EXPECT_EQ(event_.stream, 0x7000u);
  EXPECT_EQ(event_.stream_id, kStreamId);
  ASSERT_EQ(queries_.stream_queries.size(), 1u);
  EXPECT_EQ(queries_.stream_queries[0].stream, 0x7000u);
}

TEST_F(CallbackDecoderTest, StreamDestroyResolvesItsIdAtEnter) {
  const cuStreamDestroy_v2_params params{handle<CUstream>(0x7000)};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2, &params));
  EXPECT_EQ(event_.kind, ApiKind::kStreamDestroy);
  EXPECT_EQ(event_.stream_id, kStreamId);
  exit_driver(CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2, &params);
  EXPECT_EQ(queries_.stream_queries.size(), 1u);  // not asked again about a dead handle
}

TEST_F(CallbackDecoderTest, NullContextAtEnterIsResolvedAtExit) {
  const cudaMemsetAsync_v3020_params params{handle<void*>(0x302000000), 0, 64, handle<cudaStream_t>(0x5000)};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, &params, nullptr));
  EXPECT_EQ(event_.kind, ApiKind::kMemset);
  EXPECT_EQ(event_.context_id, kNoId);
  EXPECT_EQ(event_.stream_id, kNoId);
  EXPECT_THAT(queries_.stream_queries, IsEmpty());

  exit_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, &params, 0, kContext);
  EXPECT_EQ(event_.context_id, kContextId);
  EXPECT_EQ(event_.stream_id, kStreamId);
}

TEST_F(CallbackDecoderTest, NullContextAtExitLeavesIdsUnknown) {
  const cudaStreamSynchronize_v3020_params params{handle<cudaStream_t>(0x5000)};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, &params, nullptr));
  exit_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, &params, 0, nullptr);
  EXPECT_EQ(event_.kind, ApiKind::kStreamSync);
  EXPECT_EQ(event_.context_id, kNoId);
  EXPECT_EQ(event_.stream_id, kNoId);
  EXPECT_THAT(queries_.stream_queries, IsEmpty());
}

// ---------------------------------------------------------------------------
// Memory.

TEST_F(CallbackDecoderTest, MallocReadsTheAddressAtExit) {
  void* allocated = nullptr;
  const cudaMalloc_v3020_params params{&allocated, 2 << 20};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &params));
  EXPECT_EQ(event_.kind, ApiKind::kMalloc);
  EXPECT_EQ(event_.bytes, 2u << 20);
  EXPECT_EQ(event_.dst, 0u);

  allocated = handle<void*>(0x7fa713e00000);
  exit_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &params);
  EXPECT_EQ(event_.dst, 0x7fa713e00000u);
  EXPECT_EQ(event_.result, 0);
  EXPECT_THAT(queries_.stream_queries, IsEmpty());  // a plain malloc names no stream
}

TEST_F(CallbackDecoderTest, FailedMallocKeepsTheResultAndNoAddress) {
  void* allocated = handle<void*>(0xBAD);  // junk left in the out-parameter
  const cudaMalloc_v3020_params params{&allocated, 1ull << 40};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &params));
  exit_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &params, cudaErrorMemoryAllocation);
  EXPECT_EQ(event_.result, 2);
  EXPECT_EQ(event_.dst, 0u);
  EXPECT_EQ(event_.context_id, kContextId);
}

TEST_F(CallbackDecoderTest, FailedDriverCallKeepsCuResultAndSkipsTheStream) {
  CUdeviceptr allocated = 0xBAD;
  const cuMemAllocAsync_params params{&allocated, 4096, handle<CUstream>(0x6000)};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync, &params));
  exit_driver(CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync, &params, CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(event_.result, CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(event_.dst, 0u);
  EXPECT_EQ(event_.stream_id, kNoId);
  EXPECT_THAT(queries_.stream_queries, IsEmpty());
}

TEST_F(CallbackDecoderTest, MallocAsyncIsStreamOrdered) {
  void* allocated = nullptr;
  const cudaMallocAsync_v11020_params params{&allocated, 1728, handle<cudaStream_t>(0x5000)};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020, &params));
  EXPECT_EQ(event_.kind, ApiKind::kMallocAsync);
  EXPECT_EQ(event_.flags, kFlagAsync);
  EXPECT_EQ(event_.bytes, 1728u);
  EXPECT_EQ(event_.stream, 0x5000u);
  allocated = handle<void*>(0x302000000);
  exit_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020, &params);
  EXPECT_EQ(event_.dst, 0x302000000u);
  EXPECT_EQ(event_.stream_id, kStreamId);
}

TEST_F(CallbackDecoderTest, DriverAllocationsReadTheirAddresses) {
  CUdeviceptr device = 0;
  const cuMemAlloc_v2_params alloc{&device, 512};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, &alloc));
  device = 0x302000000;
  exit_driver(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, &alloc);
  EXPECT_EQ(event_.kind, ApiKind::kMalloc);
  EXPECT_EQ(event_.dst, 0x302000000u);
  EXPECT_EQ(event_.bytes, 512u);

  event_ = {};
  void* host = nullptr;
  const cuMemHostAlloc_params host_alloc{&host, 256, CU_MEMHOSTALLOC_PORTABLE};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc, &host_alloc));
  host = handle<void*>(0x7f0000900000);
  exit_driver(CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc, &host_alloc);
  EXPECT_EQ(event_.kind, ApiKind::kHostAlloc);
  EXPECT_EQ(event_.dst, 0x7f0000900000u);
  EXPECT_EQ(event_.value, CU_MEMHOSTALLOC_PORTABLE);
}

TEST_F(CallbackDecoderTest, VmmMap) {
  const cuMemMap_params params{0x7f4000000000, 2 << 20, 0, 0x99, 0};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuMemMap, &params));
  EXPECT_EQ(event_.kind, ApiKind::kVmmMap);
  EXPECT_EQ(event_.dst, 0x7f4000000000u);
  EXPECT_EQ(event_.bytes, 2u << 20);
  EXPECT_EQ(event_.handle, 0x99u);
}

// ---------------------------------------------------------------------------
// Graphs.

TEST_F(CallbackDecoderTest, GraphLaunchRecordsTheExecId) {
  const cudaGraphLaunch_v10000_params params{handle<cudaGraphExec_t>(0x8000), handle<cudaStream_t>(0x5000)};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, &params));
  EXPECT_EQ(event_.kind, ApiKind::kGraphLaunch);
  EXPECT_EQ(event_.handle, 0x8000u);
  EXPECT_EQ(event_.value, 0x8000u + 1000);
  EXPECT_EQ(event_.stream, 0x5000u);
}

TEST_F(CallbackDecoderTest, StreamEndCaptureReadsTheGraph) {
  CUgraph graph = nullptr;
  const cuStreamEndCapture_params params{handle<CUstream>(0x6000), &graph};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, &params));
  EXPECT_EQ(event_.kind, ApiKind::kCaptureEnd);
  graph = handle<CUgraph>(0x9000);
  exit_driver(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, &params);
  EXPECT_EQ(event_.handle, 0x9000u);
}

class ResourceTest : public CallbackDecoderTest {
 protected:
  bool decode(CUpti_CallbackId cbid) {
    const CUpti_ResourceData data{kContext, {nullptr}, &graph_};
    return decode_resource(cbid, data, queries_, event_);
  }
  CUpti_GraphData graph_{};
};

TEST_F(ResourceTest, GraphNodeCreated) {
  graph_.node = handle<CUgraphNode>(0x10);
  graph_.nodeType = CU_GRAPH_NODE_TYPE_MEMCPY;
  ASSERT_TRUE(decode(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED));
  EXPECT_EQ(event_.kind, ApiKind::kGraphNodeCreated);
  EXPECT_EQ(event_.domain, ApiDomain::kResource);
  EXPECT_EQ(event_.handle, 0x10u + 2000);
  EXPECT_EQ(event_.value, static_cast<uint32_t>(CU_GRAPH_NODE_TYPE_MEMCPY));
}

TEST_F(ResourceTest, GraphNodeClonedIntoAnExec) {
  graph_.node = handle<CUgraphNode>(0x20);
  graph_.originalNode = handle<CUgraphNode>(0x10);
  graph_.graphExec = handle<CUgraphExec>(0x8000);
  ASSERT_TRUE(decode(CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED));
  EXPECT_EQ(event_.kind, ApiKind::kGraphNodeCloned);
  EXPECT_EQ(event_.handle, 0x20u + 2000);
  EXPECT_EQ(event_.src, 0x10u + 2000);
  EXPECT_EQ(event_.dst, 0x8000u + 1000);
}

TEST_F(ResourceTest, GraphNodeClonedWithoutExecHasNoDst) {
  graph_.node = handle<CUgraphNode>(0x20);
  graph_.originalNode = handle<CUgraphNode>(0x10);
  ASSERT_TRUE(decode(CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED));
  EXPECT_EQ(event_.dst, 0u);
}

TEST_F(ResourceTest, GraphDependency) {
  graph_.node = handle<CUgraphNode>(0x30);
  graph_.dependency = handle<CUgraphNode>(0x20);
  ASSERT_TRUE(decode(CUPTI_CBID_RESOURCE_GRAPHNODE_DEPENDENCY_CREATED));
  EXPECT_EQ(event_.kind, ApiKind::kGraphDependency);
  EXPECT_EQ(event_.handle, 0x30u + 2000);
  EXPECT_EQ(event_.src, 0x20u + 2000);
}

TEST_F(ResourceTest, ModuleLoadedCarriesItsIdAndImage) {
  static const char cubin[] =
      "\x7f"
      "ELF a tiny cubin";
  CUpti_ModuleResourceData module{};
  module.moduleId = 42;
  module.cubinSize = sizeof cubin;
  module.pCubin = cubin;
  const CUpti_ResourceData data{kContext, {nullptr}, &module};
  ASSERT_TRUE(decode_resource(CUPTI_CBID_RESOURCE_MODULE_LOADED, data, queries_, event_));
  EXPECT_EQ(event_.kind, ApiKind::kModuleLoaded);
  EXPECT_EQ(event_.domain, ApiDomain::kResource);
  EXPECT_EQ(event_.handle, 42u);
  EXPECT_EQ(event_.bytes, sizeof cubin);
  EXPECT_EQ(event_.context_id, kContextId);
  const std::span<const uint8_t> image = module_image(CUPTI_CBID_RESOURCE_MODULE_LOADED, data);
  EXPECT_EQ(static_cast<const void*>(image.data()), static_cast<const void*>(cubin));
  EXPECT_EQ(image.size(), sizeof cubin);
  EXPECT_TRUE(module_image(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, data).empty());
}

TEST_F(ResourceTest, ModuleLoadedWithoutAnImageHasNoBytes) {
  CUpti_ModuleResourceData module{};
  module.moduleId = 3;
  module.cubinSize = 100;  // but no pointer
  const CUpti_ResourceData data{kContext, {nullptr}, &module};
  ASSERT_TRUE(decode_resource(CUPTI_CBID_RESOURCE_MODULE_LOADED, data, queries_, event_));
  EXPECT_EQ(event_.bytes, 0u);
  EXPECT_TRUE(module_image(CUPTI_CBID_RESOURCE_MODULE_LOADED, data).empty());
}

TEST_F(CallbackDecoderTest, ModuleLoadDataReadsTheModuleAtExit) {
  CUmodule module = nullptr;
  const cuModuleLoadData_params params{&module, "image"};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData, &params));
  EXPECT_EQ(event_.kind, ApiKind::kModuleLoad);
  module = handle<CUmodule>(0x30D000);
  exit_driver(CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData, &params);
  EXPECT_EQ(event_.handle, 0x30D000u);
}

TEST_F(ResourceTest, OtherResourcesAreNotRecorded) {
  EXPECT_FALSE(decode(CUPTI_CBID_RESOURCE_CONTEXT_CREATED));
  EXPECT_FALSE(decode(CUPTI_CBID_RESOURCE_GRAPHNODE_DESTROY_STARTING));
  EXPECT_EQ(event_.kind, ApiKind::kUnknown);
}

// ---------------------------------------------------------------------------
// NVTX.

class NvtxTest : public CallbackDecoderTest {
 protected:
  bool decode(CUpti_CallbackId cbid, const void* params) {
    const CUpti_NvtxData data{"nvtx", params, nullptr};
    return decode_nvtx(cbid, data, event_, payload_);
  }
  static nvtxEventAttributes_t ascii_attributes(const char* message) {
    nvtxEventAttributes_t attributes{};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = message;
    return attributes;
  }
};

TEST_F(NvtxTest, MarkACopiesTheMessage) {
  const nvtxMarkA_params params{"racetrack:region=17"};
  ASSERT_TRUE(decode(CUPTI_CBID_NVTX_nvtxMarkA, &params));
  EXPECT_EQ(event_.kind, ApiKind::kNvtxMark);
  EXPECT_EQ(event_.domain, ApiDomain::kNvtx);
  EXPECT_EQ(event_.payload_bytes, 19u);
  EXPECT_EQ(event_.payload_words, 3u);
  EXPECT_EQ(text(), "racetrack:region=17");
  EXPECT_EQ(storage_[2] >> 24, 0u);  // zero padding after the last byte
  EXPECT_EQ(payload_.used, 3u);
}

TEST_F(NvtxTest, RangePushExWithAsciiAttribute) {
  const nvtxEventAttributes_t attributes = ascii_attributes("forward");
  const nvtxRangePushEx_params params{&attributes};
  ASSERT_TRUE(decode(CUPTI_CBID_NVTX_nvtxRangePushEx, &params));
  EXPECT_EQ(event_.kind, ApiKind::kNvtxPush);
  EXPECT_EQ(text(), "forward");
  EXPECT_EQ(event_.payload_words, 1u);
}

TEST_F(NvtxTest, DomainMarkExReadsThroughCore) {
  const nvtxEventAttributes_t attributes = ascii_attributes("step 3");
  const nvtxDomainMarkEx_params params{handle<nvtxDomainHandle_t>(0x44), {&attributes}};
  ASSERT_TRUE(decode(CUPTI_CBID_NVTX_nvtxDomainMarkEx, &params));
  EXPECT_EQ(event_.kind, ApiKind::kNvtxMark);
  EXPECT_EQ(text(), "step 3");
}

TEST_F(NvtxTest, NonAsciiMessageIsRecordedWithoutText) {
  nvtxEventAttributes_t attributes = ascii_attributes(nullptr);
  attributes.messageType = NVTX_MESSAGE_TYPE_UNICODE;
  attributes.message.unicode = L"wide";
  const nvtxRangePushEx_params params{&attributes};
  ASSERT_TRUE(decode(CUPTI_CBID_NVTX_nvtxRangePushEx, &params));
  EXPECT_EQ(event_.kind, ApiKind::kNvtxPush);
  EXPECT_EQ(event_.payload_bytes, 0u);
  EXPECT_EQ(event_.payload_words, 0u);
}

TEST_F(NvtxTest, PopHasNoText) {
  const nvtxRangePop_params pop{};
  ASSERT_TRUE(decode(CUPTI_CBID_NVTX_nvtxRangePop, &pop));
  EXPECT_EQ(event_.kind, ApiKind::kNvtxPop);
  event_ = {};
  const nvtxDomainRangePop_params domain_pop{handle<nvtxDomainHandle_t>(0x44)};
  ASSERT_TRUE(decode(CUPTI_CBID_NVTX_nvtxDomainRangePop, &domain_pop));
  EXPECT_EQ(event_.kind, ApiKind::kNvtxPop);
  EXPECT_EQ(event_.payload_words, 0u);
}

TEST_F(NvtxTest, LongMessageIsCutAt4096Bytes) {
  std::vector<uint64_t> big_storage(1024, ~uint64_t{0});
  payload_ = Payload{big_storage.data(), static_cast<uint32_t>(big_storage.size()), 1};
  const std::string message = std::string(4096, 'x') + "tail";
  const nvtxMarkA_params params{message.c_str()};
  ASSERT_TRUE(decode(CUPTI_CBID_NVTX_nvtxMarkA, &params));
  EXPECT_EQ(event_.kind, ApiKind::kNvtxMark);
  EXPECT_EQ(event_.payload_offset, 1u);
  EXPECT_EQ(event_.payload_bytes, 4096u);
  EXPECT_EQ(event_.payload_words, 512u);
  EXPECT_EQ(payload_.used, 513u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(big_storage.data() + 1), 4096),
            message.substr(0, 4096));
  EXPECT_EQ(big_storage[513], ~uint64_t{0});  // nothing written past the cut
}

TEST_F(NvtxTest, MessageWithoutRoomGetsNoText) {
  // Within the 4096-byte cap but larger than the 64-word payload.
  const std::string big_message(600, 'y');
  const nvtxMarkA_params too_big{big_message.c_str()};
  ASSERT_TRUE(decode(CUPTI_CBID_NVTX_nvtxMarkA, &too_big));
  EXPECT_EQ(event_.payload_bytes, 0u);
  EXPECT_EQ(event_.payload_words, 0u);
  EXPECT_EQ(payload_.used, 0u);
}

TEST_F(NvtxTest, WideCharacterCallbacksAreNotRecorded) {
  const nvtxMarkW_params params{L"wide"};
  EXPECT_FALSE(decode(CUPTI_CBID_NVTX_nvtxMarkW, &params));
}

// ---------------------------------------------------------------------------
// The subscription list as a whole.

TEST(SubscribedCallbacks, EveryOneDecodesFromZeroedParameters) {
  // Larger than every parameter struct the decoder reads.
  alignas(16) const std::array<unsigned char, 256> zeros{};
  static_assert(sizeof(cuLaunchKernel_params) <= sizeof(zeros));
  const std::span<const CallbackId> callbacks = subscribed_callbacks();
  ASSERT_FALSE(callbacks.empty());
  FakeQueries queries;
  std::array<uint64_t, kShapeWords> storage{};  // room for the largest fixed payload (an array copy's)
  int api_callbacks = 0;
  for (const CallbackId& callback : callbacks) {
    SCOPED_TRACE(::testing::Message() << "domain " << callback.domain << " cbid " << callback.cbid);
    ApiEvent event;
    Payload payload{storage.data(), static_cast<uint32_t>(storage.size()), 0};
    switch (callback.domain) {
      case CUPTI_CB_DOMAIN_RUNTIME_API:
      case CUPTI_CB_DOMAIN_DRIVER_API: {
        ++api_callbacks;
        CUpti_CallbackData data{};
        data.functionParams = zeros.data();
        data.context = kContext;
        ASSERT_TRUE(decode_api_enter(callback.domain, callback.cbid, data, queries, event, payload));
        const CUresult success = CUDA_SUCCESS;
        data.callbackSite = CUPTI_API_EXIT;
        data.functionReturnValue = const_cast<CUresult*>(&success);
        decode_api_exit(callback.domain, callback.cbid, data, queries, event);  // null out-parameters
        break;
      }
      case CUPTI_CB_DOMAIN_NVTX: {
        const CUpti_NvtxData data{"nvtx", zeros.data(), nullptr};
        ASSERT_TRUE(decode_nvtx(callback.cbid, data, event, payload));
        break;
      }
      case CUPTI_CB_DOMAIN_RESOURCE: {
        CUpti_GraphData graph{};
        const CUpti_ResourceData data{kContext, {nullptr}, &graph};
        ASSERT_TRUE(decode_resource(callback.cbid, data, queries, event));
        break;
      }
      default: ADD_FAILURE() << "unexpected domain";
    }
    EXPECT_NE(event.kind, ApiKind::kUnknown);
    EXPECT_EQ(event.cbid, callback.cbid);
  }
  EXPECT_GT(api_callbacks, 100);
}

TEST(SubscribedCallbacks, ListsEachCallbackOnce) {
  // The API families' tables are merged at run time: a callback listed by
  // two families would be subscribed twice and decoded by only one.
  std::set<std::pair<int, uint32_t>> seen;
  for (const CallbackId& callback : subscribed_callbacks())
    EXPECT_TRUE(seen.insert({callback.domain, callback.cbid}).second)
        << "domain " << callback.domain << " cbid " << callback.cbid;
}

TEST(SubscribedCallbacks, HasDriverLaunchesAndNoRuntimeLaunches) {
  const auto contains = [](CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    for (const CallbackId& callback : subscribed_callbacks())
      if (callback.domain == domain && callback.cbid == cbid) return true;
    return false;
  };
  EXPECT_TRUE(contains(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
  EXPECT_TRUE(contains(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz));
  EXPECT_TRUE(contains(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020));
  EXPECT_TRUE(contains(CUPTI_CB_DOMAIN_NVTX, CUPTI_CBID_NVTX_nvtxRangePushA));
  EXPECT_TRUE(contains(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED));
  EXPECT_FALSE(contains(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
  EXPECT_FALSE(contains(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060));
  EXPECT_FALSE(contains(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000));
}

// ---------------------------------------------------------------------------
// Pitched and batched copies and memsets (copy_shape_words.h): the shape in
// the payload, the first byte of each side in dst / src.

TEST_F(CallbackDecoderTest, RuntimeMemcpy2DAsyncCarriesItsShape) {
  const cudaMemcpy2DAsync_v3020_params params{handle<void*>(0x7f0000000000),
                                              4096,
                                              handle<const void*>(0x200000000),
                                              2048,
                                              2048,
                                              32,
                                              cudaMemcpyHostToDevice,
                                              handle<cudaStream_t>(0x5000)};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020, &params));
  EXPECT_EQ(event_.kind, ApiKind::kMemcpy);
  EXPECT_EQ(event_.flags, kFlagAsync | kFlagPitched);
  EXPECT_EQ(event_.dst, 0x7f0000000000u);
  EXPECT_EQ(event_.src, 0x200000000u);
  EXPECT_EQ(event_.bytes, 2048u * 32);
  EXPECT_EQ(event_.value, 1u);
  EXPECT_EQ(event_.stream, 0x5000u);
  EXPECT_THAT(words(), ElementsAre(2048, 32, 1, 4096, 2048, 0, 0));
}

TEST_F(CallbackDecoderTest, RuntimeMemcpy3DStartsAtItsPositions) {
  cudaMemcpy3DParms p{};
  p.srcPtr = cudaPitchedPtr{handle<void*>(0x7f0000000000), 512, 256, 8};  // 8 rows a slice
  p.srcPos = cudaPos{16, 2, 1};
  p.dstPtr = cudaPitchedPtr{handle<void*>(0x200000000), 128, 128, 4};
  p.extent = cudaExtent{64, 3, 2};
  p.kind = cudaMemcpyDeviceToHost;
  const cudaMemcpy3D_v3020_params params{&p};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_v3020, &params));
  EXPECT_EQ(event_.flags, kFlagPitched);
  EXPECT_EQ(event_.src, 0x7f0000000000u + 1 * 512 * 8 + 2 * 512 + 16);
  EXPECT_EQ(event_.dst, 0x200000000u);
  EXPECT_EQ(event_.bytes, 64u * 3 * 2);
  EXPECT_EQ(event_.value, 2u);
  EXPECT_THAT(words(), ElementsAre(64, 3, 2, 128, 512, 128 * 4, 512 * 8));

  // An array side keeps its handle and position; the extent counts elements.
  event_ = {};
  payload_.used = 0;
  p.dstArray = handle<cudaArray_t>(0xA000);
  p.dstPos = cudaPos{4, 5, 6};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_v3020, &params));
  EXPECT_EQ(event_.flags, kFlagPitched | kFlagArraySides);
  EXPECT_EQ(event_.dst, 0xA000u);
  EXPECT_EQ(event_.src, 0x7f0000000000u + 1 * 512 * 8 + 2 * 512 + 16);
  EXPECT_THAT(words(),
              ElementsAre(64, 3, 2, 0, 512, 0, 512 * 8, 4, 5, 6, 0, 0, 0, kDstIsArray | kInElements));
}

TEST_F(CallbackDecoderTest, DriverMemcpy2DNamesSidesByMemoryType) {
  CUDA_MEMCPY2D c{};
  c.srcMemoryType = CU_MEMORYTYPE_HOST;
  c.srcHost = handle<const void*>(0x200000000);
  c.srcPitch = 1024;
  c.srcY = 1;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = 0x7f0000000000;
  c.dstPitch = 4096;
  c.dstXInBytes = 64;
  c.dstY = 2;
  c.WidthInBytes = 512;
  c.Height = 10;
  const cuMemcpy2DAsync_v2_params params{&c, handle<CUstream>(0x6000)};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2, &params));
  EXPECT_EQ(event_.flags, kFlagAsync | kFlagPitched);
  EXPECT_EQ(event_.dst, 0x7f0000000000u + 2 * 4096 + 64);
  EXPECT_EQ(event_.src, 0x200000000u + 1024);
  EXPECT_EQ(event_.value, 1u);  // host to device
  EXPECT_EQ(event_.stream, 0x6000u);
  EXPECT_THAT(words(), ElementsAre(512, 10, 1, 4096, 1024, 0, 0));

  // An array source: its handle and position (x in bytes), no pitch.
  event_ = {};
  payload_.used = 0;
  c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  c.srcArray = handle<CUarray>(0xA100);
  c.srcXInBytes = 8;
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2, &params));
  EXPECT_EQ(event_.src, 0xA100u);
  EXPECT_EQ(event_.value, 3u);  // an array is device memory
  EXPECT_THAT(words(), ElementsAre(512, 10, 1, 4096, 0, 0, 0, 0, 0, 0, 8, 1, 0, kSrcIsArray));
}

TEST_F(CallbackDecoderTest, DriverMemcpy3DSlicesArePitchTimesHeight) {
  CUDA_MEMCPY3D c{};
  c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  c.srcDevice = 0x7f0000000000;
  c.srcPitch = 256;
  c.srcHeight = 16;
  c.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
  c.dstDevice = 0x7f1000000000;
  c.dstPitch = 128;
  c.dstHeight = 8;
  c.dstZ = 1;
  c.WidthInBytes = 100;
  c.Height = 8;
  c.Depth = 3;
  const cuMemcpy3D_v2_params params{&c};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2, &params));
  EXPECT_EQ(event_.dst, 0x7f1000000000u + 128 * 8);
  EXPECT_EQ(event_.value, 4u);  // unified: the addresses decide
  EXPECT_EQ(event_.bytes, 100u * 8 * 3);
  EXPECT_THAT(words(), ElementsAre(100, 8, 3, 128, 256, 128 * 8, 256 * 16));
}

TEST_F(CallbackDecoderTest, PitchedMemsetsCountBytesPerRow) {
  const cudaMemset2DAsync_v3020_params runtime{handle<void*>(0x7f0000000000), 1024, 7, 300, 5,
                                               handle<cudaStream_t>(0x5000)};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_v3020, &runtime));
  EXPECT_EQ(event_.kind, ApiKind::kMemset);
  EXPECT_EQ(event_.flags, kFlagAsync | kFlagPitched);
  EXPECT_EQ(event_.value, 7u);
  EXPECT_EQ(event_.bytes, 1500u);
  EXPECT_THAT(words(), ElementsAre(300, 5, 1, 1024, 0, 0, 0));

  event_ = {};
  payload_.used = 0;
  const cuMemsetD2D16_v2_params driver{0x7f0000000000, 512, 0xBEEF, 100, 4};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2, &driver));
  EXPECT_EQ(event_.element_size, 2u);
  EXPECT_EQ(event_.value, 0xBEEFu);
  EXPECT_EQ(event_.bytes, 100u * 2 * 4);
  EXPECT_THAT(words(), ElementsAre(200, 4, 1, 512, 0, 0, 0));

  event_ = {};
  payload_.used = 0;
  const cudaMemset3D_v3020_params three_d{cudaPitchedPtr{handle<void*>(0x7f0000000000), 256, 200, 10}, 0,
                                          cudaExtent{200, 10, 2}};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemset3D_v3020, &three_d));
  EXPECT_EQ(event_.bytes, 200u * 10 * 2);
  EXPECT_THAT(words(), ElementsAre(200, 10, 2, 256, 0, 256 * 10, 0));
}

TEST_F(CallbackDecoderTest, MemcpyBatchAsyncCarriesEveryCopy) {
  void* const dsts[3] = {handle<void*>(0x200000000), handle<void*>(0x200100000), handle<void*>(0x200200000)};
  const void* const srcs[3] = {handle<const void*>(0x7f0000000000), handle<const void*>(0x7f0000100000),
                               handle<const void*>(0x7f0000200000)};
  size_t sizes[3] = {4096, 8192, 16};
  const cudaMemcpyBatchAsync_v13000_params params{dsts,    srcs,    sizes, 3,
                                                  nullptr, nullptr, 0,     handle<cudaStream_t>(0x5000)};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_v13000, &params));
  EXPECT_EQ(event_.kind, ApiKind::kMemcpy);
  EXPECT_EQ(event_.flags, kFlagAsync | kFlagBatch);
  EXPECT_EQ(event_.stream, 0x5000u);
  EXPECT_THAT(words(), ElementsAre(0x200000000, 0x7f0000000000, 4096, 0x200100000, 0x7f0000100000, 8192,
                                   0x200200000, 0x7f0000200000, 16));

  // The driver form, CUDA 12.8 layout (failIdx before the stream).
  event_ = {};
  payload_.used = 0;
  CUdeviceptr ddsts[1] = {0x300000000}, dsrcs[1] = {0x7f0000000000};
  size_t dsizes[1] = {64};
  const cuMemcpyBatchAsync_params driver{
      ddsts, dsrcs, dsizes, 1, nullptr, nullptr, 0, nullptr, handle<CUstream>(0x6000)};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync, &driver));
  EXPECT_EQ(event_.stream, 0x6000u);
  EXPECT_THAT(words(), ElementsAre(0x300000000, 0x7f0000000000, 64));

  // More copies than the payload has room for: not recorded, not cut short.
  event_ = {};
  payload_.used = 0;
  std::vector<void*> many_dsts(30, handle<void*>(0x200000000));
  std::vector<const void*> many_srcs(30, handle<const void*>(0x7f0000000000));
  std::vector<size_t> many_sizes(30, 8);
  const cudaMemcpyBatchAsync_v13000_params many{
      many_dsts.data(), many_srcs.data(), many_sizes.data(), 30, nullptr, nullptr, 0, nullptr};
  EXPECT_FALSE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_v13000, &many));
  EXPECT_EQ(payload_.used, 0u);
}

TEST_F(CallbackDecoderTest, SymbolCopiesKeepTheHostSideAndMarkTheSymbolSideUnknown) {
  const cudaMemcpyToSymbolAsync_v3020_params to{
      handle<const void*>(0x601000), handle<const void*>(0x200000000), 256, 64,
      cudaMemcpyHostToDevice,        handle<cudaStream_t>(0x5000)};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_v3020, &to));
  EXPECT_EQ(event_.kind, ApiKind::kMemcpy);
  EXPECT_EQ(event_.flags, kFlagAsync | kFlagDstUnknown);
  EXPECT_EQ(event_.dst, 0u);
  EXPECT_EQ(event_.src, 0x200000000u);
  EXPECT_EQ(event_.bytes, 256u);
  EXPECT_EQ(event_.handle, 0x601000u);
  EXPECT_EQ(event_.value, 1u);
  EXPECT_EQ(event_.stream, 0x5000u);

  event_ = {};
  const cudaMemcpyFromSymbol_v3020_params from{handle<void*>(0x200000000), handle<const void*>(0x601000), 128,
                                               0, cudaMemcpyDeviceToHost};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020, &from));
  EXPECT_EQ(event_.flags, kFlagSrcUnknown);
  EXPECT_EQ(event_.dst, 0x200000000u);
  EXPECT_EQ(event_.src, 0u);
  EXPECT_EQ(event_.value, 2u);
}

void host_fn(void*) {}
void stream_callback(cudaStream_t, cudaError_t, void*) {}

TEST_F(CallbackDecoderTest, HostFunctionsAreNamedByTheirAddress) {
  const cudaLaunchHostFunc_v10000_params runtime{handle<cudaStream_t>(0x5000), &host_fn, nullptr};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000, &runtime));
  EXPECT_EQ(event_.kind, ApiKind::kHostFunc);
  EXPECT_EQ(event_.handle, reinterpret_cast<uintptr_t>(&host_fn));
  EXPECT_EQ(event_.stream, 0x5000u);
  exit_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000, &runtime);
  EXPECT_EQ(event_.stream_id, kStreamId);

  event_ = {};
  const cudaStreamAddCallback_v5000_params callback{handle<cudaStream_t>(0x5001), &stream_callback, nullptr,
                                                    0};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaStreamAddCallback_v5000, &callback));
  EXPECT_EQ(event_.kind, ApiKind::kHostFunc);
  EXPECT_EQ(event_.handle, reinterpret_cast<uintptr_t>(&stream_callback));
  EXPECT_EQ(event_.stream, 0x5001u);

  event_ = {};
  const cuLaunchHostFunc_params driver{handle<CUstream>(0x6000), &host_fn, nullptr};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, &driver));
  EXPECT_EQ(event_.kind, ApiKind::kHostFunc);
  EXPECT_EQ(event_.stream, 0x6000u);
}

// ---------------------------------------------------------------------------
// CUDA arrays.

TEST_F(CallbackDecoderTest, ArrayCreationCarriesItsShapeAndHandle) {
  const cudaChannelFormatDesc float2_format{32, 32, 0, 0, cudaChannelFormatKindFloat};
  cudaArray_t array = nullptr;
  const cudaMalloc3DArray_v3020_params runtime{&array, &float2_format, cudaExtent{100, 20, 3}, 0};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc3DArray_v3020, &runtime));
  EXPECT_EQ(event_.kind, ApiKind::kArrayCreate);
  EXPECT_THAT(words(), ElementsAre(100, 20, 3, 8));
  array = handle<cudaArray_t>(0xA200);
  exit_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc3DArray_v3020, &runtime);
  EXPECT_EQ(event_.handle, 0xA200u);

  event_ = {};
  payload_.used = 0;
  CUDA_ARRAY_DESCRIPTOR d{64, 8, CU_AD_FORMAT_HALF, 4};
  CUarray driver_array = nullptr;
  const cuArrayCreate_v2_params driver{&driver_array, &d};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuArrayCreate_v2, &driver));
  EXPECT_THAT(words(), ElementsAre(64, 8, 0, 8));  // 4 half channels: 8 bytes an element

  // A format racetrack cannot size: element size 0 (the array is then not placed).
  event_ = {};
  payload_.used = 0;
  d.Format = CU_AD_FORMAT_NV12;
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuArrayCreate_v2, &driver));
  EXPECT_THAT(words(), ElementsAre(64, 8, 0, 0));

  event_ = {};
  const cudaFreeArray_v3020_params destroy{handle<cudaArray_t>(0xA200)};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaFreeArray_v3020, &destroy));
  EXPECT_EQ(event_.kind, ApiKind::kArrayDestroy);
  EXPECT_EQ(event_.handle, 0xA200u);
}

TEST_F(CallbackDecoderTest, ArrayCopiesNameTheArrayAndItsPosition) {
  const cudaMemcpyToArrayAsync_v3020_params to{handle<cudaArray_t>(0xA300),      16,   2,
                                               handle<const void*>(0x200000000), 4096, cudaMemcpyHostToDevice,
                                               handle<cudaStream_t>(0x5000)};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToArrayAsync_v3020, &to));
  EXPECT_EQ(event_.flags, kFlagAsync | kFlagArraySides);
  EXPECT_EQ(event_.dst, 0xA300u);
  EXPECT_EQ(event_.src, 0x200000000u);
  EXPECT_EQ(event_.bytes, 4096u);
  EXPECT_EQ(event_.stream, 0x5000u);
  EXPECT_THAT(words(), ElementsAre(16, 2, 0, 0, 0, 0, kDstIsArray));

  event_ = {};
  payload_.used = 0;
  const cudaMemcpy2DFromArray_v3020_params from{
      handle<void*>(0x7f0000000000), 1024, handle<cudaArray_const_t>(0xA300), 32, 1, 256, 4,
      cudaMemcpyDeviceToDevice};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DFromArray_v3020, &from));
  EXPECT_EQ(event_.flags, kFlagPitched | kFlagArraySides);
  EXPECT_EQ(event_.bytes, 256u * 4);
  EXPECT_THAT(words(), ElementsAre(256, 4, 1, 1024, 0, 0, 0, 0, 0, 0, 32, 1, 0, kSrcIsArray));

  event_ = {};
  payload_.used = 0;
  const cuMemcpyAtoHAsync_v2_params to_host{handle<void*>(0x200000000), handle<CUarray>(0xA300), 512, 128,
                                            handle<CUstream>(0x6000)};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoHAsync_v2, &to_host));
  EXPECT_EQ(event_.value, 2u);  // device (array) to host
  EXPECT_EQ(event_.src, 0xA300u);
  EXPECT_THAT(words(), ElementsAre(0, 0, 0, 512, 0, 0, kSrcIsArray));
}

TEST_F(CallbackDecoderTest, PeerCopy3DIsAPitchedDeviceToDeviceCopy) {
  cudaMemcpy3DPeerParms p{};
  p.srcPtr = cudaPitchedPtr{handle<void*>(0x7f0000000000), 512, 256, 8};
  p.srcDevice = 0;
  p.dstPtr = cudaPitchedPtr{handle<void*>(0x7f1000000000), 256, 256, 8};
  p.dstDevice = 1;
  p.extent = cudaExtent{200, 8, 2};
  const cudaMemcpy3DPeerAsync_v4000_params params{&p, handle<cudaStream_t>(0x5000)};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DPeerAsync_v4000, &params));
  EXPECT_EQ(event_.flags, kFlagAsync | kFlagPitched);
  EXPECT_EQ(event_.value, 3u);
  EXPECT_EQ(event_.bytes, 200u * 8 * 2);
  EXPECT_THAT(words(), ElementsAre(200, 8, 2, 256, 512, 256 * 8, 512 * 8));

  event_ = {};
  payload_.used = 0;
  CUDA_MEMCPY3D_PEER d{};
  d.srcMemoryType = d.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  d.srcDevice = 0x7f0000000000;
  d.dstDevice = 0x7f1000000000;
  d.srcPitch = d.dstPitch = 128;
  d.WidthInBytes = 100;
  d.Height = 3;
  d.Depth = 1;
  const cuMemcpy3DPeer_params driver{&d};
  ASSERT_TRUE(enter_driver(CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeer, &driver));
  EXPECT_THAT(words(), ElementsAre(100, 3, 1, 128, 128, 0, 0));
}

TEST_F(CallbackDecoderTest, Batch3DCarriesEveryCopysSidesAndShapeInElements) {
  cudaMemcpy3DBatchOp ops[2]{};
  ops[0].src.type = cudaMemcpyOperandTypePointer;
  ops[0].src.op.ptr.ptr = handle<void*>(0x200000000);
  ops[0].src.op.ptr.rowLength = 0;  // packed: the extent's width
  ops[0].dst.type = cudaMemcpyOperandTypeArray;
  ops[0].dst.op.array.array = handle<cudaArray_t>(0xA600);
  ops[0].dst.op.array.offset = {1, 2, 0};
  ops[0].extent = {16, 4, 1};
  ops[1].src.type = ops[1].dst.type = cudaMemcpyOperandTypePointer;
  ops[1].src.op.ptr.ptr = handle<void*>(0x7f0000000000);
  ops[1].src.op.ptr.rowLength = 64;
  ops[1].src.op.ptr.layerHeight = 8;
  ops[1].dst.op.ptr.ptr = handle<void*>(0x300000000);
  ops[1].extent = {32, 8, 2};
  const cudaMemcpy3DBatchAsync_v13000_params params{2, ops, 0, handle<cudaStream_t>(0x5000)};
  ASSERT_TRUE(enter_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DBatchAsync_v13000, &params));
  EXPECT_EQ(event_.flags, kFlagAsync | kFlagBatch3D);
  EXPECT_EQ(event_.stream, 0x5000u);
  const uint64_t bits = kInElements | kPitchesInElements;
  EXPECT_THAT(words(),
              ElementsAre(0xA600, 0x200000000, 16, 4, 1, 0, 16, 0, 64, 1, 2, 0, 0, 0, 0, kDstIsArray | bits,
                          0x300000000, 0x7f0000000000, 32, 8, 2, 32, 64, 256, 512, 0, 0, 0, 0, 0, 0, bits));
}

}  // namespace
}  // namespace racetrack::capture
