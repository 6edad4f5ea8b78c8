#include <iostream>
#include <optional>

#include "commands.h"
#include "numbers.h"
#include "racetrack/traces/describe.h"
#include "racetrack/traces/trace_io.h"

namespace racetrack::cli {
namespace {

struct DumpOptions {
  std::string path;
  std::string stream;  // id or name
  uint64_t from = 0;
  uint64_t to = UINT64_MAX;
  std::string kind;
};

bool stream_matches(const std::string& wanted, const v1::Op& op, const TraceTables& tables) {
  if (wanted.empty()) return true;
  if (!op.stream()) return false;
  if (wanted == std::to_string(op.stream())) return true;
  const v1::Stream* s = tables.stream(op.stream());
  return s && (tables.string(s->name()) == wanted || role_name(s->role()) == wanted);
}

// "  words 1=0x7f0000000000 2=0x40000": a kernel's argument words with the
// 1-based indices `check --kernel-modes` rules name.
std::string argument_words(const v1::Op& op) {
  if (!op.has_kernel() || op.kernel().arg_words_size() == 0) return {};
  std::string out = "  words";
  for (int i = 0; i < op.kernel().arg_words_size(); ++i)
    out += " " + std::to_string(i + 1) + "=" + hex(op.kernel().arg_words(i));
  return out;
}

int dump(const DumpOptions& o) {
  if (o.from > o.to) {
    std::cerr << "dump: --from " << o.from << " is after --to " << o.to << ": nothing to print\n";
    return kExitBadInput;
  }
  std::optional<OpKind> kind;
  if (!o.kind.empty()) {
    kind = op_kind_from_name(o.kind);
    if (*kind == OpKind::kNone) {
      std::cerr << "dump: unknown op kind '" << o.kind
                << "' (kernel, memcpy, memset, record, wait, sync, query, alloc, free, hostfn, graph, annotate, "
                   "hostaccess)\n";
      return kExitBadInput;
    }
  }
  auto source = TraceSource::open(o.path);
  if (!source) {
    std::cerr << source.error().describe() << "\n";
    return kExitBadInput;
  }
  TraceTables tables;
  for (;;) {
    auto more = source->read();
    if (!more) {
      std::cerr << more.error().describe() << "\n";
      return kExitBadInput;
    }
    if (!*more) return kExitOk;
    const v1::Chunk& chunk = **more;
    tables.add(chunk);
    for (const v1::Op& op : chunk.ops()) {
      if (op.seq() < o.from) continue;
      if (op.seq() > o.to) return kExitOk;
      if (kind && op_kind(op) != *kind) continue;
      if (!stream_matches(o.stream, op, tables)) continue;
      std::cout << describe_op(op, tables) << argument_words(op) << "\n";
    }
  }
}

}  // namespace

void add_dump(CLI::App& app, int& exit_code) {
  auto* cmd =
      app.add_subcommand("dump", "Print one readable line per op (kernels with their argument words)");
  auto o = std::make_shared<DumpOptions>();
  cmd->add_option("FILE", o->path, "trace (.rtrace, .pbtxt or .json)")->required();
  cmd->add_option("--stream", o->stream, "only ops on this stream (id, name or role)");
  add_number(cmd, "--from", o->from, "first seq to print");
  add_number(cmd, "--to", o->to, "last seq to print");
  cmd->add_option("--kind", o->kind, "only ops of this kind (kernel, memcpy, record, wait, ...)");
  cmd->callback([o, &exit_code] { exit_code = dump(*o); });
}

}  // namespace racetrack::cli
