// The forward data-flow analysis behind analyse_kernel (see
// docs/machine-code-modes.md for the lattice and the soundness argument).
//
// Every register (R0..R254, UR0..UR62) holds an abstract value: the
// parameter words it may carry pointer material from, flags for pointer
// material of other origins (loaded from memory, module constants, the
// driver's own bank-0 words), and whether it may be an address inside the
// parameter buffer itself (with its offset when known). Block states join
// at merges and the analysis iterates to a fixed point; local memory is one
// flow-insensitive summary. Memory instructions turn the value of their
// address into word modes.
#include <algorithm>
#include <array>
#include <deque>
#include <set>

#include "control_flow.h"
#include "opcode_traits.h"
#include "racetrack/code/access_modes.h"
#include "word_sets.h"

namespace racetrack::code {
namespace {

constexpr uint8_t kLoaded = 1;  // read from memory or returned by code not followed
constexpr uint8_t kModule = 2;  // module constants (banks other than 0), relocated symbols
constexpr uint8_t kDriver = 4;  // bank-0 words below or above the parameters (launch geometry, windows)

enum ParamAddress : uint8_t { kNotParam = 0, kParamExact = 1, kParamAny = 2 };

struct Value {
  uint32_t words = WordSets::kEmpty;
  uint8_t flags = 0;
  uint8_t param = kNotParam;
  int64_t param_offset = 0;  // byte offset in the parameter buffer when kParamExact
  bool operator==(const Value&) const = default;
  bool empty() const { return words == WordSets::kEmpty && flags == 0 && param == kNotParam; }
};

constexpr int kRegisters = 256 + 64;  // R0..R255, then UR0..UR63

// Address arithmetic wraps like the hardware's (and never overflows here).
int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

int slot(const RegRef& r) {
  return r.uniform ? 256 + r.index : r.index;
}
bool zero_slot(int s) {
  return s == kRZ || s == 256 + kURZ;
}

struct State {
  bool reached = false;
  bool waited = true;  // must-analysis: every path from the entry passed a grid-dependency wait
  std::array<Value, kRegisters> regs{};
};

// The bank-0 word that holds the generic address of the parameter buffer
// (how a kernel takes the address of a __grid_constant__ parameter, e.g.
// to hand a CUtensorMap to TMA), as nvcc 13 emits it per architecture:
// sm_90 c[0x0][0x198], sm_100+ c[0x0][0x348] point at the buffer itself;
// before sm_90 c[0x0][0x40] is the base of bank 0 (the buffer is at
// PARAM_CBANK's offset in it). Any other driver word is kDriver.
struct ParamWindow {
  uint32_t offset;
  int32_t delta;  // param offset the window word points at
};
ParamWindow param_window(uint32_t sm, uint32_t base) {
  if (sm >= 100) return {0x348, 0};
  if (sm >= 90) return {0x198, 0};
  return {0x40, -static_cast<int32_t>(base)};
}

class Analysis {
 public:
  Analysis(const KernelLayout& layout, uint32_t sm, const Supergraph& graph)
      : layout_(layout), graph_(graph), words_(layout.words()), modes_(words_, 0) {
    window_ = param_window(sm, *layout.param_base);
    all_words_ = halves(0, 8 * int64_t{words_} - 1);
    stored_halves_.assign(words_, 0);
  }

  KernelModes run() {
    states_.assign(graph_.blocks.size(), State{});
    states_[0].reached = true;
    states_[0].waited = false;
    for (int round = 0;; ++round) {
      const Value local_before = local_;
      std::deque<uint32_t> work;
      std::vector<char> queued(graph_.blocks.size(), 0);
      for (uint32_t b = 0; b < graph_.blocks.size(); ++b)
        if (states_[b].reached) {
          work.push_back(b);
          queued[b] = 1;
        }
      while (!work.empty()) {
        const uint32_t b = work.front();
        work.pop_front();
        queued[b] = 0;
        State out = states_[b];
        transfer_block(graph_.blocks[b], out);
        for (uint32_t s : graph_.blocks[b].successors)
          if (join_into(states_[s], out) && !queued[s]) {
            queued[s] = 1;
            work.push_back(s);
          }
      }
      if (local_ == local_before) break;  // the local-memory summary is stable too
    }
    return finish();
  }

 private:
  // --- values ----------------------------------------------------------
  Value join(const Value& a, const Value& b) {
    Value v;
    v.words = sets_.join(a.words, b.words);
    v.flags = a.flags | b.flags;
    if (a.param == kNotParam) {
      v.param = b.param;
      v.param_offset = b.param_offset;
    } else if (b.param == kNotParam) {
      v.param = a.param;
      v.param_offset = a.param_offset;
    } else if (a.param == kParamExact && b.param == kParamExact && a.param_offset == b.param_offset) {
      v.param = kParamExact;
      v.param_offset = a.param_offset;
    } else {
      v.param = kParamAny;
    }
    return v;
  }

  bool join_into(State& into, const State& from) {
    if (!into.reached) {
      into = from;
      return true;
    }
    bool changed = false;
    if (into.waited && !from.waited) {
      into.waited = false;
      changed = true;
    }
    for (int i = 0; i < kRegisters; ++i) {
      if (from.regs[i] == into.regs[i]) continue;
      const Value j = join(into.regs[i], from.regs[i]);
      if (!(j == into.regs[i])) {
        into.regs[i] = j;
        changed = true;
      }
    }
    return changed;
  }

  // Pointer material is tracked per 4-byte half of a word (element h is
  // bytes [4h, 4h + 4) of the buffer, word h / 2 + 1): a value made of one
  // half only cannot be a whole pointer.
  uint32_t halves(int64_t first_byte, int64_t last_byte) {
    first_byte = std::max<int64_t>(first_byte, 0);
    last_byte = std::min<int64_t>(last_byte, 8 * int64_t{words_} - 1);
    if (first_byte > last_byte) return WordSets::kEmpty;
    return sets_.range(static_cast<uint32_t>(first_byte / 4), static_cast<uint32_t>(last_byte / 4));
  }

  // A constant-bank operand's value, `bytes` wide.
  Value constant(const Operand& op, uint32_t bytes) {
    Value v;
    if (op.bank != 0) {
      v.flags = kModule;
      return v;
    }
    const int64_t base = *layout_.param_base;
    const int64_t rel = wrap_add(op.offset, -base);
    if (op.index) {
      // c[0x0][Rx+imm]: a run-time index into the buffer from imm on.
      if (rel < static_cast<int64_t>(layout_.param_size) && words_ > 0)
        v.words = halves(rel, 8 * int64_t{words_} - 1);
      if (rel < 0) v.flags |= kDriver;
      return v;
    }
    if (rel >= 0 && rel < static_cast<int64_t>(layout_.param_size)) {
      v.words = halves(rel, wrap_add(rel, int64_t{bytes} - 1));
      return v;
    }
    if (op.offset == window_.offset) {
      v.param = kParamExact;
      v.param_offset = window_.delta;
    } else if (op.offset == window_.offset + 4) {
      v.param = kParamAny;  // the window's high half
    } else {
      v.flags = kDriver;
    }
    return v;
  }

  Value reg(const State& s, const RegRef& r, bool pair) {
    const int i = slot(r);
    if (zero_slot(i)) return {};
    Value v = s.regs[i];
    if ((pair || r.pair) && i + 1 < kRegisters && !zero_slot(i + 1)) {
      // The low half says where in the parameter buffer a window address
      // points; the high half is the window's, whatever the offset.
      const Value lo = v;
      v = join(v, s.regs[i + 1]);
      if (lo.param != kNotParam) {
        v.param = lo.param;
        v.param_offset = lo.param_offset;
      }
    }
    return v;
  }

  // IADD3 / VIADD of a window address and constants keeps the offset exact.
  bool add_to_param_address(const Instruction& ins, State& s, size_t first_source, int dest) {
    if (dest < 0) return false;
    if (ins.base != "IADD3" && ins.base != "UIADD3" && ins.base != "VIADD" && ins.base != "IADD" &&
        ins.base != "IADD32I")
      return false;
    if (ins.has_modifier("X")) return false;
    const Value* base = nullptr;
    int64_t sum = 0;
    for (size_t i = first_source; i < ins.operands.size(); ++i) {
      const Operand& op = ins.operands[i];
      if (op.kind == OperandKind::kPredicate) continue;
      if (op.kind == OperandKind::kImmediate && op.text.find_first_of(".e") == std::string::npos) {
        if (op.text.front() == '-' || op.text.front() == '~' || op.text.front() == '|') return false;
        sum = wrap_add(sum, op.offset);
        continue;
      }
      if (op.kind == OperandKind::kRegister && op.reg.zero()) continue;
      if (op.kind != OperandKind::kRegister || base) return false;
      base = &s.regs[slot(op.reg)];
    }
    if (!base || base->param != kParamExact) return false;
    Value v = *base;
    v.param_offset = wrap_add(v.param_offset, sum);
    write(s, slot(ins.operands[dest].reg), v, !ins.guarded());
    return true;
  }

  Value operand(const State& s, const Operand& op, bool pair, uint32_t const_bytes) {
    switch (op.kind) {
      case OperandKind::kRegister: return reg(s, op.reg, pair);
      case OperandKind::kConstant: return constant(op, const_bytes);
      case OperandKind::kSymbol: return op.relocation ? Value{WordSets::kEmpty, kModule, 0, 0} : Value{};
      default: return {};
    }
  }

  // The address a memory operand forms; global and generic addresses are
  // 64-bit, so a register without ".U32" is read with its pair.
  Value address(const State& s, const Operand& mem, bool wide) {
    Value v;
    for (const RegRef& r : mem.address) v = join(v, reg(s, r, wide && !r.narrow));
    if (v.param == kParamExact) v.param_offset = wrap_add(v.param_offset, mem.offset);
    return v;
  }

  void write(State& s, int index, const Value& v, bool strong) {
    if (index < 0 || index >= kRegisters || zero_slot(index)) return;
    s.regs[index] = strong ? v : join(s.regs[index], v);
  }

  // --- results ---------------------------------------------------------
  void note(std::string text) {
    if (notes_.size() < 16 && std::find(notes_.begin(), notes_.end(), text) == notes_.end())
      notes_.push_back(std::move(text));
  }
  static std::string where(const Instruction& ins) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " at 0x%04llx", static_cast<unsigned long long>(ins.address));
    return ins.opcode + buf;
  }

  void mark(uint32_t word_set, uint8_t bits) {
    for (uint32_t h : sets_.words(word_set))
      if (h / 2 < words_) modes_[h / 2] |= bits;
  }
  static constexpr uint8_t kR = 1, kW = 2, kE = 4;

  // A value stored where others may load it: the words whose two halves
  // both get stored (by this or another store) escape at the end.
  void escape(const Value& v, const Instruction& ins, const char* how) {
    if (v.words != WordSets::kEmpty) {
      std::string list;
      uint32_t last = UINT32_MAX;
      for (uint32_t h : sets_.words(v.words)) {
        if (h / 2 >= words_) continue;
        stored_halves_[h / 2] |= static_cast<uint8_t>(1 << (h % 2));
        if (h / 2 != last) list += (list.empty() ? "" : ",") + std::to_string(h / 2 + 1);
        last = h / 2;
      }
      if (escape_notes_.size() < 64)  // enough to say why; a big kernel has thousands of stores
        escape_notes_.emplace_back(v.words, "word " + list + " " + how + " (" + where(ins) + ")");
    }
    if (v.param != kNotParam) {
      mark(all_words_, kE);
      note(std::string("the parameter buffer's address ") + how + " (" + where(ins) + ")");
    }
  }

  // A global or generic access through `addr`.
  void access(const Value& addr, MemoryEffect effect, const Instruction& ins, bool waited) {
    const uint8_t bits = (effect.reads ? kR : 0) | (effect.writes ? kW : 0);
    mark(addr.words, bits);
    if (addr.flags & (kLoaded | kModule)) indirect_ = true;
    if (addr.param != kNotParam && effect.writes) {
      mark(all_words_, kE);
      note("a store into the parameter buffer (" + where(ins) + ")");
    }
    if (!addr.empty() &&
        !(addr.flags == kDriver && addr.words == WordSets::kEmpty && addr.param == kNotParam)) {
      if (!waited) before_wait_ = true;
    }
  }

  // TMA: the address is a tensor map's (128 bytes), the data address is inside it.
  void tensor_access(const Value& map, MemoryEffect effect, const Instruction& ins, bool waited) {
    const uint8_t bits = (effect.reads ? kR : 0) | (effect.writes ? kW : 0);
    if (map.param == kParamExact && words_ > 0) {
      mark(halves(map.param_offset, wrap_add(map.param_offset, 127)), bits);
    } else if (map.param == kParamAny) {
      mark(all_words_, bits);
    }
    if (map.words != WordSets::kEmpty) {  // the map itself is in global memory: its contents are unknown
      mark(map.words, kR);
      indirect_ = true;
    }
    if (map.flags & (kLoaded | kModule | kDriver)) indirect_ = true;
    if (!waited) before_wait_ = true;
    (void)ins;
  }

  // What a load through `addr` gives.
  Value loaded(const Value& addr, OpClass cls, uint32_t bytes) {
    if (cls == OpClass::kLocalLoad) return local_;  // only the thread's own stores put values there
    Value v;
    const bool param_only = addr.words == WordSets::kEmpty && !(addr.flags & (kLoaded | kModule));
    if (addr.param == kParamExact && words_ > 0) {
      v.words = halves(addr.param_offset, wrap_add(addr.param_offset, static_cast<int64_t>(bytes) - 1));
    } else if (addr.param == kParamAny || (addr.flags == kDriver && addr.words == WordSets::kEmpty)) {
      v.words = all_words_;  // an address made of driver words only may be a window onto the buffer
    }
    if (!(param_only && addr.param != kNotParam)) v.flags |= kLoaded;
    if (cls == OpClass::kGenericLoad) v = join(v, local_);  // it may be local memory
    return v;
  }

  // The registers a store or atomic writes to memory (all of a vector).
  // Byte and half-word stores hold no pointer: compilers fill the unused
  // bytes of their register from anything (PRMT), so they are not counted
  // (docs/machine-code-modes.md, "Limits").
  Value stored_data(const State& s, const Instruction& ins, size_t from) {
    for (const auto& m : ins.modifiers)
      if (m == "U8" || m == "S8" || m == "U16" || m == "S16") return {};
    int count = 1;
    for (const auto& m : ins.modifiers) {
      if (m == "64") count = std::max(count, 2);
      if (m == "128") count = std::max(count, 4);
      if (m == "256") count = std::max(count, 8);
    }
    Value v;
    for (size_t i = from; i < ins.operands.size(); ++i) {
      const Operand& op = ins.operands[i];
      if (op.kind == OperandKind::kMemory) continue;
      if (op.kind != OperandKind::kRegister) {
        v = join(v, operand(s, op, false, 8));
        continue;
      }
      const int first = slot(op.reg);
      for (int r = 0; r < count && first + r < kRegisters; ++r)
        if (!zero_slot(first + r)) v = join(v, s.regs[first + r]);
    }
    return v;
  }

  // --- transfer --------------------------------------------------------
  void transfer_block(const Block& b, State& s) {
    const auto& code = graph_.functions[b.function]->instructions;
    for (uint32_t i = b.first; i <= b.last; ++i) transfer(code[i], s);
  }

  void transfer(const Instruction& ins, State& s) {
    if (ins.never()) return;
    const OpClass cls = classify(ins);
    const bool guarded = ins.guarded();
    const int dest = dest_operand(ins, cls);
    const DestWidth width = dest_width(ins, cls);
    const bool pairs = reads_pairs(ins);
    const uint32_t const_bytes = pairs ? 8 : 4;
    auto sources_from = [&](size_t from, bool skip_memory) {
      Value v;
      for (size_t i = from; i < ins.operands.size(); ++i) {
        if (skip_memory && ins.operands[i].kind == OperandKind::kMemory) continue;
        v = join(v, operand(s, ins.operands[i], pairs, const_bytes));
      }
      return v;
    };
    const size_t first_source = dest >= 0 ? static_cast<size_t>(dest) + 1 : 0;
    auto put = [&](const Value& v, bool exact_width) {
      if (dest < 0) return;
      const int d = slot(ins.operands[dest].reg);
      for (int r = 0; r < width.registers; ++r)
        write(s, d + r, v, !guarded && (r == 0 || (exact_width && width.exact)));
    };
    const Operand* mem = nullptr;
    for (const auto& op : ins.operands)
      if (op.kind == OperandKind::kMemory) mem = &op;

    switch (cls) {
      case OpClass::kAlu:
        if (add_to_param_address(ins, s, first_source, dest)) return;
        // A funnel shift left by a constant scales an index: no pointer.
        if ((ins.base == "SHF" || ins.base == "USHF") && ins.has_modifier("L")) {
          for (size_t i = first_source; i < ins.operands.size(); ++i)
            if (ins.operands[i].kind == OperandKind::kImmediate && ins.operands[i].offset != 0) {
              put(Value{}, true);
              return;
            }
        }
        {
          Value v = sources_from(first_source, false);
          // Arithmetic other than a plain move or a constant add (above) on
          // a parameter-buffer address leaves where it points unknown.
          if (v.param == kParamExact && ins.base != "MOV" && ins.base != "UMOV" && ins.base != "R2UR")
            v.param = kParamAny;
          put(v, true);
        }
        return;
      case OpClass::kNoPointer: put(Value{}, true); return;
      case OpClass::kShiftLeft: {
        // A left shift by a constant other than 0, or a product: no pointer.
        bool by_constant = false;
        for (size_t i = first_source; i < ins.operands.size(); ++i)
          if (ins.operands[i].kind == OperandKind::kImmediate && ins.operands[i].offset != 0)
            by_constant = true;
        put(by_constant || ins.base != "SHL" ? Value{} : sources_from(first_source, false), true);
        return;
      }
      case OpClass::kProduct: {
        // d = a * b + c: the product carries a pointer only when a factor is 1.
        std::vector<const Operand*> src;
        for (size_t i = first_source; i < ins.operands.size(); ++i)
          if (ins.operands[i].kind != OperandKind::kPredicate) src.push_back(&ins.operands[i]);
        Value v;
        auto is_one = [](const Operand* o) { return o->kind == OperandKind::kImmediate && o->offset == 1; };
        if (src.size() >= 2) {
          if (is_one(src[1])) v = join(v, operand(s, *src[0], false, 4));
          if (is_one(src[0])) v = join(v, operand(s, *src[1], false, 4));
        }
        const bool wide = ins.has_modifier("WIDE");
        for (size_t i = 2; i < src.size(); ++i) v = join(v, operand(s, *src[i], wide, wide ? 8 : 4));
        put(v, true);
        return;
      }
      case OpClass::kLea: {
        // LEA d, a, b[, c], shift: d = (a[:c] << shift) + b.
        std::vector<const Operand*> src;
        for (size_t i = first_source; i < ins.operands.size(); ++i)
          if (ins.operands[i].kind != OperandKind::kPredicate) src.push_back(&ins.operands[i]);
        const bool shifted =
            !src.empty() && src.back()->kind == OperandKind::kImmediate && src.back()->offset != 0;
        Value v;
        for (size_t i = 0; i < src.size(); ++i)
          if (!shifted || i == 1) v = join(v, operand(s, *src[i], false, 4));
        put(v, true);
        return;
      }
      case OpClass::kConstLoad: {
        if (dest < 0 || !mem_constant(ins)) {
          put(sources_from(first_source, false), false);
          return;
        }
        const Operand& c = *mem_constant(ins);
        const int d = slot(ins.operands[dest].reg);
        for (int r = 0; r < width.registers; ++r) {
          Operand part = c;
          part.offset += 4 * r;
          write(s, d + r, constant(part, 4), !guarded);
        }
        return;
      }
      case OpClass::kGlobalLoad:
      case OpClass::kGenericLoad:
      case OpClass::kLocalLoad:
      case OpClass::kSharedLoad: {
        Value result;
        if (cls == OpClass::kSharedLoad || !mem) {
          result.flags = kLoaded;
        } else {
          const Value addr = address(s, *mem, cls != OpClass::kLocalLoad);
          if (cls != OpClass::kLocalLoad) access(addr, memory_effect(ins, cls), ins, s.waited);
          result = loaded(addr, cls, 4 * width.registers);
        }
        put(result, true);
        return;
      }
      case OpClass::kLocalStore: local_ = join(local_, stored_data(s, ins, 0)); return;
      case OpClass::kSharedStore: escape(stored_data(s, ins, 0), ins, "stored to shared memory"); return;
      case OpClass::kGlobalStore:
      case OpClass::kGenericStore:
      case OpClass::kAsyncCopyIn: {
        if (mem) access(address(s, *mem, true), memory_effect(ins, cls), ins, s.waited);
        if (cls != OpClass::kAsyncCopyIn) {
          const Value data = stored_data(s, ins, 0);
          escape(data, ins, "stored to memory");
          if (cls == OpClass::kGenericStore) local_ = join(local_, data);  // it may be local memory
        }
        return;
      }
      case OpClass::kAtomic:
      case OpClass::kSharedAtomic: {
        if (mem && cls == OpClass::kAtomic)
          access(address(s, *mem, true), memory_effect(ins, cls), ins, s.waited);
        const Value data = stored_data(s, ins, first_source);
        escape(data, ins, "stored to memory by an atomic");
        if (ins.base == "ATOM") local_ = join(local_, data);
        put(Value{WordSets::kEmpty, kLoaded, 0, 0}, true);
        return;
      }
      case OpClass::kBulkCopy:
        if (mem) access(address(s, *mem, true), memory_effect(ins, cls), ins, s.waited);
        return;
      case OpClass::kTensorCopy:
        if (mem) tensor_access(address(s, *mem, true), memory_effect(ins, cls), ins, s.waited);
        return;
      case OpClass::kGridWait:
        wait_seen_ = true;
        if (!guarded) s.waited = true;
        return;
      case OpClass::kCall: call(ins, s); return;
      case OpClass::kBranch:
      case OpClass::kIndirectBranch:
      case OpClass::kExit:
      case OpClass::kReturn:
      case OpClass::kConvergence:
      case OpClass::kNoEffect: return;
      case OpClass::kUnknown: unknown(ins, s); return;
    }
  }

  const Operand* mem_constant(const Instruction& ins) const {
    for (const auto& op : ins.operands)
      if (op.kind == OperandKind::kConstant) return &op;
    return nullptr;
  }

  void call(const Instruction& ins, State& s) {
    const std::string target = call_target(ins);
    bool internal = false;
    for (const auto* f : graph_.functions) internal |= f->name == target;
    if (internal) return;  // followed through the supergraph
    // printf and assert only read their arguments.
    if (target == "vprintf" || target == "__assertfail") {
      for (int r = 4; r < 8; ++r) write(s, r, Value{WordSets::kEmpty, kLoaded, 0, 0}, false);
      return;
    }
    // Code we cannot see: whatever it was handed may be written through,
    // and it may touch any memory.
    // It can read every parameter from the constant bank itself.
    mark(all_words_, kE);
    indirect_ = true;
    note("a call into code racetrack cannot follow (" + (target.empty() ? ins.opcode : target) + ")");
    for (int r = 0; r < kRegisters; ++r) write(s, r, Value{WordSets::kEmpty, kLoaded, 0, 0}, false);
  }

  void unknown(const Instruction& ins, State& s) {
    // An instruction this analysis does not know: what it reads may be
    // stored anywhere, what it writes may be anything.
    note("instruction not understood: " + ins.opcode);
    Value all;
    for (const auto& op : ins.operands) {
      if (op.kind == OperandKind::kMemory) {
        const Value addr = address(s, op, true);
        all = join(all, addr);
        if (addr.flags & (kLoaded | kModule)) indirect_ = true;
        if (!s.waited && !addr.empty()) before_wait_ = true;
      } else {
        all = join(all, operand(s, op, true, 8));
      }
    }
    bool has_memory = false;
    for (const auto& op : ins.operands) has_memory |= op.kind == OperandKind::kMemory;
    if (has_memory) escape(all, ins, "used by an instruction racetrack does not know");
    const int dest = dest_operand(ins, OpClass::kUnknown);
    if (dest >= 0) {
      Value v = all;
      v.flags |= kLoaded;
      const int d = slot(ins.operands[dest].reg);
      for (int r = 0; r < 4; ++r) write(s, d + r, v, false);
    }
  }

  // A word no parameter of 8 bytes or more overlaps (a 4-byte scalar and
  // padding) cannot hold a pointer, whatever flowed from it.
  bool may_hold_pointer(uint32_t word) const {
    if (layout_.params.empty()) return true;
    const uint32_t lo = 8 * (word - 1), hi = 8 * word;
    for (const auto& p : layout_.params)
      if (p.size >= 8 && p.offset < hi && p.offset + p.size > lo) return true;
    return false;
  }

  bool may_hold_pointer_any(uint32_t set) const {
    for (uint32_t h : sets_.words(set))
      if (h / 2 < words_ && stored_halves_[h / 2] == 3 && may_hold_pointer(h / 2 + 1)) return true;
    return false;
  }

  KernelModes finish() {
    for (uint32_t w = 0; w < words_; ++w)
      if (stored_halves_[w] == 3) modes_[w] |= kE;
    for (const auto& [set, text] : escape_notes_) {
      bool whole = false;
      for (uint32_t h : sets_.words(set)) whole |= h / 2 < words_ && stored_halves_[h / 2] == 3;
      if (whole && may_hold_pointer_any(set)) note(text);
    }
    KernelModes out;
    out.words.resize(words_);
    for (uint32_t w = 0; w < words_; ++w) {
      const uint8_t m = may_hold_pointer(w + 1) ? modes_[w] : 0;
      out.words[w] = (m & kE) ? WordMode::kEscapes : static_cast<WordMode>(m & 3);
    }
    out.grid_dependency_wait = wait_seen_;
    out.accesses_before_wait = before_wait_;
    out.indirect_access = indirect_;
    out.notes = graph_.notes;
    out.notes.insert(out.notes.end(), notes_.begin(), notes_.end());
    return out;
  }

  const KernelLayout& layout_;
  const Supergraph& graph_;
  uint32_t words_;
  WordSets sets_;
  uint32_t all_words_ = WordSets::kEmpty;
  std::vector<uint8_t> stored_halves_;
  std::vector<std::pair<uint32_t, std::string>>
      escape_notes_;  // half sets stored, and where  // per word: bit 0 low half, bit 1 high half stored
                      // somewhere
  ParamWindow window_{};
  std::vector<State> states_;
  Value local_;
  std::vector<uint8_t> modes_;
  bool wait_seen_ = false, before_wait_ = false, indirect_ = false;
  std::vector<std::string> notes_;
};

}  // namespace

WordMode join(WordMode a, WordMode b) {
  if (a == WordMode::kEscapes || b == WordMode::kEscapes) return WordMode::kEscapes;
  return static_cast<WordMode>(static_cast<uint8_t>(a) | static_cast<uint8_t>(b));
}

const char* mode_name(WordMode mode) {
  switch (mode) {
    case WordMode::kNone: return "none";
    case WordMode::kRead: return "read";
    case WordMode::kWrite: return "write";
    case WordMode::kReadWrite: return "read-write";
    case WordMode::kEscapes: return "escapes";
  }
  return "escapes";
}

bool parse_mode_name(const std::string& name, WordMode& out) {
  for (WordMode m :
       {WordMode::kNone, WordMode::kRead, WordMode::kWrite, WordMode::kReadWrite, WordMode::kEscapes})
    if (name == mode_name(m)) {
      out = m;
      return true;
    }
  return false;
}

void merge_into(KernelModes& into, const KernelModes& other) {
  if (into.words.size() < other.words.size()) into.words.resize(other.words.size(), WordMode::kNone);
  for (size_t i = 0; i < other.words.size(); ++i) into.words[i] = join(into.words[i], other.words[i]);
  into.grid_dependency_wait = into.grid_dependency_wait && other.grid_dependency_wait;
  into.accesses_before_wait = into.accesses_before_wait || other.accesses_before_wait;
  into.indirect_access = into.indirect_access || other.indirect_access;
  for (const auto& n : other.notes)
    if (std::find(into.notes.begin(), into.notes.end(), n) == into.notes.end()) into.notes.push_back(n);
}

KernelModes analyse_kernel(const KernelLayout& layout, uint32_t sm,
                           const std::vector<DisassembledFunction>& functions) {
  KernelModes out;
  out.name = layout.name;
  auto unknown_all = [&](std::string why) {
    out.words.assign(layout.words(), WordMode::kEscapes);
    out.indirect_access = true;
    out.accesses_before_wait = true;
    out.notes.push_back(std::move(why));
    return out;
  };
  if (!layout.param_base)
    return unknown_all("the cubin gives no parameter layout (EIATTR_PARAM_CBANK) for this kernel");
  const Supergraph graph = build_supergraph(layout.name, functions);
  if (graph.blocks.empty()) return unknown_all("nvdisasm printed no code for this kernel");
  KernelModes result = Analysis(layout, sm, graph).run();
  result.name = layout.name;
  return result;
}

}  // namespace racetrack::code
