// GoGeneration: one generation of a Go execution trace (v2, Go 1.22 and 1.23) read from
// the bytes of the trace: its event batches per M (thread), string and stack tables,
// frequency and CPU samples; experimental batches are counted and skipped. Also the
// trace's header. Every read is bounds-checked against Go's own limits; errors name the
// byte offset and what broke.
#ifndef TRACEWIRE_TOOLS_GO_IMPORT_GO_GENERATION_H_
#define TRACEWIRE_TOOLS_GO_IMPORT_GO_GENERATION_H_

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tracewire::go_trace {

// Reads the header ("go 1.NN trace\0\0\0"): the minor version (22 or 23) and the header's
// size. InvalidArgument if the bytes are not a Go trace header; Unimplemented naming the
// version for other Go versions.
absl::StatusOr<int> ReadGoHeader(absl::string_view data, size_t* header_size);

// True if `data` starts like a Go execution trace ("go 1."), whatever its version.
bool LooksLikeGoTrace(absl::string_view data);

// One frame of the stack table.
struct GoFrame {
  uint64_t pc = 0;
  uint64_t func = 0;  // string ID
  uint64_t file = 0;  // string ID
  uint64_t line = 0;
};

// One CPU profile sample; `time` already in nanoseconds.
struct GoCpuSample {
  int64_t time = 0;
  int64_t m = -1, p = -1, g = -1;
  uint64_t stack = 0;
};

// One event batch of an M: its first timestamp (ticks) and its bytes.
struct GoBatch {
  uint64_t time = 0;
  absl::string_view data;
  uint64_t offset = 0;  // byte offset of the batch's data in the trace
};

struct GoGeneration {
  uint64_t gen = 0;
  double ns_per_tick = 0;  // from the frequency record, computed as Go's parser does
  std::map<int64_t, std::vector<GoBatch>> batches;  // by M
  std::vector<GoCpuSample> cpu_samples;             // sorted by time
  absl::flat_hash_map<uint64_t, std::string> strings;
  absl::flat_hash_map<uint64_t, std::vector<uint64_t>> stacks;  // ID -> PCs
  absl::flat_hash_map<uint64_t, GoFrame> frames;                // PC -> frame
  std::deque<std::string> extra_strings;  // names the ordering adds (ended tasks)
  uint64_t experimental_batches = 0;      // skipped
  uint64_t bytes = 0;                     // size of the generation's batches in the trace

  // Ticks in nanoseconds, as Go computes them (float64 product, truncated).
  int64_t Nanos(uint64_t ticks) const;
  // The string of an ID (0 is ""); nullptr if unknown.
  const std::string* String(uint64_t id) const;
  // True if the stack ID is 0 or known.
  bool HasStack(uint64_t id) const { return id == 0 || stacks.contains(id); }
};

// The outcome of reading one generation.
struct GoGenerationRead {
  std::optional<GoGeneration> generation;  // nullopt at the end of the input
  // An error met after the generation's first batch (the input is damaged or truncated
  // there): the generation holds the batches before it. Go's parser reports it after the
  // generation's events.
  absl::Status trailing_error;
};

// Where a batch starts and ends: its generation, and the offset just past its data (which
// may lie beyond the bytes read so far).
struct GoBatchExtent {
  uint64_t gen = 0;
  uint64_t end = 0;
};

// The extent of the batch at data[pos], from its header alone. Errors: as
// ReadGoGeneration's for a batch header (including a header cut short by the end of
// `data`).
absl::StatusOr<GoBatchExtent> PeekGoBatch(absl::string_view data, size_t pos, int minor);

// Reads the generation starting at `*pos` (just after the header or the previous
// generation); on return `*pos` is where the next one starts. `minor` is the version;
// `base` the byte offset of data[0] in the trace (for the offsets errors name).
// Errors name the byte offset: a batch that is not a batch, a generation number that is 0
// or out of order, a batch, string or stack above Go's limits, a missing or second
// frequency record, duplicate IDs, a stack naming an unknown string.
absl::StatusOr<GoGenerationRead> ReadGoGeneration(absl::string_view data, size_t* pos, int minor,
                                                  uint64_t base = 0);

// Reads a uvarint at data[*pos] (at most 10 bytes, no overflow); false if there is none.
bool ReadUvarint(absl::string_view data, size_t* pos, uint64_t* value);

}  // namespace tracewire::go_trace

#endif  // TRACEWIRE_TOOLS_GO_IMPORT_GO_GENERATION_H_
