#include "racetrack/code/sass.h"

#include <cctype>
#include <charconv>

namespace racetrack::code {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool parse_int(std::string_view s, int64_t& out) {
  bool negative = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return false;
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size()) return false;
  out = static_cast<int64_t>(negative ? 0 - v : v);  // two's complement, no overflow
  return true;
}

// "R12", "RZ", "UR4", "URZ" with optional suffixes (".64", ".reuse", ".H1",
// ".U32") and prefixes ("-", "|", "~", "!").
std::optional<RegRef> parse_register(std::string_view s) {
  while (!s.empty() && (s.front() == '-' || s.front() == '|' || s.front() == '~' || s.front() == '!'))
    s.remove_prefix(1);
  while (!s.empty() && s.back() == '|') s.remove_suffix(1);
  RegRef r;
  std::string_view name = s.substr(0, s.find('.'));
  std::string_view suffix = name.size() < s.size() ? s.substr(name.size()) : std::string_view();
  if (name.starts_with("UR")) {
    r.uniform = true;
    name.remove_prefix(2);
  } else if (name.starts_with("R")) {
    name.remove_prefix(1);
  } else {
    return std::nullopt;
  }
  if (name == "Z") {
    r.index = r.uniform ? kURZ : kRZ;
  } else {
    int64_t v = 0;
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name.front())) || !parse_int(name, v) ||
        v < 0 || v > 255)
      return std::nullopt;
    r.index = static_cast<int>(v);
  }
  r.pair = suffix.find(".64") != std::string_view::npos;
  r.narrow = suffix.find(".U32") != std::string_view::npos;
  return r;
}

bool is_predicate(std::string_view s) {
  while (!s.empty() && (s.front() == '!' || s.front() == '~')) s.remove_prefix(1);
  if (s.starts_with("UP"))
    s.remove_prefix(2);
  else if (s.starts_with("P"))
    s.remove_prefix(1);
  else
    return false;
  return s == "T" || (s.size() == 1 && std::isdigit(static_cast<unsigned char>(s[0])));
}

// The inside of a memory reference: terms joined by '+' ("R2.64+UR4+0x10",
// "R1+-0x8", "RZ", "UR4").
void parse_address(std::string_view inside, Operand& op) {
  size_t start = 0;
  while (start <= inside.size()) {
    size_t plus = inside.find('+', start);
    if (plus == std::string_view::npos) plus = inside.size();
    const std::string_view term = trim(inside.substr(start, plus - start));
    if (!term.empty()) {
      int64_t v = 0;
      if (auto r = parse_register(term)) {
        if (!r->zero()) op.address.push_back(*r);
      } else if (parse_int(term, v)) {
        op.offset += v;
      }
    }
    start = plus + 1;
  }
}

}  // namespace

bool Instruction::has_modifier(std::string_view m) const {
  for (const auto& x : modifiers)
    if (x == m) return true;
  return false;
}

std::vector<std::string> split_operands(std::string_view operands) {
  std::vector<std::string> out;
  int depth = 0;
  std::string current;
  auto flush = [&] {
    const std::string_view t = trim(current);
    if (!t.empty()) out.emplace_back(t);
    current.clear();
  };
  for (size_t i = 0; i < operands.size(); ++i) {
    const char ch = operands[i];
    if (ch == '[') {
      // "R3[R2.64]", "P0[UR4]", "URZ[UR11]": a register run into a memory
      // reference. "c[", "desc[", "gdesc[" and "][" stay one operand.
      const std::string_view so_far = trim(current);
      if (depth == 0 && !so_far.empty() && so_far.back() != ']' && so_far != "c" && so_far != "desc" &&
          so_far != "gdesc" && !so_far.ends_with("desc"))
        flush();
      ++depth;
    } else if (ch == ']') {
      --depth;
    } else if (ch == ',' && depth == 0) {
      flush();
      continue;
    }
    current.push_back(ch);
  }
  flush();
  return out;
}

Operand parse_operand(std::string_view text) {
  Operand op;
  text = trim(text);
  op.text = std::string(text);
  int64_t v = 0;
  if (text.starts_with("c[")) {
    op.kind = OperandKind::kConstant;
    const size_t close = text.find(']');
    const size_t open2 = text.find('[', close == std::string_view::npos ? 0 : close);
    const size_t close2 = text.find(']', open2 == std::string_view::npos ? 0 : open2);
    if (close == std::string_view::npos || open2 == std::string_view::npos ||
        close2 == std::string_view::npos) {
      op.kind = OperandKind::kOther;
      return op;
    }
    parse_int(text.substr(2, close - 2), v);
    op.bank = static_cast<uint32_t>(v);
    Operand inner;
    parse_address(text.substr(open2 + 1, close2 - open2 - 1), inner);
    op.offset = inner.offset;
    if (!inner.address.empty()) op.index = inner.address.front();
    return op;
  }
  if (text.find('[') != std::string_view::npos) {
    op.kind = OperandKind::kMemory;
    // [address], desc[URx][address], [smem][gmem] (bulk copies): every
    // bracket but a descriptor's adds its registers; the immediate is the
    // last bracket's.
    size_t open = text.find('[');
    while (open != std::string_view::npos) {
      const size_t close = text.find(']', open);
      const std::string_view before = text.substr(0, open);
      const bool descriptor = before.ends_with("desc");
      Operand bracket;
      parse_address(text.substr(open + 1, (close == std::string_view::npos ? text.size() : close) - open - 1),
                    bracket);
      if (!descriptor) {
        op.address.insert(op.address.end(), bracket.address.begin(), bracket.address.end());
        op.offset = bracket.offset;
      }
      if (close == std::string_view::npos) break;
      open = text.find('[', close);
    }
    return op;
  }
  if (text.find('@') != std::string_view::npos && text.find('(') != std::string_view::npos) {
    op.kind = OperandKind::kSymbol;  // 32@lo(symbol), 32@hi(symbol)
    op.relocation = true;
    return op;
  }
  if (auto r = parse_register(text)) {
    op.kind = OperandKind::kRegister;
    op.reg = *r;
    return op;
  }
  if (is_predicate(text)) {
    op.kind = OperandKind::kPredicate;
    return op;
  }
  std::string_view number = text;
  while (!number.empty() && (number.front() == '-' || number.front() == '|' || number.front() == '~'))
    number.remove_prefix(1);
  if (parse_int(text, v)) {
    op.kind = OperandKind::kImmediate;
    op.offset = v;
    return op;
  }
  if (!number.empty() &&
      (std::isdigit(static_cast<unsigned char>(number.front())) || number.starts_with("+INF") ||
       number.starts_with("INF") || number.starts_with("QNAN") || number.starts_with("NAN"))) {
    op.kind = OperandKind::kImmediate;  // a float
    return op;
  }
  if (text.starts_with("`") || text.starts_with("$") || text.starts_with("(") || text.starts_with("."))
    op.kind = OperandKind::kSymbol;
  else if (std::isalpha(static_cast<unsigned char>(text.front())) && !text.starts_with("SR_") &&
           !text.starts_with("SB") && !(text.size() <= 3 && text.front() == 'B'))
    op.kind = OperandKind::kSymbol;  // a function name
  return op;
}

Instruction parse_instruction(uint64_t address, std::string_view predicate, std::string_view opcode,
                              std::string_view operands) {
  Instruction ins;
  ins.address = address;
  ins.predicate = std::string(trim(predicate));
  ins.opcode = std::string(trim(opcode));
  size_t start = 0;
  for (;;) {
    const size_t dot = ins.opcode.find('.', start);
    const std::string part =
        ins.opcode.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (start == 0)
      ins.base = part;
    else
      ins.modifiers.push_back(part);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (const auto& text : split_operands(operands)) ins.operands.push_back(parse_operand(text));
  return ins;
}

}  // namespace racetrack::code
