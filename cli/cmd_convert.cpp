#include <iostream>

#include "commands.h"
#include "racetrack/diverge/values_trace.h"
#include "racetrack/traces/output_file.h"
#include "racetrack/traces/trace_io.h"

namespace racetrack::cli {
namespace {

struct ConvertOptions {
  std::string in, out;
  bool compress = false;
};

// Binary to binary streams chunk by chunk; anything involving text or JSON
// holds the whole trace (those encodings are one message).
int convert(const ConvertOptions& o) {
  if (auto usable = check_output(o.out, {o.in}); !usable) {
    std::cerr << usable.error().describe() << "\n";
    return kExitBadInput;
  }
  WriterOptions writer_options;
  writer_options.compress = o.compress;
  if (diverge::is_values_record(o.in)) {  // racetrack_torch's values record: its operators as a trace
    auto record = diverge::read_values(o.in);
    if (!record) {
      std::cerr << record.error().describe() << "\n";
      return kExitBadInput;
    }
    if (auto s = diverge::write_values_trace(*record, o.out, writer_options); !s) {
      std::cerr << s.error().describe() << "\n";
      return kExitBadInput;
    }
    return kExitOk;
  }
  if (encoding_for_write(o.out) == Encoding::kBinary) {
    auto source = TraceSource::open(o.in);
    if (!source) {
      std::cerr << source.error().describe() << "\n";
      return kExitBadInput;
    }
    auto writer = TraceWriter::create(o.out, writer_options);
    if (!writer) {
      std::cerr << writer.error().describe() << "\n";
      return kExitBadInput;
    }
    v1::Chunk chunk;
    for (;;) {
      auto more = source->next(chunk);
      if (!more) {
        // Keep what was complete: the output holds every chunk before the bad one.
        (void)writer->close();
        std::cerr << more.error().describe() << "\n"
                  << o.out << ": kept the complete chunks before the error\n";
        return kExitBadInput;
      }
      if (!*more) break;
      // Text/JSON traces are one chunk; split its ops into normal-sized chunks.
      auto& pending = writer->pending();
      const auto ops = std::move(*chunk.mutable_ops());
      chunk.clear_ops();
      append_chunk(pending, chunk);
      for (const auto& op : ops) {
        *pending.add_ops() = op;
        if (auto s = writer->commit_if_full(); !s) {
          std::cerr << s.error().describe() << "\n";
          return kExitBadInput;
        }
      }
    }
    if (auto s = writer->close(); !s) {
      std::cerr << s.error().describe() << "\n";
      return kExitBadInput;
    }
    return kExitOk;
  }
  auto trace = load_trace(o.in);
  if (!trace) {
    std::cerr << trace.error().describe() << "\n";
    return kExitBadInput;
  }
  if (auto s = save_trace(*trace, o.out, writer_options); !s) {
    std::cerr << s.error().describe() << "\n";
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace

void add_convert(CLI::App& app, int& exit_code) {
  auto* cmd =
      app.add_subcommand("convert", "Convert between binary (.rtrace), text (.pbtxt) and JSON (.json)");
  auto o = std::make_shared<ConvertOptions>();
  cmd->add_option("IN", o->in, "input trace, or a values record (racetrack_torch, .jsonl) to make a trace of")
      ->required();
  cmd->add_option("OUT", o->out, "output trace; the extension picks the encoding")->required();
  cmd->add_flag("--compress", o->compress, "zstd-compress binary chunks");
  cmd->callback([o, &exit_code] { exit_code = convert(*o); });
}

}  // namespace racetrack::cli
