// GenerationDecoder: decodes and validates one generation's event batches and merges the
// per-thread streams into one time-ordered stream of semantic Events (min-heap on each
// thread's next event time), updating the cross-generation ProcessState as it goes.
//
// Error messages have the shape
//   "generation G, thread T, event I: byte offset O: <reason>"
// where I is the record's index in the thread's stream in this generation (0-based,
// re-statement records included) and O the absolute byte offset of the record (within the
// decompressed generation for a compressed one, whose description then says so).
#ifndef TRACEWIRE_READER_GENERATION_DECODER_H_
#define TRACEWIRE_READER_GENERATION_DECODER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "format/constants.h"
#include "format/event_spec.h"
#include "format/raw_event.h"
#include "reader/event.h"
#include "reader/frame_reader.h"
#include "reader/generation_info.h"
#include "reader/generation_tables.h"
#include "reader/process_state.h"

namespace tracewire::reader {

class GenerationDecoder {
 public:
  GenerationDecoder();

  GenerationDecoder(const GenerationDecoder&) = delete;
  GenerationDecoder& operator=(const GenerationDecoder&) = delete;

  // Starts decoding `gen` against the state of its process (found in `processes` by the
  // process_info sid); both must outlive the decoding and stay unchanged by others
  // meanwhile. Checks the generation's structure (exactly one clock_sync and one
  // process_info, the tables, a generation number above the process's previous one) and
  // the first record of each thread. Errors are DataLoss.
  absl::Status Start(const RawGeneration& gen, ProcessStates* processes);

  // The next event in time order (ties: lower thread number first), or nullptr when the
  // generation is exhausted; at that point the end-of-generation bookkeeping is done
  // (exited threads dropped, open regions remembered for the next re-statement). The
  // event is valid until the next call. After an error, every further call returns it.
  absl::StatusOr<const Event*> Next();

  // Metadata of the current generation.
  const GenerationInfo& info() const { return info_; }

 private:
  struct Batch {
    const uint8_t* begin;
    const uint8_t* end;
    uint64_t body_offset;
    uint64_t base_time;
    uint32_t next;  // next batch of the same thread, or kNoBatch
  };
  static constexpr uint32_t kNoBatch = ~uint32_t{0};

  // One thread's stream in this generation, with its decoded head record.
  struct Cursor {
    uint64_t thread_id = 0;
    ThreadState* ts = nullptr;
    uint32_t order = 0;              // tie-break: rank of thread_id
    uint32_t next_batch = kNoBatch;  // next batch to load
    const uint8_t* pos = nullptr;
    const uint8_t* end = nullptr;
    const uint8_t* body_begin = nullptr;
    uint64_t body_offset = 0;
    uint64_t time = 0;       // time of the last decoded record, or the batch base
    uint64_t last_time = 0;  // time of the last decoded record of the thread
    uint64_t records = 0;    // records decoded so far
    bool any_record = false;
    bool restating = false;  // after thread_status: region_active records may follow
    bool has_pending_stack = false;
    absl::Span<const SymbolFrame> pending_stack;
    // Head record.
    bool has_head = false;
    uint8_t head_type = 0;
    const format::EventSpec* head_spec = nullptr;
    uint64_t head_time = 0;
    uint64_t head_offset = 0;
    uint64_t head_index = 0;
    uint64_t head_args[format::kMaxArgs] = {};
    absl::string_view head_data;
  };

  // Decodes the cursor's next record into its head (has_head=false at the end).
  absl::Status DecodeHead(Cursor& c);
  // Validates the head record, updates the state, fills event_ if it is surfaced.
  absl::StatusOr<bool> Process(Cursor& c);
  // Checks the finished region_active re-statement against the carried regions.
  absl::Status EndRestatement(Cursor& c);
  // End-of-stream checks of one thread.
  absl::Status EndStream(Cursor& c);
  // End-of-generation bookkeeping.
  void FinishGeneration();
  // Splits a string-list string into *items.
  absl::Status SplitList(const Cursor& c, uint64_t id, std::vector<absl::string_view>* items);

  absl::Status CursorError(const Cursor& c, uint64_t offset, uint64_t index,
                           absl::string_view reason) const;
  absl::Status HeadError(const Cursor& c, absl::string_view reason) const {
    return CursorError(c, c.head_offset, c.head_index, reason);
  }
  absl::Status GenError(uint64_t offset, absl::string_view reason) const;

  absl::string_view Str(uint64_t id) const {
    return id == 0 ? absl::string_view() : *tables_.FindString(id);
  }
  std::optional<absl::string_view> OptStr(uint64_t id) const {
    if (id == 0) return std::nullopt;
    return *tables_.FindString(id);
  }
  absl::Time WallTime(uint64_t ticks) const;
  double Seconds(uint64_t ticks) const { return static_cast<double>(ticks) * sec_per_tick_; }
  double SignedSeconds(uint64_t from, uint64_t to) const {
    return static_cast<double>(static_cast<int64_t>(to - from)) * sec_per_tick_;
  }

  bool Less(const Cursor* a, const Cursor* b) const {
    return a->head_time < b->head_time || (a->head_time == b->head_time && a->order < b->order);
  }
  void SiftDown(size_t i);
  void SiftUp(size_t i);

  const format::EventSpec* specs_[256];
  GenerationTables tables_;
  ProcessState* state_ = nullptr;
  std::string describe_;
  GenerationInfo info_;
  double sec_per_tick_ = 0;
  int64_t ns_per_tick_ = 0;  // 1e9 / freq when exact, else 0
  std::vector<Batch> batches_;
  std::vector<Cursor> cursors_;
  absl::flat_hash_map<uint64_t, uint32_t> cursor_of_thread_;
  std::vector<Cursor*> heap_;  // cursors with a head, except cur_
  Cursor* cur_ = nullptr;      // cursor with the smallest head
  bool finished_ = false;
  absl::Status error_;
  format::RawEvent raw_;  // slow-path decoding
  Event event_;
};

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_GENERATION_DECODER_H_
