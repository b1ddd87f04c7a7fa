// Speculative decoding of a generation. A generation re-states its process's live state
// (thread names, start times, open regions), so a worker can decode it against an empty
// ProcessStates before the generations in front of it are decoded. What the decoding then
// read of that state (and could have read differently from the real one) is recorded in a
// SpeculationLog; a SpeculationCheck replays the log against the real state, in stream
// order, and tells whether the real decoding would deliver the same events and the same
// outcome, and if so brings the real state to where the real decoding would leave it.
//
// What crosses a generation boundary, and how it is checked:
//   * the process's generation numbers must increase (checked against last_gen);
//   * a thread whose stream starts with thread_status is re-stated: its start time and open
//     regions (and its name, when the re-statement names it) are overwritten before they
//     are read, and the re-stated regions must match those carried from the previous
//     generation (checked: kRestated);
//   * any other thread with records reads its name, start time and regions: they must be
//     what a new thread gets (checked per thread); so does its kernel thread id unless its
//     first record (thread_status or thread_start) states it;
//   * thread_start reads whether the thread had started (checked: kThreadStart);
//   * a re-stated thread's adopted task must match the one carried (kRestated); any other
//     thread with records must have adopted none;
//   * task ids: a task_begin must not name an active task (the active ones are re-stated,
//     so replayed: kTaskBegin, kTaskEnd, kTaskActive);
//   * child and exec ids pair across generations, and the rules depend on whether the
//     process's start was read: the records are replayed with ProcessState's rules.
#ifndef TRACEWIRE_READER_SPECULATION_LOG_H_
#define TRACEWIRE_READER_SPECULATION_LOG_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "reader/process_state.h"

namespace tracewire::reader {

// What a speculative decoding read of the state it was not given, in decoding order.
class SpeculationLog {
 public:
  enum class Op : uint8_t {
    kThread,        // a thread of the generation (see Entry)
    kRestated,      // thread `id` re-stated `regions`
    kThreadStart,   // thread `id` had thread_start while not marked started
    kProcessStart,  // version or start: the process start is read from here on
    kChildStart,
    kChildEnd,  // child_exit
    kChildReady,
    kExecStart,
    kExecEnd,  // exec_result
    kTaskBegin,
    kTaskEnd,
    kTaskActive,  // a task_active re-statement
  };
  struct Entry {
    Entry() = default;
    Entry(Op op, uint64_t id) : op(op), id(id) {}

    Op op = Op::kThread;
    uint64_t id = 0;  // thread, child or exec id
    // kThread: the thread has records in the generation; if so, whether the decoding used
    // the default name `name` and the default start time `start_time` with no open region.
    bool has_records = false;
    bool default_name = false;
    bool default_times = false;
    bool default_tid = false;  // the decoding used tid 0 (not recorded) until a record set it
    std::string name;
    uint64_t start_time = 0;
    std::vector<uint64_t> regions;  // kRestated
    uint64_t adopted_task = 0;      // kRestated: the re-stated adopted task
  };

  // Starts the log of a generation.
  void Clear() { entries_.clear(); }
  void Add(Op op, uint64_t id) { entries_.push_back(Entry{op, id}); }
  void AddEntry(Entry entry) { entries_.push_back(std::move(entry)); }

  // Entries added since the last call (handed over with a block of events).
  std::vector<Entry> TakeEntries() { return std::exchange(entries_, {}); }

  // Entries held, and dropping those added after the first `n`.
  size_t size() const { return entries_.size(); }
  void Truncate(size_t n) { entries_.resize(std::min(n, entries_.size())); }

 private:
  std::vector<Entry> entries_;
};

// Checks the entries of a speculatively decoded generation against the real state, block
// by block, then applies the generation's effect on it.
class SpeculationCheck {
 public:
  // Starts checking generation `gen` of process `sid` against `states` (not modified until
  // Apply). False if the real decoding fails at its start (generation numbers).
  bool Begin(const ProcessStates& states, absl::string_view sid, uint64_t gen);

  // Checks further entries; false as soon as one would make the real decoding differ.
  bool Check(const std::vector<SpeculationLog::Entry>& entries);

  // After every entry checked true: brings `states` to the state the real decoding of the
  // generation leaves, given `decoded`, the state the speculative decoding left.
  void Apply(const ProcessState& decoded, ProcessStates* states);

 private:
  const ProcessState* real_ = nullptr;  // nullptr: the process is new
  std::string sid_;
  uint64_t gen_ = 0;
  // The threads of the generation, in log order (kThread entries).
  std::vector<SpeculationLog::Entry> threads_;
  // The child/exec bookkeeping replayed on a copy of the real one.
  ProcessState pairs_;
};

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_SPECULATION_LOG_H_
