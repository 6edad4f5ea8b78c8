// Values records inside racetrack's trace format (docs/diff.md): `racetrack
// convert RECORD OUT` writes a record's operators as the chunks' `values`,
// and `racetrack diff` reads either form.
#pragma once

#include <string>

#include "racetrack/diverge/values_record.h"
#include "racetrack/traces/trace_io.h"

namespace racetrack::diverge {

// Whether `path` holds a values record (named .jsonl, or its first line is
// the record's header), not a trace.
bool is_values_record(const std::string& path);

// Writes `record` as a trace at `out` (any encoding, by extension): a
// header whose time origin is the first operator's time, and the operators'
// values in chunks.
Status write_values_trace(const ValuesRecord& record, const std::string& out, WriterOptions options = {});

// Appends `record` to `trace` (a capture's own output, replaced whole by a
// new file with the same chunks and the values after them). Times become
// relative to the trace's time origin.
Status add_values_to_trace(const std::string& trace, const ValuesRecord& record);

// The values a trace carries (a trace without any is an error).
Result<ValuesRecord> read_values_trace(const std::string& path);

// A values record or a trace with values, whichever `path` is.
Result<ValuesRecord> read_values_any(const std::string& path);

}  // namespace racetrack::diverge
