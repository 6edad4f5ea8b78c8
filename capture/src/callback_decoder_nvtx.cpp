// NVTX marks and ranges, with their ASCII messages; the wide-character
// variants are not recorded.
//
// cupti.h leaves the NVTX parameter structs out (and the generated headers
// have no include guards: include each once, here).
#include <generated_nvtx_meta.h>

#include <algorithm>
#include <cstring>

#include "callback_decoder_family.h"

namespace racetrack::capture::decoder {
namespace {

using enum ApiKind;

RACETRACK_FIELD_AT(nvtxMarkA_params, message, 0);
RACETRACK_FIELD_AT(nvtxRangePushA_params, message, 0);
RACETRACK_FIELD_AT(nvtxMarkEx_params, eventAttrib, 0);
RACETRACK_FIELD_AT(nvtxRangePushEx_params, eventAttrib, 0);
RACETRACK_FIELD_AT(nvtxDomainMarkEx_params, core, 8);
RACETRACK_FIELD_AT(nvtxDomainRangePushEx_params, core, 8);
RACETRACK_FIELD_AT(nvtxEventAttributes_t, messageType, 32);
RACETRACK_FIELD_AT(nvtxEventAttributes_t, message, 40);

// Longer messages are cut to this many bytes.
constexpr size_t kMaxNvtxBytes = 4096;

const char* ascii_message(const nvtxEventAttributes_t* attributes) {
  if (attributes == nullptr || attributes->messageType != NVTX_MESSAGE_TYPE_ASCII) return nullptr;
  return attributes->message.ascii;
}

template <class Params>
const char* read_message(const void* params) {
  const auto& p = as<Params>(params);
  if constexpr (requires(const Params& q) { q.core; }) {
    return ascii_message(p.core.eventAttrib);
  } else if constexpr (requires(const Params& q) { q.eventAttrib; }) {
    return ascii_message(p.eventAttrib);
  } else {
    return p.message;
  }
}

constexpr CallSpec kNvtxCalls[] = {
    nvtx(CUPTI_CBID_NVTX_nvtxMarkA, kNvtxMark, read_message<nvtxMarkA_params>),
    nvtx(CUPTI_CBID_NVTX_nvtxMarkEx, kNvtxMark, read_message<nvtxMarkEx_params>),
    nvtx(CUPTI_CBID_NVTX_nvtxRangePushA, kNvtxPush, read_message<nvtxRangePushA_params>),
    nvtx(CUPTI_CBID_NVTX_nvtxRangePushEx, kNvtxPush, read_message<nvtxRangePushEx_params>),
    nvtx(CUPTI_CBID_NVTX_nvtxRangePop, kNvtxPop),
    nvtx(CUPTI_CBID_NVTX_nvtxDomainMarkEx, kNvtxMark, read_message<nvtxDomainMarkEx_params>),
    nvtx(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, kNvtxPush, read_message<nvtxDomainRangePushEx_params>),
    nvtx(CUPTI_CBID_NVTX_nvtxDomainRangePop, kNvtxPop),
};
static_assert(!has_duplicates(kNvtxCalls));

}  // namespace

std::span<const CallSpec> nvtx_calls() {
  return kNvtxCalls;
}

// Appends the text's bytes (at most kMaxNvtxBytes), zero-padded to whole
// words; nothing when they do not fit.
void append_text(const char* text, ApiEvent& event, Payload& payload) {
  event.payload_offset = payload.used;
  event.payload_words = 0;
  event.payload_bytes = 0;
  if (text == nullptr || payload.words == nullptr || payload.used > payload.capacity) return;
  const size_t length = strnlen(text, kMaxNvtxBytes);
  const auto words = static_cast<uint32_t>((length + 7) / 8);
  if (payload.capacity - payload.used < words) return;
  uint64_t* destination = payload.words + payload.used;
  std::fill_n(destination, words, uint64_t{0});
  std::memcpy(destination, text, length);
  event.payload_words = words;
  event.payload_bytes = static_cast<uint32_t>(length);
  payload.used += words;
}

}  // namespace racetrack::capture::decoder
