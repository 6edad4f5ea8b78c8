// Events, streams and device synchronisation: event records, stream waits,
// synchronisations and queries, stream and event lifetimes. Runtime and
// driver structs name these fields differently but lay them out alike. Left
// out as a legacy id with no CUDA 13.0 parameter struct or entry point:
// cudaStreamDestroy_v3020 (the runtime reports _v5050).
#include "callback_decoder_family.h"

namespace racetrack::capture::decoder {
namespace {

using enum ApiKind;

RACETRACK_FIELD_AT(cudaEventRecord_v3020_params, event, 0);
RACETRACK_FIELD_AT(cudaEventRecord_v3020_params, stream, 8);
RACETRACK_FIELD_AT(cudaEventRecord_ptsz_v7000_params, event, 0);
RACETRACK_FIELD_AT(cudaEventRecord_ptsz_v7000_params, stream, 8);
RACETRACK_FIELD_AT(cudaEventRecordWithFlags_v11010_params, event, 0);
RACETRACK_FIELD_AT(cudaEventRecordWithFlags_v11010_params, stream, 8);
RACETRACK_FIELD_AT(cudaEventRecordWithFlags_v11010_params, flags, 16);
RACETRACK_FIELD_AT(cudaEventRecordWithFlags_ptsz_v11010_params, event, 0);
RACETRACK_FIELD_AT(cudaEventRecordWithFlags_ptsz_v11010_params, stream, 8);
RACETRACK_FIELD_AT(cudaEventRecordWithFlags_ptsz_v11010_params, flags, 16);
RACETRACK_FIELD_AT(cuEventRecord_params, hEvent, 0);
RACETRACK_FIELD_AT(cuEventRecord_params, hStream, 8);
RACETRACK_FIELD_AT(cuEventRecord_ptsz_params, hEvent, 0);
RACETRACK_FIELD_AT(cuEventRecord_ptsz_params, hStream, 8);
RACETRACK_FIELD_AT(cuEventRecordWithFlags_params, hEvent, 0);
RACETRACK_FIELD_AT(cuEventRecordWithFlags_params, hStream, 8);
RACETRACK_FIELD_AT(cuEventRecordWithFlags_params, flags, 16);
RACETRACK_FIELD_AT(cuEventRecordWithFlags_ptsz_params, hEvent, 0);
RACETRACK_FIELD_AT(cuEventRecordWithFlags_ptsz_params, hStream, 8);
RACETRACK_FIELD_AT(cuEventRecordWithFlags_ptsz_params, flags, 16);
RACETRACK_FIELD_AT(cudaStreamWaitEvent_v3020_params, stream, 0);
RACETRACK_FIELD_AT(cudaStreamWaitEvent_v3020_params, event, 8);
RACETRACK_FIELD_AT(cudaStreamWaitEvent_v3020_params, flags, 16);
RACETRACK_FIELD_AT(cudaStreamWaitEvent_ptsz_v7000_params, stream, 0);
RACETRACK_FIELD_AT(cudaStreamWaitEvent_ptsz_v7000_params, event, 8);
RACETRACK_FIELD_AT(cudaStreamWaitEvent_ptsz_v7000_params, flags, 16);
RACETRACK_FIELD_AT(cuStreamWaitEvent_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamWaitEvent_params, hEvent, 8);
RACETRACK_FIELD_AT(cuStreamWaitEvent_params, Flags, 16);
RACETRACK_FIELD_AT(cuStreamWaitEvent_ptsz_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamWaitEvent_ptsz_params, hEvent, 8);
RACETRACK_FIELD_AT(cuStreamWaitEvent_ptsz_params, Flags, 16);

// Event records and stream waits: the event, the stream and any flags.
template <class Params>
bool read_event_on_stream(const Params& p, ApiEvent& event) {
  read_event(p, event);
  read_flags(p, event);
  return read_stream(p, event);
}

// Calls whose only recorded argument is a stream or an event.
RACETRACK_FIELD_AT(cudaStreamSynchronize_v3020_params, stream, 0);
RACETRACK_FIELD_AT(cudaStreamSynchronize_ptsz_v7000_params, stream, 0);
RACETRACK_FIELD_AT(cudaStreamQuery_v3020_params, stream, 0);
RACETRACK_FIELD_AT(cudaStreamQuery_ptsz_v7000_params, stream, 0);
RACETRACK_FIELD_AT(cudaStreamDestroy_v5050_params, stream, 0);
RACETRACK_FIELD_AT(cuStreamSynchronize_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamSynchronize_ptsz_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamQuery_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamQuery_ptsz_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamDestroy_v2_params, hStream, 0);
RACETRACK_FIELD_AT(cudaEventSynchronize_v3020_params, event, 0);
RACETRACK_FIELD_AT(cudaEventQuery_v3020_params, event, 0);
RACETRACK_FIELD_AT(cudaEventDestroy_v3020_params, event, 0);
RACETRACK_FIELD_AT(cuEventSynchronize_params, hEvent, 0);
RACETRACK_FIELD_AT(cuEventQuery_params, hEvent, 0);
RACETRACK_FIELD_AT(cuEventDestroy_v2_params, hEvent, 0);

// Stream creation: flags and priority at ENTER, the handle (an
// out-parameter) at EXIT.
RACETRACK_FIELD_AT(cudaStreamCreateWithFlags_v5000_params, flags, 8);
RACETRACK_FIELD_AT(cudaStreamCreateWithPriority_v5050_params, flags, 8);
RACETRACK_FIELD_AT(cuStreamCreate_params, Flags, 8);
RACETRACK_FIELD_AT(cuStreamCreateWithPriority_params, flags, 8);

template <class Params>
bool read_stream_create(const Params& p, ApiEvent& event) {
  read_flags(p, event);
  if constexpr (requires(const Params& q) { q.priority; }) {
    RACETRACK_FIELD_AT(Params, priority, 12);
    event.priority = p.priority;
  }
  return true;
}

RACETRACK_FIELD_AT(cudaStreamCreate_v3020_params, pStream, 0);
RACETRACK_FIELD_AT(cudaStreamCreateWithFlags_v5000_params, pStream, 0);
RACETRACK_FIELD_AT(cudaStreamCreateWithPriority_v5050_params, pStream, 0);
RACETRACK_FIELD_AT(cuStreamCreate_params, phStream, 0);
RACETRACK_FIELD_AT(cuStreamCreateWithPriority_params, phStream, 0);

template <class Params>
void read_created_stream(const Params& p, ApiEvent& event) {
  if constexpr (requires(const Params& q) { q.pStream; }) {
    event.stream = out_value(p.pStream);
  } else {
    event.stream = out_value(p.phStream);
  }
}

constexpr CallSpec kSyncCalls[] = {
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, kEventRecord, 0,
       in<read_event_on_stream<cudaEventRecord_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000, kEventRecord, kPts,
       in<read_event_on_stream<cudaEventRecord_ptsz_v7000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010, kEventRecord, 0,
       in<read_event_on_stream<cudaEventRecordWithFlags_v11010_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010, kEventRecord, kPts,
       in<read_event_on_stream<cudaEventRecordWithFlags_ptsz_v11010_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, kStreamWait, 0,
       in<read_event_on_stream<cudaStreamWaitEvent_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000, kStreamWait, kPts,
       in<read_event_on_stream<cudaStreamWaitEvent_ptsz_v7000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, kStreamSync, 0,
       in<read_stream<cudaStreamSynchronize_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000, kStreamSync, kPts,
       in<read_stream<cudaStreamSynchronize_ptsz_v7000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020, kStreamQuery, 0,
       in<read_stream<cudaStreamQuery_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000, kStreamQuery, kPts,
       in<read_stream<cudaStreamQuery_ptsz_v7000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020, kEventSync, 0,
       in<read_event<cudaEventSynchronize_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020, kEventQuery, 0,
       in<read_event<cudaEventQuery_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, kDeviceSync),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020, kStreamCreate, 0, nullptr,
       out<read_created_stream<cudaStreamCreate_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000, kStreamCreate, 0,
       in<read_stream_create<cudaStreamCreateWithFlags_v5000_params>>,
       out<read_created_stream<cudaStreamCreateWithFlags_v5000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050, kStreamCreate, 0,
       in<read_stream_create<cudaStreamCreateWithPriority_v5050_params>>,
       out<read_created_stream<cudaStreamCreateWithPriority_v5050_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v5050, kStreamDestroy, 0,
       in<read_stream<cudaStreamDestroy_v5050_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaEventDestroy_v3020, kEventDestroy, 0,
       in<read_event<cudaEventDestroy_v3020_params>>),

    drv(CUPTI_DRIVER_TRACE_CBID_cuEventRecord, kEventRecord, 0,
        in<read_event_on_stream<cuEventRecord_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz, kEventRecord, kPts,
        in<read_event_on_stream<cuEventRecord_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags, kEventRecord, 0,
        in<read_event_on_stream<cuEventRecordWithFlags_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz, kEventRecord, kPts,
        in<read_event_on_stream<cuEventRecordWithFlags_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, kStreamWait, 0,
        in<read_event_on_stream<cuStreamWaitEvent_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz, kStreamWait, kPts,
        in<read_event_on_stream<cuStreamWaitEvent_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, kStreamSync, 0,
        in<read_stream<cuStreamSynchronize_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz, kStreamSync, kPts,
        in<read_stream<cuStreamSynchronize_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamQuery, kStreamQuery, 0, in<read_stream<cuStreamQuery_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamQuery_ptsz, kStreamQuery, kPts,
        in<read_stream<cuStreamQuery_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize, kEventSync, 0, in<read_event<cuEventSynchronize_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuEventQuery, kEventQuery, 0, in<read_event<cuEventQuery_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, kDeviceSync),
    drv(CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2, kDeviceSync),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamCreate, kStreamCreate, 0,
        in<read_stream_create<cuStreamCreate_params>>, out<read_created_stream<cuStreamCreate_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority, kStreamCreate, 0,
        in<read_stream_create<cuStreamCreateWithPriority_params>>,
        out<read_created_stream<cuStreamCreateWithPriority_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2, kStreamDestroy, 0,
        in<read_stream<cuStreamDestroy_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2, kEventDestroy, 0,
        in<read_event<cuEventDestroy_v2_params>>),
};
static_assert(!has_duplicates(kSyncCalls));

}  // namespace

std::span<const CallSpec> sync_calls() {
  return kSyncCalls;
}

}  // namespace racetrack::capture::decoder
