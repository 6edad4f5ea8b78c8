/* racetrack annotations for C and C++ programs (header only).
 *
 * Tell `racetrack capture` what a kernel reads and writes, when the host
 * touches memory, and what a buffer is called. The calls are NVTX marks
 * whose text starts with "racetrack:", so the capturer sees them in order on
 * the launching thread; without a capturer (or an NVTX tool) each call costs
 * a few nanoseconds. Define RACETRACK_NO_ANNOTATIONS to compile them out.
 *
 *   racetrack_kernel_reads(x, n * sizeof(float));   // for the next launch
 *   racetrack_kernel_writes(y, n * sizeof(float));  // on this thread
 *   scale<<<grid, block, 0, stream>>>(x, y, n);
 *   racetrack_host_reads(pinned, bytes);            // the CPU reads it now
 *   racetrack_label(pinned, bytes, "offload buffer 3");
 *
 * Message grammar (docs/capture.md): "racetrack:<verb> <item>..." where an
 * access item is "<r|w|rw|u>:0x<address>:<bytes>".
 */
#ifndef RACETRACK_ANNOTATE_H
#define RACETRACK_ANNOTATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef RACETRACK_NO_ANNOTATIONS
#include <nvtx3/nvToolsExt.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

static inline void racetrack_annotate_(const char* verb, const char* mode, const void* address,
                                       size_t bytes, const char* text) {
#ifdef RACETRACK_NO_ANNOTATIONS
  (void)verb; (void)mode; (void)address; (void)bytes; (void)text;
#else
  char message[256];
  if (mode != NULL)
    snprintf(message, sizeof message, "racetrack:%s %s:0x%llx:%llu", verb, mode,
             (unsigned long long)(uintptr_t)address, (unsigned long long)bytes);
  else
    snprintf(message, sizeof message, "racetrack:%s 0x%llx:%llu %s", verb,
             (unsigned long long)(uintptr_t)address, (unsigned long long)bytes,
             text != NULL ? text : "");
  nvtxMarkA(message);
#endif
}

/* The next kernel this thread launches reads / writes / does both to these bytes. */
static inline void racetrack_kernel_reads(const void* p, size_t bytes) {
  racetrack_annotate_("kernel", "r", p, bytes, NULL);
}
static inline void racetrack_kernel_writes(const void* p, size_t bytes) {
  racetrack_annotate_("kernel", "w", p, bytes, NULL);
}
static inline void racetrack_kernel_reads_writes(const void* p, size_t bytes) {
  racetrack_annotate_("kernel", "rw", p, bytes, NULL);
}
/* The host reads / writes these bytes now (e.g. a pinned D2H destination). */
static inline void racetrack_host_reads(const void* p, size_t bytes) {
  racetrack_annotate_("host", "r", p, bytes, NULL);
}
static inline void racetrack_host_writes(const void* p, size_t bytes) {
  racetrack_annotate_("host", "w", p, bytes, NULL);
}
/* Names a buffer in reports and the viewer. */
static inline void racetrack_label(const void* p, size_t bytes, const char* name) {
  racetrack_annotate_("label", NULL, p, bytes, name);
}

/* An agent outside CUDA streams (`agent`, one word: an RDMA NIC, a forked
 * writer, another process) reads ("r"), writes ("w") or both ("rw") these
 * bytes from now on; its completion is observed at the next record of
 * `done_event` (a cudaEvent_t, or NULL: at racetrack_external_done). */
static inline void racetrack_external_access(const char* agent, const char* mode, const void* p, size_t bytes,
                                             const void* done_event) {
#ifdef RACETRACK_NO_ANNOTATIONS
  (void)agent; (void)mode; (void)p; (void)bytes; (void)done_event;
#else
  char message[256];
  int n = snprintf(message, sizeof message, "racetrack:external %s %s:0x%llx:%llu", agent, mode,
                   (unsigned long long)(uintptr_t)p, (unsigned long long)bytes);
  if (done_event != NULL && n > 0 && (size_t)n < sizeof message)
    snprintf(message + n, sizeof message - (size_t)n, " e=0x%llx", (unsigned long long)(uintptr_t)done_event);
  nvtxMarkA(message);
#endif
}
/* The host observed that `agent` finished its accesses. */
static inline void racetrack_external_done(const char* agent) {
#ifdef RACETRACK_NO_ANNOTATIONS
  (void)agent;
#else
  char message[160];
  snprintf(message, sizeof message, "racetrack:external-done %s", agent);
  nvtxMarkA(message);
#endif
}

#ifdef __cplusplus
}
#endif

#endif /* RACETRACK_ANNOTATE_H */
