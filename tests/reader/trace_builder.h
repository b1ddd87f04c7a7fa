// Test helpers that build realistic traces with format::GenerationEncoder (the runtime
// does not exist yet), plus status-checking macros.
#ifndef TRACEWIRE_TESTS_READER_TRACE_BUILDER_H_
#define TRACEWIRE_TESTS_READER_TRACE_BUILDER_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "format/event_spec.h"
#include "format/generation_encoder.h"
#include "reader/event.h"
#include "reader/reader.h"

namespace tracewire::testing {

using format::EventType;

// Wall clock of the default clock_sync: 2026-01-01T00:00:00Z at trace time kBaseTicks.
inline constexpr uint64_t kBaseWallSec = 1767225600;
inline constexpr uint64_t kBaseTicks = 1000;

// One generation under construction. Times are absolute trace-clock ticks (1 ns by default).
class GenBuilder {
 public:
  // A generation of process `sid` (pid, start_time) with a clock_sync taken at
  // `sync_ticks`, whose wall clock is consistent with kBaseWallSec at kBaseTicks.
  GenBuilder(uint64_t gen, std::string sid = "SID0", uint64_t pid = 4242,
             uint64_t start_time = kBaseTicks, uint64_t sync_ticks = kBaseTicks,
             uint64_t freq = 1'000'000'000, int64_t utc_offset_sec = 3600,
             uint64_t wall_base_sec = kBaseWallSec);

  // Interns a string / string list / site / stack and returns its ID.
  uint64_t S(absl::string_view value) { return enc_.String(value); }
  uint64_t L(const std::vector<std::string>& items) { return enc_.StringList(items); }
  uint64_t Site(const char* file, uint64_t line, const char* category = nullptr,
                const char* label = nullptr, uint64_t repo = 0);
  uint64_t Stack(const std::vector<format::StackFrame>& frames) { return enc_.InternStack(frames); }

  // A Trace2 row: dt and site are filled in, `rest` are the row's other arguments.
  GenBuilder& Ev(uint64_t thread, EventType type, uint64_t time, uint64_t site,
                 std::initializer_list<uint64_t> rest = {});
  // Any timed row with all its arguments but dt (thread_status, region_active, ...).
  GenBuilder& Raw(uint64_t thread, EventType type, uint64_t time,
                  std::initializer_list<uint64_t> args, absl::string_view data = {});

  // Adds pre-encoded frames of this generation (for hand-built bad batches).
  void AddFrames(absl::string_view frames) { enc_.AddEncodedBatches(frames); }

  format::GenerationEncoder& encoder() { return enc_; }

  // The encoded generation (aborts the test binary on encoder errors).
  std::string Finish(bool compress = false);

 private:
  format::GenerationEncoder enc_;
};

// File header plus the given encoded generations.
std::string Trace(const std::vector<std::string>& generations);

// The demo-like two-generation trace used by the round-trip tests (see the .cc for the
// exact events). With `compress`, both generations are compressed.
std::string DemoTrace(bool compress = false);

// Generation 2 of DemoTrace alone, after a header: a standalone suffix.
std::string DemoSuffix();

// One encoded record (type byte, `args` with dt included, data trailer).
std::string Rec(EventType type, std::initializer_list<uint64_t> args, absl::string_view data = {});

// An event_batch frame holding `body`.
std::string BatchFrame(uint64_t gen, uint64_t thread, uint64_t base_time, absl::string_view body);

// A top-level frame found by ScanFrames: type, byte offset (in the scanned bytes, plus
// `base`) and size.
struct FrameAt {
  EventType type;
  uint64_t offset;
  uint64_t size;
  uint64_t body_offset;  // of a batch frame's body
};

// The frames of `bytes` (a trace after its header, or one encoded generation), whose first
// byte is at offset `base`. Aborts on malformed input (test helper).
std::vector<FrameAt> ScanFrames(absl::string_view bytes, uint64_t base);

// The `occurrence`-th (0-based) frame of `type` in `trace` (header included).
FrameAt FindFrame(absl::string_view trace, EventType type, int occurrence = 0);

// Byte offset in `trace` (header included) of the `occurrence`-th (0-based) record of
// `type` inside event batches, or ~0 if there is none. Uncompressed traces only.
uint64_t FindRecordOffset(absl::string_view trace, EventType type, int occurrence = 0);

// `generation` without its first frame of `type`.
std::string RemoveFrame(absl::string_view generation, EventType type);

// What reading a whole trace gave; stops at the first error.
struct ReadResult {
  std::vector<std::string> debug;  // Event::DebugString() of each event
  absl::Status status;
  std::vector<uint64_t> generations;  // distinct gens seen, in order
};
// Unless options.count_only, the read is repeated with count_only, once through Next()
// and once through SkipEvents(): a gtest failure is added unless both see the same events
// (kind, gen, sid, thread, ticks) and end with the same status.
ReadResult ReadAll(absl::string_view bytes, reader::ReaderOptions options = {});

}  // namespace tracewire::testing

#define TW_ASSERT_OK(expr)                                 \
  do {                                                     \
    const absl::Status _tw_status = (expr);                \
    ASSERT_TRUE(_tw_status.ok()) << _tw_status.ToString(); \
  } while (0)

#endif  // TRACEWIRE_TESTS_READER_TRACE_BUILDER_H_
