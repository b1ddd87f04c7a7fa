// GenerationDecoder: decodes and validates one generation's event batches and merges the
// per-thread streams into one time-ordered stream of semantic Events (up to 8 threads the
// threads kept sorted by their next event time, a min-heap above), updating the
// cross-generation ProcessState as it goes.
//
// The decoder is spread over files by concept: generation_structure.cc (Start: the
// generation's structure), thread_merge-inl.h and thread_merge.cc (the per-thread streams
// and their merge), event_meaning-inl.h and event_meaning.cc (what each record means:
// checks, state, event fields), generation_decoder.cc (Next).
//
// Error messages have the shape
//   "generation G, thread T, event I: byte offset O: <reason>"
// where I is the record's index in the thread's stream in this generation (0-based,
// re-statement records included) and O the absolute byte offset of the record (within the
// decompressed generation for a compressed one, whose description then says so).
#ifndef TRACEWIRE_READER_GENERATION_DECODER_H_
#define TRACEWIRE_READER_GENERATION_DECODER_H_

#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
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
#include "reader/speculation_log.h"

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
  // generation is exhausted or an error occurred (see status()). At the end the
  // end-of-generation bookkeeping is done (exited threads dropped, open regions
  // remembered for the next re-statement). The event is valid until the next call. After
  // an error every further call returns nullptr.
  const Event* Next();

  // OK, or the error that stopped the generation.
  const absl::Status& status() const { return error_; }

  // Metadata of the current generation.
  const GenerationInfo& info() const { return info_; }

  // Speculative decoding: from the next Start() on, records in `log` (until set to
  // nullptr) what the decoding reads of the process state the generation follows (see
  // reader/speculation_log.h). `log` must outlive its use.
  void set_speculation_log(SpeculationLog* log) { log_ = log; }

  // With false, Next() validates and updates the state exactly as before but leaves the
  // event mostly unfilled: only kind, wire_type, gen, sid, depth, thread_id and ticks are
  // set, every other field is unspecified. For callers that only count or validate.
  void set_fill_events(bool fill) { fill_ = fill; }

 private:
  struct Batch {
    const uint8_t* begin;
    const uint8_t* end;
    uint64_t body_offset;
    uint64_t base_time;
    uint32_t next;  // next batch of the same thread, or kNoBatch
  };
  static constexpr uint32_t kNoBatch = ~uint32_t{0};
  static constexpr uint8_t kZeroArg = format::kMaxArgs;
  static constexpr uint8_t kOnesArg = format::kMaxArgs + 1;
  static_assert(format::kMaxArgs == 8);

  // One thread's stream in this generation, with its decoded head record (the last
  // record decoded; Process() consumes it).
  struct Cursor {
    uint64_t thread_id = 0;
    ThreadState* ts = nullptr;
    uint32_t index = 0;              // in cursors_, which is sorted by thread_id
    uint32_t next_batch = kNoBatch;  // next batch to load
    const uint8_t* pos = nullptr;
    const uint8_t* end = nullptr;
    const uint8_t* body_begin = nullptr;  // of the current batch
    uint64_t body_offset = 0;             // byte offset of body_begin
    uint64_t time = 0;     // time of the head record (the batch base before the first)
    uint64_t records = 0;  // records decoded so far; the head's index is records - 1
    bool has_head = false;
    bool check_floor = false;  // the next record must come after `floor`
    uint64_t floor = 0;
    bool restating = false;  // after thread_status: region_active records may follow
    bool has_pending_stack = false;
    absl::Span<const SymbolFrame> pending_stack;
    uint64_t pending_stack_id = 0;  // the stack_ref's ID (its frames move when symbolized)
    // Head record. head_args[kZeroArg] is always 0 and head_args[kOnesArg] always ~0 (see
    // TypeInfo::str_a).
    uint8_t head_type = 0;
    const uint8_t* head_pos = nullptr;
    uint64_t head_args[format::kMaxArgs + 2] = {0, 0, 0, 0, 0, 0, 0, 0, 0, ~uint64_t{0}};
    absl::string_view head_data;
  };

  // The head's `tid` argument (thread_start, thread_status: argument 3), 0 in traces that
  // predate it (the fast path leaves stale values in the slots past a row's arguments).
  uint64_t HeadTid(const Cursor& c) const {
    return version_ >= format::kThreadIdVersion ? c.head_args[3] : 0;
  }
  // Sets the format version the records are read in (the rows' arguments it has).
  void SetVersion(uint32_t version);
  // Decodes the cursor's next record into its head (has_head=false at the end); false on
  // error (in error_).
  bool DecodeHead(Cursor& c);
  // Moves to the cursor's next non-empty batch; false if there is none.
  bool LoadBatch(Cursor& c);
  // Decodes the head with the generic RecordDecoder (data trailers, long varints, errors).
  bool DecodeSlow(Cursor& c);
  // Time checks that failed the fast test (dt 0, overflow, batch overlap).
  bool CheckTime(Cursor& c, uint64_t dt, uint64_t t);
  // Sets cur_ to the cursor with the smallest head (ties: lower thread number), or nullptr,
  // and run_limit_ so that cur_ stays the smallest while its head time is below it.
  void Pick();
  // After cur_ (`c`) advanced past run_limit_ or ran out: end-of-stream checks, the merge
  // keys, Pick(). On error sets error_ and cur_ = nullptr.
  void Repick(Cursor& c);
  // Next() after the hot path: the first pick, records that surface no event, errors, the
  // end of the generation.
  const Event* NextSlow();
  static uint64_t HeadOffset(const Cursor& c);
  enum Outcome { kSkip, kEvent, kError };
  struct TypeInfo;
  // Validates the head record, updates the state, fills event_ if it is surfaced
  // (kEvent); on kError the error is in error_.
  Outcome Process(Cursor& c);
  // Process() for the rare cases: re-statement records, stacks, experimental events,
  // records after thread_exit, the end of a re-statement.
  Outcome ProcessSlow(Cursor& c);
  // ProcessSlow() for cpu_sample and cpu_samples_lost.
  Outcome ProcessSample(Cursor& c);
  // Process() for a Trace2 row (the hot path).
  Outcome ProcessTrace2(Cursor& c, const TypeInfo& info, bool common_done);
  // ProcessTrace2() without filling the event (fill_ false): the same checks and state
  // updates.
  Outcome CheckTrace2(Cursor& c, const TypeInfo& info);
  // ProcessTrace2() for the row types that are not on the hot path: unwinding, the field
  // bindings (reader/event_fields.h), the row's semantics.
  Outcome ProcessOther(Cursor& c);
  // What ProcessOther does per wire type (event_meaning.cc); indexed by type number.
  struct RowMeaning;
  static const RowMeaning* RowMeanings();
  // Copies the head's bound arguments into event_; false on error (in error_).
  bool CopyFields(const Cursor& c, const RowMeaning& meaning);
  // Row semantics of ProcessOther, after the fields are copied (kEvent or kError).
  Outcome ProcessStarts(Cursor& c);  // version, start
  Outcome ChildStarts(Cursor& c);    // child_start
  Outcome ChildEnds(Cursor& c);      // child_exit, child_ready
  Outcome ExecStarts(Cursor& c);     // exec
  Outcome ExecEnds(Cursor& c);       // exec_result
  Outcome ThreadStarts(Cursor& c);   // thread_start
  Outcome ThreadExits(Cursor& c);    // thread_exit
  Outcome TaskBegins(Cursor& c);     // task_begin
  Outcome TaskEnds(Cursor& c);       // task_end
  Outcome TaskAdopts(Cursor& c);     // task_adopt
  Outcome TaskReleases(Cursor& c);   // task_release
  // Error paths of ProcessTrace2 (out of line).
  Outcome SiteError(const Cursor& c);
  // Checks every string ID of the head; false on error (in error_).
  bool CheckStrings(const Cursor& c, const TypeInfo& info);
  // Records the kThread entry of a cursor whose first record was just decoded.
  void LogThread(const Cursor& c);
  // Fills the event fields every surfaced record has.
  void FillCommon(Cursor& c, uint8_t type, uint64_t now);
  ABSL_ATTRIBUTE_NOINLINE Outcome Fail(absl::Status status) {
    error_ = std::move(status);
    return kError;
  }
  ABSL_ATTRIBUTE_NOINLINE bool FailFalse(absl::Status status) {
    error_ = std::move(status);
    return false;
  }
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
    return CursorError(c, HeadOffset(c), c.records - 1, reason);
  }
  absl::Status GenError(uint64_t offset, absl::string_view reason) const;

  absl::string_view Str(uint64_t id) const {
    return id == 0 ? absl::string_view() : *tables_.FindString(id);
  }
  std::optional<absl::string_view> OptStr(uint64_t id) const {
    if (id == 0) return std::nullopt;
    return *tables_.FindString(id);
  }
  // Sets an optional field in place (assigning a std::optional temporary costs a
  // store-forwarding stall on the hot path).
  void SetOptStr(std::optional<absl::string_view>* field, uint64_t id) const {
    if (id == 0) {
      field->reset();
    } else {
      field->emplace(*tables_.FindString(id));
    }
  }
  // Unconditional stores into an optional (reset() and operator= test the engaged flag
  // first). Only for trivially destructible T.
  template <typename T, typename U>
  static void StoreOpt(std::optional<T>* field, U&& value) {
    static_assert(std::is_trivially_destructible_v<std::optional<T>>);
    ::new (static_cast<void*>(field)) std::optional<T>(std::forward<U>(value));
  }
  template <typename T>
  static void ClearOpt(std::optional<T>* field) {
    static_assert(std::is_trivially_destructible_v<std::optional<T>>);
    ::new (static_cast<void*>(field)) std::optional<T>();
  }
  absl::Time WallTime(uint64_t ticks);
  absl::Time SlowWallTime(uint64_t ticks) const;
  double Seconds(uint64_t ticks) const { return static_cast<double>(ticks) * sec_per_tick_; }
  double SignedSeconds(uint64_t from, uint64_t to) const {
    return static_cast<double>(static_cast<int64_t>(to - from)) * sec_per_tick_;
  }

  bool HeapLess(uint32_t a, uint32_t b) const {
    return keys_[a] < keys_[b] || (keys_[a] == keys_[b] && a < b);
  }
  void SiftDown(size_t i);
  void SiftUp(size_t i);

  // Per wire type: what the hot path needs, packed.
  struct alignas(16) TypeInfo {
    bool fast = false;    // a plain timed row without data: decode nargs varints inline
    bool trace2 = false;  // a Trace2 row with a site (surfaced through ProcessTrace2)
    uint8_t nargs = 0;
    uint8_t nstrings = 0;  // string-ID arguments to validate
    uint8_t strings[4] = {};
    // Hot-path string check: head_args[str_a] | head_args[str_b] covers every string ID
    // of the row (kZeroArg pads; kOnesArg forces the general check for more than two).
    uint8_t str_a = kZeroArg;
    uint8_t str_b = kZeroArg;
    EventKind kind = EventKind::kExperimental;
  };
  const format::EventSpec* specs_[256];
  TypeInfo types_[256];
  uint32_t version_ = format::kFormatVersion;  // of the generation being decoded
  GenerationTables tables_;
  ProcessState* state_ = nullptr;
  std::string describe_;
  GenerationInfo info_;
  double sec_per_tick_ = 0;
  uint64_t start_time_ = 0;   // process start (t_abs origin)
  int64_t ns_per_tick_ = 0;   // 1e9 / freq when exact, else 0
  int64_t wall_unix_ns_ = 0;  // clock_sync wall time in Unix nanoseconds
  std::vector<Batch> batches_;
  std::vector<Cursor> cursors_;
  absl::flat_hash_map<uint64_t, uint32_t> cursor_of_thread_;
  // Merge. Up to kLinearMergeMax threads (small mode) the cursors are kept sorted by
  // merge key in order_, and a cursor that advances is re-inserted branch-free; above, a
  // binary heap of cursor indices on keys_ (cursor i's head time, kNoKey when exhausted).
  static constexpr uint64_t kNoKey = ~uint64_t{0};
  static constexpr size_t kLinearMergeMax = 8;
  static constexpr uint64_t kExhausted = uint64_t{1} << 32;  // in a merge key's low half
  // Small mode's merge key of a cursor: head time in the high 64 bits, cursor index in the
  // low ones (equal times: lower index, i.e. thread number, first), plus kExhausted when
  // the stream is exhausted (after every cursor with a head).
  static unsigned __int128 MergeKey(const Cursor& c) {
    if (!c.has_head) return (static_cast<unsigned __int128>(kNoKey) << 64) | kExhausted | c.index;
    return (static_cast<unsigned __int128>(c.time) << 64) | c.index;
  }
  // Small mode: the cursors are padded to merge_width_ (2, 4 or 8) slots with sentinels.
  // merge_keys_[i] is cursor i's merge key for i < n, all ones for n <= i <= kLinearMergeMax
  // (above every merge key). order_ packs 4-bit slots (slot k in bits 4k..4k+3): slots
  // 0..n-1 hold the cursor indices in ascending merge key, slots n..merge_width_-1 the
  // sentinels n, n+1, ... (one word, so that the next re-insert reads it from a single
  // store).
  unsigned __int128 merge_keys_[kLinearMergeMax + 1];
  uint64_t order_ = 0;
  uint32_t merge_width_ = 2;
  // Small mode: kNoKey, or 0 to re-insert after every hot-path record rather than only at
  // the run limit (branch-free where the thread changes at nearly every record; the order
  // is the same either way). Chosen per generation from the previous generation's switch
  // rate.
  uint64_t run_limit_mask_ = kNoKey;
  uint64_t merge_switches_ = 0;  // re-inserts that changed cur_ in this generation
  // Small mode: re-inserts slot 0 of order_, whose merge key is now `key`, and sets cur_ and
  // run_limit_.
  void Reinsert(unsigned __int128 key);
  template <int kWidth>
  void ReinsertIn(unsigned __int128 key);
  // Small mode: cur_ and run_limit_ from order_.
  void SetCurrentFromOrder();
  std::vector<uint64_t> keys_;
  bool linear_ = true;
  std::vector<uint32_t> heap_;  // cursors with a head, heap-ordered (heap mode)
  Cursor* cur_ = nullptr;       // cursor with the smallest head; nullptr when not decoding
  // cur_ keeps the smallest head while its time is below this (the other cursors' keys do
  // not change meanwhile): keys_[cur_->index] is only updated when it stops.
  uint64_t run_limit_ = 0;
  bool finished_ = false;
  bool pick_at_start_ = false;
  absl::Status error_;
  format::RawEvent raw_;  // slow-path decoding
  SpeculationLog* log_ = nullptr;
  bool fill_ = true;
  Event event_;
};

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_GENERATION_DECODER_H_
