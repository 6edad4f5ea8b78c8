#include "corpus_truth.h"

#include <sstream>

namespace racetrack::code::test {
namespace {

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

std::vector<Truth> parse_truths(const std::string& text, const std::string& file) {
  std::vector<Truth> out;
  std::stringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto at = line.find_first_not_of(" \t");
    if (at == std::string::npos || line.compare(at, 10, "// expect ") != 0) continue;
    std::stringstream words(line.substr(at + 10));
    Truth t;
    words >> t.name;
    if (!t.name.empty() && t.name.back() == ':') t.name.pop_back();
    t.source = file + ":" + std::to_string(number);
    std::string field;
    while (words >> field) {
      if (field.rfind("ptr=", 0) == 0)
        t.ptr = split(field.substr(4));
      else if (field.rfind("reads=", 0) == 0)
        t.reads = split(field.substr(6));
      else if (field.rfind("writes=", 0) == 0)
        t.writes = split(field.substr(7));
      else if (field == "pdl")
        t.pdl = true;
      else if (field == "indirect")
        t.indirect = true;
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::set<uint32_t> resolve(const std::vector<std::string>& tokens, const KernelLayout& layout) {
  std::set<uint32_t> out;
  for (const auto& tok : tokens) {
    if (tok.size() > 1 && tok[0] == 'p') {
      const uint32_t ordinal = static_cast<uint32_t>(std::stoul(tok.substr(1))) - 1;
      for (const auto& p : layout.params)
        if (p.ordinal == ordinal)
          for (uint32_t w = p.offset / 8 + 1; w <= (p.offset + p.size + 7) / 8; ++w) out.insert(w);
      continue;
    }
    const auto dash = tok.find('-');
    const uint32_t first = static_cast<uint32_t>(std::stoul(tok.substr(0, dash)));
    const uint32_t last =
        dash == std::string::npos ? first : static_cast<uint32_t>(std::stoul(tok.substr(dash + 1)));
    for (uint32_t w = first; w <= last; ++w) out.insert(w);
  }
  return out;
}

void score(const Truth& truth, const KernelLayout& layout, const KernelModes& got, uint32_t sm, Score& out) {
  ++out.kernels;
  const auto ptr = resolve(truth.ptr, layout);
  const auto reads = resolve(truth.reads, layout);
  const auto writes = resolve(truth.writes, layout);
  auto fail = [&](const std::string& why) {
    ++out.unsound;
    out.failures.push_back(truth.source + " " + truth.name + " (sm_" + std::to_string(sm) + "): " + why);
  };
  auto mode_of = [&](uint32_t w) { return w <= got.words.size() ? got.words[w - 1] : WordMode::kNone; };
  for (uint32_t w = 1; w <= std::max<uint32_t>(layout.words(), ptr.empty() ? 0 : *ptr.rbegin()); ++w) {
    const WordMode m = mode_of(w);
    const bool r = m == WordMode::kRead || m == WordMode::kReadWrite || m == WordMode::kEscapes;
    const bool wr = m == WordMode::kWrite || m == WordMode::kReadWrite || m == WordMode::kEscapes;
    if (reads.count(w) && !r)
      fail("word " + std::to_string(w) + " is read, reported " + std::string(mode_name(m)));
    if (writes.count(w) && !wr)
      fail("word " + std::to_string(w) + " is written, reported " + std::string(mode_name(m)));
    if (!ptr.count(w)) continue;
    ++out.pointer_words;
    if (m != WordMode::kEscapes) ++out.definite;
    const WordMode want = static_cast<WordMode>((reads.count(w) ? 1 : 0) | (writes.count(w) ? 2 : 0));
    if (m == want) ++out.exact;
  }
  if (truth.pdl && sm >= 90 && !got.grid_dependency_wait) fail("the PDL wait is missed");
  if (!truth.pdl && got.grid_dependency_wait) fail("a PDL wait is reported where there is none");
  if (truth.indirect && !got.indirect_access) fail("the indirect access is missed");
}

}  // namespace racetrack::code::test
