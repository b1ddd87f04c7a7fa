// Perfetto's own trace processor (trace_processor_shell) for tests: found beside the
// repository (../shared/tools/perfetto, or TRACEWIRE_TRACE_PROCESSOR), it loads a Perfetto
// trace and answers SQL; `tracewire query` answers the same SQL on the trace itself.
#ifndef TRACEWIRE_TESTS_PERFETTO_TRACE_PROCESSOR_H_
#define TRACEWIRE_TESTS_PERFETTO_TRACE_PROCESSOR_H_

#include <optional>
#include <string>
#include <vector>

namespace tracewire::testing {

// A result: rows of text cells (SQL NULL as "[NULL]"), without the header.
using Rows = std::vector<std::vector<std::string>>;

// The trace processor's path: $TRACEWIRE_TRACE_PROCESSOR if set, else
// shared/tools/perfetto/trace_processor_shell beside the repository or one of the folders
// above it (the repository's folder is found through this test's source file in the
// runfiles, `source_in_runfiles`). nullopt if there is none.
std::optional<std::string> FindTraceProcessor(const std::string& source_in_runfiles);

// FindTraceProcessor's answer for the test's source file `source` (a repository path, found
// through Tool()), looked up once per process; empty if there is none.
const std::string& TraceProcessorFor(const std::string& source);

// Runs `sql` (one statement) on the Perfetto trace `trace` with the trace processor at
// `shell`; adds a gtest failure and returns no rows if it fails.
Rows TraceProcessorQuery(const std::string& shell, const std::string& trace,
                         const std::string& sql);

// Runs `sql` with `tracewire query --format=csv` on `input` (with `flags` before it),
// expecting exit code `expected_exit`. NULL cells read "[NULL]", as the trace processor's.
Rows TracewireQuery(const std::string& input, const std::string& sql,
                    const std::vector<std::string>& flags = {}, int expected_exit = 0);

// Parses CSV (RFC 4180 quoting; "" inside quotes) into rows, dropping the header line.
Rows ParseCsv(const std::string& text);

}  // namespace tracewire::testing

#endif  // TRACEWIRE_TESTS_PERFETTO_TRACE_PROCESSOR_H_
