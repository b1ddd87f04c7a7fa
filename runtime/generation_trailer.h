// What every writer of a generation puts around its frames, whichever path writes it
// (the advance, a flight recorder dump, the fatal-signal path): the file header ahead of
// it and the closing records after it.
#ifndef TRACEWIRE_RUNTIME_GENERATION_TRAILER_H_
#define TRACEWIRE_RUNTIME_GENERATION_TRAILER_H_

#include <cstddef>
#include <cstdint>

#include "format/varint.h"
#include "runtime/session.h"

namespace tracewire::runtime {

// The string ids process_info names: the sid, and the command name and hierarchy (0 when
// the process has none).
struct ProcessInfoIds {
  uint64_t sid = 0;
  uint64_t name = 0;
  uint64_t hierarchy = 0;
};

// Room for the closing records: three small records of at most seven varints.
constexpr size_t kClosingRecordsMaxSize = 3 * (1 + 8 * format::kMaxVarintSize);

// Encodes generation `gen`'s closing records (clock_sync, process_info,
// end_of_generation) into `out` (kClosingRecordsMaxSize bytes); returns their size.
// Async-signal-safe when `signal_safe` (see TakeClockSync).
size_t EncodeClosingRecords(const Session& s, uint64_t gen, const ProcessInfoIds& ids,
                            bool signal_safe, uint8_t* out);

// Starts a generation on the destination and writes the file header ahead of it unless
// the destination takes it in place. False if the write failed. Requires advance_mu.
bool BeginGenerationOutput(Session& s);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_GENERATION_TRAILER_H_
