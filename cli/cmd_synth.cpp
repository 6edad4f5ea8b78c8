#include <filesystem>
#include <iostream>

#include "commands.h"
#include "numbers.h"
#include "racetrack/code/access_modes.h"
#include "racetrack/traces/output_file.h"
#include "racetrack/traces/synth.h"
#include "racetrack/traces/trace_io.h"
#include "synth_ranks.h"

namespace racetrack::cli {
namespace {

struct SynthArgs {
  SynthOptions options;
  std::string out;
  std::string truth;
  std::string schedule = "1f1b";
  std::string modes = "known";
  std::vector<std::string> inject;
  uint32_t ranks = 1;
  bool no_compress = false;
};

// "C3", "C3:2" (two of them), "C3@5" (from iteration 5 on), "C3:2@5"; "all"
// stands for every shape ("all:2" is two of each). One --inject may list
// several, separated by commas.
bool parse_injection(const std::string& spec, SynthOptions& o) {
  const auto at = spec.find('@');
  const std::string head = spec.substr(0, at);
  const auto colon = head.find(':');
  const std::string shape = head.substr(0, colon);
  uint32_t count = 1;
  uint64_t from = 0;
  if (colon != std::string::npos && !parse_number(std::string_view(head).substr(colon + 1), count).empty())
    return false;
  if (at != std::string::npos && !parse_number(std::string_view(spec).substr(at + 1), from).empty())
    return false;
  if (at != std::string::npos && from == 0) return false;  // iteration 0 is the warm-up
  bool matched = false;
  for (int s = 0; s < kHazardShapeCount; ++s)
    if (shape == "all" || shape == shape_name(static_cast<HazardShape>(s))) {
      o.inject[s] += count;
      if (from) o.inject_from_iteration[s] = from;
      matched = true;
    }
  return matched;
}

std::string shape_list() {
  std::string out;
  for (int s = 0; s < kHazardShapeCount; ++s)
    out += (s ? " " : "") + std::string(shape_name(static_cast<HazardShape>(s)));
  return out;
}

const char* placement_hint(HazardShape shape) {
  switch (shape) {
    case HazardShape::kC3: return " (C3 needs --schedule 1f1b)";
    case HazardShape::kC7:
    case HazardShape::kC12: return " or none was left (one place per iteration: more --ops)";
    default: return "";
  }
}

// Writes one trace (`out`) and its ground truth.
int synth_one(const SynthOptions& options, const std::string& out, const std::string& truth_path) {
  const std::string truth = truth_path.empty() ? out + ".truth.json" : truth_path;
  for (const auto& [path, others] :
       {std::pair{out, std::vector<std::string>{}}, std::pair{truth, std::vector{out}}})
    if (auto usable = check_output(path, others); !usable) {
      std::cerr << usable.error().describe() << "\n";
      return kExitBadInput;
    }
  // The generator streams binary chunks; text and JSON outputs are converted
  // from a temporary binary trace beside them.
  const bool binary = encoding_for_write(out) == Encoding::kBinary;
  auto staging = binary ? Result<OutputFile>(Error{}) : OutputFile::create(out + ".rtrace");
  if (!binary && !staging) {
    std::cerr << staging.error().describe() << "\n";
    return kExitBadInput;
  }
  const std::string written = binary ? out : staging->temp_path();
  auto writer = TraceWriter::create(written, options.writer);
  if (!writer) {
    std::cerr << writer.error().describe() << "\n";
    return kExitBadInput;
  }
  auto result = synthesize(options, *writer);
  if (!result) {
    std::cerr << "synth: " << result.error().describe() << "\n";
    return kExitBadInput;
  }
  if (auto s = writer->close(); !s) {
    std::cerr << s.error().describe() << "\n";
    return kExitBadInput;
  }
  uint64_t bytes = writer->bytes_written();
  if (!binary) {
    auto trace = load_trace(written);
    Status saved = trace ? save_trace(*trace, out) : Status(trace.error());
    if (!saved) {
      std::cerr << saved.error().describe() << "\n";
      return kExitBadInput;
    }
    bytes = std::filesystem::file_size(out);
  }
  if (auto s = write_file_atomically(truth, ground_truth_json(options, *result)); !s) {
    std::cerr << "synth: " << s.error().describe() << "\n";
    return kExitBadInput;
  }
  std::cout << out << ": " << result->ops << " ops, " << result->iterations << " iterations, " << bytes
            << " bytes; " << result->injected.size() << " injected hazard(s) listed in " << truth << "\n";
  for (int s = 0; s < kHazardShapeCount; ++s)
    if (result->not_placed[s])
      std::cerr << "synth: " << result->not_placed[s] << " " << shape_name(static_cast<HazardShape>(s))
                << " injection(s) could not be placed: the trace ordered every candidate pair"
                << placement_hint(static_cast<HazardShape>(s)) << "\n";
  return kExitOk;
}

int run_synth(SynthArgs& a) {
  for (const auto& spec : a.inject)
    if (!parse_injection(spec, a.options)) {
      std::cerr << "synth: bad --inject '" << spec << "': expected a shape (" << shape_list()
                << "), optionally :COUNT and @ITERATION (>= 1), or all\n";
      return kExitBadInput;
    }
  a.options.schedule = a.schedule == "sequential" ? Schedule::kSequential : Schedule::k1F1B;
  a.options.known_modes = a.modes == "known";
  a.options.code_modes = a.modes == "code";
  a.options.analyzer_version = code::kAnalyzerVersion;
  a.options.writer.compress = !a.no_compress;
  if (a.ranks == 1) return synth_one(a.options, a.out, a.truth);
  for (const std::string* pattern : {&a.out, &a.truth})
    if (!pattern->empty() && rank_path(*pattern, 0) == *pattern) {
      std::cerr << "synth: --ranks " << a.ranks << " writes one trace per rank: put %r (the rank) in "
                << (pattern == &a.out ? "--output" : "--truth") << ", e.g. run-%r.rtrace (got '" << *pattern
                << "')\n";
      return kExitBadInput;
    }
  for (uint32_t rank = 0; rank < a.ranks; ++rank) {
    const std::string truth = a.truth.empty() ? "" : rank_path(a.truth, rank);
    if (int code = synth_one(options_for_rank(a.options, rank, a.ranks), rank_path(a.out, rank), truth))
      return code;
  }
  return kExitOk;
}

}  // namespace

void add_synth(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "synth", "Generate a training-step trace with offloading, recompute and injected hazards");
  auto a = std::make_shared<SynthArgs>();
  cmd->add_option("-o,--output", a->out,
                  "output trace: .rtrace (binary), .pbtxt (text) or .json, by extension")
      ->required();
  add_number(cmd, "--seed", a->options.seed, "random seed")->capture_default_str();
  add_number(cmd, "--ops", a->options.target_ops, "approximate op count (whole iterations)")
      ->capture_default_str();
  add_number(cmd, "--layers", a->options.layers, "transformer layers")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  add_number(cmd, "--microbatches", a->options.microbatches, "microbatches per iteration")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--schedule", a->schedule, "1f1b or sequential (forward then backward per microbatch)")
      ->capture_default_str()
      ->check(CLI::IsMember({"1f1b", "sequential"}));
  add_number(cmd, "--activation-bytes", a->options.activation_bytes, "bytes of one activation tensor")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{4096}, uint64_t{1} << 34));
  cmd->add_option("--modes", a->modes,
                  "known: kernels carry exact extents and read/write modes (PyTorch integration); raw: only "
                  "argument words over driver segments (bare CUPTI); code: raw words plus the kernels' "
                  "machine-code modes (a module with their analysis)")
      ->capture_default_str()
      ->check(CLI::IsMember({"known", "raw", "code"}));
  cmd->add_option("--inject", a->inject,
                  "inject hazards (repeatable, or comma-separated): " + shape_list() +
                      ", with :COUNT and/or @ITERATION to place them from that iteration on, or all")
      ->delimiter(',');
  cmd->add_option("--truth", a->truth, "ground-truth JSON (default OUTPUT.truth.json)");
  add_number(cmd, "--ranks", a->ranks,
             "data-parallel ranks: one trace per rank (%r in --output names it), each with the step's "
             "collectives on a communication stream, its own seed and its share of the injections")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  cmd->add_flag("--no-compress", a->no_compress, "write uncompressed chunks");
  cmd->callback([a, &exit_code] { exit_code = run_synth(*a); });
}

}  // namespace racetrack::cli
