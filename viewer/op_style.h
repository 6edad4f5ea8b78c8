// What a box on the timeline is (its category) and how it looks: one colour
// per category, the words used in legends, labels and search.
#pragma once

#include <QColor>
#include <QString>
#include <cstdint>
#include <string_view>

#include "racetrack/traces/container.h"

namespace racetrack::viewer {

// Op kinds, with copies split by direction: each gets its own colour.
enum class OpCategory : uint8_t {
  kKernel,
  kCopyD2H,
  kCopyH2D,
  kCopyD2D,
  kCopyOther,  // H2H, peer to peer
  kMemset,
  kRecord,
  kWait,
  kSync,
  kQuery,
  kAlloc,
  kFree,
  kHostFunc,
  kGraph,
  kAnnotation,
  kHostAccess,
  kNvtx,  // an NVTX range on an NVTX lane
};
inline constexpr int kCategoryCount = 17;

OpCategory category_of(const v1::Op& op);
QColor category_color(OpCategory category);
// "kernel", "D2H copy", ... (legend and details).
QString category_name(OpCategory category);
// The word a box's label and search text start with: "memcpy D2H", "record".
QString category_word(OpCategory category);

// NVTX ranges are told apart by name: a stable pastel per name id.
QColor nvtx_color(uint32_t name_id);
// A merged run of ops is drawn in a lighter tone of its lane's usual colour.
QColor merged_color(const QColor& base);

inline constexpr QRgb kHazardRgb = 0xffe0102f;
inline constexpr QRgb kSelectionRgb = 0xff111111;
inline constexpr QRgb kDependencyRgb = 0xff505a64;
inline constexpr QRgb kChainRgb = 0xffff8c00;
inline constexpr QRgb kDivergenceRgb = 0xff7b2cbf;  // racetrack diff's first divergence

// "flash::fwd_kernel" from "void flash::fwd_kernel<...>(Params)": kernel
// names as a box can show them.
QString short_kernel_name(std::string_view full);

}  // namespace racetrack::viewer
