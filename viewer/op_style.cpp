#include "op_style.h"

#include <array>

#include "racetrack/traces/describe.h"

namespace racetrack::viewer {
namespace {

struct Style {
  QRgb rgb;
  const char* name;
  const char* word;
};

// Distinct hues for the kinds that matter for races (kernels, the three copy
// directions, memsets, syncs and waits); greys for bookkeeping ops. Red is
// kept for hazards.
constexpr std::array<Style, kCategoryCount> kStyles = {{
    {0xff3b78d8, "kernel", "kernel"},
    {0xffe8772e, "D2H copy (offload)", "memcpy D2H"},
    {0xff2e9e4f, "H2D copy (reload)", "memcpy H2D"},
    {0xff8e44ad, "D2D copy", "memcpy D2D"},
    {0xff8d6e63, "other copy (H2H, P2P)", "memcpy"},
    {0xff14a3b8, "memset", "memset"},
    {0xffd4a20c, "event record", "record"},
    {0xffd6338a, "stream wait", "wait"},
    {0xff37474f, "synchronize", "sync"},
    {0xff78909c, "query", "query"},
    {0xffaab4be, "alloc", "alloc"},
    {0xffc5ccd3, "free", "free"},
    {0xff7f9a2b, "host function", "host_func"},
    {0xff4656c0, "graph launch", "graph"},
    {0xffb09a5a, "annotation", "annotation"},
    {0xff2a8a8a, "host access", "host access"},
    {0xffb9a7d6, "NVTX range", "nvtx"},
}};

constexpr std::array<QRgb, 8> kNvtxPalette = {0xffc9b8e8, 0xffb8d4e8, 0xffc8e6c0, 0xfff0dcb0,
                                              0xffe8c0c8, 0xffbfe3de, 0xffe0d0f0, 0xffd8dcc0};

}  // namespace

OpCategory category_of(const v1::Op& op) {
  switch (op.what_case()) {
    case v1::Op::kKernel: return OpCategory::kKernel;
    case v1::Op::kMemcpy:
      switch (effective_direction(op.memcpy())) {
        case v1::COPY_D2H: return OpCategory::kCopyD2H;
        case v1::COPY_H2D: return OpCategory::kCopyH2D;
        case v1::COPY_D2D: return OpCategory::kCopyD2D;
        default: return OpCategory::kCopyOther;
      }
    case v1::Op::kMemset: return OpCategory::kMemset;
    case v1::Op::kRecord: return OpCategory::kRecord;
    case v1::Op::kWait: return OpCategory::kWait;
    case v1::Op::kSync: return OpCategory::kSync;
    case v1::Op::kQuery: return OpCategory::kQuery;
    case v1::Op::kAlloc: return OpCategory::kAlloc;
    case v1::Op::kFree: return OpCategory::kFree;
    case v1::Op::kHostFunc: return OpCategory::kHostFunc;
    case v1::Op::kGraph: return OpCategory::kGraph;
    case v1::Op::kAnnotation: return OpCategory::kAnnotation;
    case v1::Op::kHostAccess: return OpCategory::kHostAccess;
    default: return OpCategory::kAnnotation;
  }
}

QColor category_color(OpCategory category) {
  return QColor::fromRgb(kStyles[static_cast<int>(category)].rgb);
}
QString category_name(OpCategory category) {
  return QString::fromLatin1(kStyles[static_cast<int>(category)].name);
}
QString category_word(OpCategory category) {
  return QString::fromLatin1(kStyles[static_cast<int>(category)].word);
}

QColor nvtx_color(uint32_t name_id) {
  return QColor::fromRgb(kNvtxPalette[(name_id * 2654435761u >> 16) % kNvtxPalette.size()]);
}

QColor merged_color(const QColor& base) {
  return base.lighter(135);
}

QString short_kernel_name(std::string_view full) {
  // Drop the parameter list and template arguments (outside-in), then the
  // return type before the last space at depth 0.
  std::string out;
  out.reserve(full.size());
  int angle = 0, paren = 0;
  for (char c : full) {
    if (c == '<')
      ++angle;
    else if (c == '>' && angle > 0)
      --angle;
    else if (c == '(')
      ++paren;
    else if (c == ')' && paren > 0)
      --paren;
    else if (angle == 0 && paren == 0)
      out += c;
  }
  const size_t space = out.find_last_of(' ');
  if (space != std::string::npos && space + 1 < out.size()) out.erase(0, space + 1);
  return QString::fromStdString(out.empty() ? std::string(full) : out);
}

}  // namespace racetrack::viewer
