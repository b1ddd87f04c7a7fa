// Comparison of tracewire's reading of a Go execution trace with Go's own parser's
// (`go tool trace -d=1`, one Event.String() per event), in two layers:
//  * the reader: every event record (kind, context, arguments, stacks) the same as Go's
//    as a multiset, the times the same as a multiset, and tasks, regions and logs the same
//    with their times (the first events of the M streams at a generation's start enter
//    Go's merge in its map iteration order, which varies between runs: if two of them
//    have equal raw times, Go's order of the two, and which one Go's strictly increasing
//    times move 1 ns forward, varies too);
//  * the import: the tracewire trace converted from it holds the same tasks, regions and
//    logs at the same nanoseconds, one thread per goroutine, and the same CPU samples per
//    function.
#ifndef TRACEWIRE_TESTS_GO_IMPORT_GO_COMPARE_H_
#define TRACEWIRE_TESTS_GO_IMPORT_GO_COMPARE_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tracewire::testing {

// The event records of a -d=1 text (each "M=..." line with its stack lines).
std::vector<std::string> GoRecords(absl::string_view text);

// What both layers compare.
struct GoSummary {
  std::map<std::string, uint64_t> kinds;  // events by Go kind
  // "TaskBegin TIME ID PARENT TYPE", "RegionBegin TIME G TASK TYPE", "Log TIME G TASK ..."
  std::multiset<std::string> user_events;
  std::map<std::string, uint64_t> samples;  // CPU samples by innermost function
  std::set<int64_t> goroutines;             // every goroutine a state transition names
  // Goroutines created by another goroutine (GoCreate, GoCreateBlocked: Go's
  // NotExist->Runnable/Waiting transitions in a goroutine); imported: go.create tasks.
  uint64_t creations = 0;
};

// The summary of Go's records.
GoSummary SummarizeGo(const std::vector<std::string>& records);

// The summary of a tracewire trace converted from a Go trace, as the reader reads it
// (kinds are left empty).
absl::StatusOr<GoSummary> SummarizeImported(const std::string& trace);

// Empty if `ours` (GoEventText records of tracewire's reader) equals Go's `go` records
// as described above; else what differs.
std::string CompareRecords(const std::vector<std::string>& go,
                           const std::vector<std::string>& ours);

// Empty if the imported summary matches Go's (user events, samples, goroutines).
std::string CompareImported(const GoSummary& go, const GoSummary& imported);

// The records of tracewire's reader for the Go trace `bytes`.
absl::StatusOr<std::vector<std::string>> ReadGoRecords(std::string bytes);

// Reads a file whole; a ".zst" file is decompressed.
absl::StatusOr<std::string> ReadTestFile(const std::string& path);

}  // namespace tracewire::testing

#endif  // TRACEWIRE_TESTS_GO_IMPORT_GO_COMPARE_H_
