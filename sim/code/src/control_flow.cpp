#include "control_flow.h"

#include <map>
#include <set>
#include <unordered_map>

namespace racetrack::code {
namespace {

bool ends_block(OpClass c) {
  switch (c) {
    case OpClass::kBranch:
    case OpClass::kIndirectBranch:
    case OpClass::kExit:
    case OpClass::kReturn:
    case OpClass::kCall:
    case OpClass::kConvergence: return true;
    default: return false;
  }
}

// The address a branch or BSSY names, when it is a number.
std::optional<uint64_t> branch_target(const Instruction& ins) {
  for (auto it = ins.operands.rbegin(); it != ins.operands.rend(); ++it)
    if (it->kind == OperandKind::kImmediate) return static_cast<uint64_t>(it->offset);
  return std::nullopt;
}

}  // namespace

std::string call_target(const Instruction& call) {
  for (const auto& op : call.operands) {
    if (op.kind != OperandKind::kSymbol) continue;
    std::string name = op.text;
    if (name.starts_with("`(") && name.ends_with(")")) name = name.substr(2, name.size() - 3);
    return name;
  }
  return {};
}

Supergraph build_supergraph(const std::string& kernel, const std::vector<DisassembledFunction>& all) {
  Supergraph g;
  std::unordered_map<std::string, uint32_t> by_name;
  for (uint32_t i = 0; i < all.size(); ++i) by_name.emplace(all[i].name, i);
  auto kernel_it = by_name.find(kernel);
  if (kernel_it == by_name.end()) return g;

  // Functions reached from the kernel, in discovery order (the kernel first).
  std::vector<uint32_t> order{kernel_it->second};
  std::map<uint32_t, uint32_t> local_index{{kernel_it->second, 0}};
  for (size_t f = 0; f < order.size(); ++f)
    for (const auto& ins : all[order[f]].instructions)
      if (classify(ins) == OpClass::kCall) {
        auto callee = by_name.find(call_target(ins));
        if (callee != by_name.end() && local_index.emplace(callee->second, order.size()).second)
          order.push_back(callee->second);
      }

  std::vector<uint32_t> entry_block(order.size());
  std::vector<std::map<uint64_t, uint32_t>> block_at(order.size());  // address -> block
  std::vector<std::vector<uint32_t>> blocks_of(order.size());
  for (uint32_t f = 0; f < order.size(); ++f) {
    const DisassembledFunction& fn = all[order[f]];
    g.functions.push_back(&fn);
    const auto& code = fn.instructions;
    if (code.empty()) {
      entry_block[f] = UINT32_MAX;
      continue;
    }
    bool indirect = false;
    std::set<uint64_t> leaders{code.front().address};
    for (size_t i = 0; i < code.size(); ++i) {
      const OpClass c = classify(code[i]);
      if (c == OpClass::kIndirectBranch) indirect = true;
      if (ends_block(c) && i + 1 < code.size()) leaders.insert(code[i + 1].address);
      if (c == OpClass::kBranch)
        if (auto t = branch_target(code[i])) leaders.insert(*t);
    }
    if (indirect) {
      // An indirect branch may land anywhere: every instruction starts a block.
      for (const auto& ins : code) leaders.insert(ins.address);
      g.notes.push_back(fn.name +
                        ": an indirect branch (jump table); every instruction is taken as its target");
    }
    entry_block[f] = static_cast<uint32_t>(g.blocks.size());
    for (size_t i = 0; i < code.size();) {
      Block b;
      b.function = f;
      b.first = static_cast<uint32_t>(i);
      size_t j = i + 1;
      while (j < code.size() && !leaders.count(code[j].address)) ++j;
      b.last = static_cast<uint32_t>(j - 1);
      block_at[f][code[i].address] = static_cast<uint32_t>(g.blocks.size());
      blocks_of[f].push_back(static_cast<uint32_t>(g.blocks.size()));
      g.blocks.push_back(b);
      i = j;
    }
  }

  // Return sites per callee: the block after each call to it.
  std::vector<std::vector<uint32_t>> return_sites(order.size());
  for (uint32_t b = 0; b < g.blocks.size(); ++b) {
    const Block& blk = g.blocks[b];
    const auto& ins = g.functions[blk.function]->instructions[blk.last];
    if (classify(ins) != OpClass::kCall || blk.last + 1 >= g.functions[blk.function]->instructions.size())
      continue;
    if (auto callee = by_name.find(call_target(ins)); callee != by_name.end())
      return_sites[local_index[callee->second]].push_back(b + 1);
  }

  for (uint32_t b = 0; b < g.blocks.size(); ++b) {
    Block& blk = g.blocks[b];
    const auto& code = g.functions[blk.function]->instructions;
    const Instruction& ins = code[blk.last];
    const bool has_next = blk.last + 1 < code.size();
    const uint32_t next = b + 1;  // blocks of a function are consecutive
    auto add = [&blk](uint32_t s) { blk.successors.push_back(s); };
    auto all_blocks = [&] {
      for (uint32_t s : blocks_of[blk.function]) add(s);
    };
    switch (classify(ins)) {
      case OpClass::kBranch: {
        const auto t = branch_target(ins);
        auto found = t ? block_at[blk.function].find(*t) : block_at[blk.function].end();
        if (found != block_at[blk.function].end()) {
          add(found->second);
        } else {
          g.notes.push_back(g.functions[blk.function]->name + ": branch at " + std::to_string(ins.address) +
                            " to an unknown target; every block is taken as its target");
          all_blocks();
        }
        if (ins.guarded() && has_next) add(next);
        break;
      }
      case OpClass::kConvergence:
        // BSSY only names where a divergent region reconverges: threads get
        // there through the branches and the BSYNC, never from the BSSY.
        if (has_next) add(next);
        break;
      case OpClass::kIndirectBranch: all_blocks(); break;
      case OpClass::kExit:
        if (ins.guarded() && has_next) add(next);
        break;
      case OpClass::kReturn:
        for (uint32_t s : return_sites[blk.function]) add(s);
        if (ins.guarded() && has_next) add(next);
        break;
      case OpClass::kCall: {
        // A call into the cubin goes to the callee, whose returns come back
        // to the next block with every register it left alone; other calls
        // (their effect is in the transfer) fall through.
        auto callee = by_name.find(call_target(ins));
        const uint32_t entry =
            callee != by_name.end() ? entry_block[local_index[callee->second]] : UINT32_MAX;
        if (entry != UINT32_MAX) add(entry);
        if ((entry == UINT32_MAX || ins.guarded()) && has_next) add(next);
        break;
      }
      default:
        if (has_next) add(next);
    }
  }
  return g;
}

}  // namespace racetrack::code
