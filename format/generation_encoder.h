// GenerationEncoder: builds one complete, self-contained generation (clock sync, process
// info, event batches, site/stack/string tables, end_of_generation) from events given with
// absolute times. Used by tests, by `tracewire import`, and by the runtime's cold path for
// its tables.
#ifndef TRACEWIRE_FORMAT_GENERATION_ENCODER_H_
#define TRACEWIRE_FORMAT_GENERATION_ENCODER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "format/batch_encoder.h"
#include "format/event_spec.h"
#include "format/generation_records.h"
#include "format/raw_event.h"

namespace tracewire::format {

// Encodes a list of strings as the bytes of a kStringList argument: each item followed by
// one NUL byte.
std::string EncodeStringList(absl::Span<const std::string> items);

// Splits the bytes of a kStringList argument into its items. Fails with DataLoss if the
// bytes do not end with NUL.
absl::StatusOr<std::vector<std::string>> DecodeStringList(absl::string_view bytes);

class GenerationEncoder {
 public:
  explicit GenerationEncoder(uint64_t gen);

  uint64_t gen() const { return gen_; }

  // Interns `value` in the string table; returns its ID (>= 1). Equal strings share an ID.
  uint64_t String(absl::string_view value);
  // String(*value), or 0 for no string.
  uint64_t OptionalString(const std::optional<std::string>& value);
  // Interns the string-list encoding of `items`.
  uint64_t StringList(absl::Span<const std::string> items);
  // Interns a site; returns its ID (>= 1).
  uint64_t InternSite(const Site& site);
  // Interns a stack of at most kMaxFramesPerStack frames; returns its ID (>= 1).
  uint64_t InternStack(absl::Span<const StackFrame> frames);

  // Sets the generation's clock sync and process info (both required before Finish).
  void SetClockSync(const ClockSync& sync) { clock_sync_ = sync; }
  void SetProcessInfo(const ProcessInfo& info) { process_info_ = info; }

  // Appends a timed event to `thread`'s stream; `args` exclude dt. Times of one thread must
  // not go backwards (see EventBatchEncoder::Append).
  absl::Status Event(uint64_t thread, EventType type, uint64_t time,
                     absl::Span<const uint64_t> args, absl::string_view data = {});

  // Appends pre-encoded frames (whole batches of this generation) to the output as is.
  void AddEncodedBatches(absl::string_view batches) {
    extra_batches_.append(batches.data(), batches.size());
  }

  // Appends the whole generation to *out and ends it with end_of_generation. With
  // `compress`, the generation is written as one compressed_generation frame (zstd).
  absl::Status Finish(std::string* out, bool compress = false);

 private:
  uint64_t gen_;
  absl::flat_hash_map<std::string, uint64_t> strings_;
  std::vector<std::string> string_order_;  // ID - 1 -> value
  absl::flat_hash_map<Site, uint64_t> sites_;
  std::vector<Site> site_order_;
  std::map<std::vector<uint64_t>, uint64_t> stacks_;
  std::vector<std::vector<StackFrame>> stack_order_;
  std::optional<ClockSync> clock_sync_;
  std::optional<ProcessInfo> process_info_;
  std::map<uint64_t, std::string> thread_batches_;
  std::map<uint64_t, EventStreamEncoder> threads_;
  std::string extra_batches_;
};

}  // namespace tracewire::format

#endif  // TRACEWIRE_FORMAT_GENERATION_ENCODER_H_
