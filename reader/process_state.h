// ProcessState: what the reader knows about one traced process across generations: its
// identity, the live threads with their open region stacks, and the running children and
// execs. It is the only state carried from one generation to the next.
#ifndef TRACEWIRE_READER_PROCESS_STATE_H_
#define TRACEWIRE_READER_PROCESS_STATE_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"

namespace tracewire::reader {

// Largest thread id a trace may record: Linux's largest pid_max (PID_MAX_LIMIT, 2^22).
inline constexpr uint64_t kMaxThreadId = uint64_t{1} << 22;

// One thread of the process.
struct ThreadState {
  std::string name;         // "main", "th01:worker", ...; stable address while live
  uint64_t start_time = 0;  // trace-clock start (region[0] for t_rel)
  // The kernel's thread id (gettid) from thread_start or thread_status; 0 if the trace does
  // not record it (format versions before 4, imported traces).
  uint64_t tid = 0;
  bool started = false;           // a thread_start was seen
  bool exited = false;            // a thread_exit was seen (erased at the generation's end)
  std::vector<uint64_t> regions;  // enter times of the open regions, outermost first
  // Regions open at the end of the last generation the thread was live in; a later
  // generation's region_active re-statement must match them.
  std::optional<std::vector<uint64_t>> carried;
  uint64_t adopted_task = 0;  // the task the thread works for (task_adopt), 0: none
  // The adopted task at the end of the last generation the thread was live in (a later
  // generation's task_adopted re-statement must match it).
  std::optional<uint64_t> carried_adopted;
};

// Most tasks active at once in one process (garbage must not grow memory without bound).
inline constexpr size_t kMaxActiveTasks = size_t{1} << 20;

// Live state of one process.
struct ProcessState {
  std::string sid;
  int depth = 0;  // number of '/' in sid
  uint64_t pid = 0;
  uint64_t start_time = 0;  // trace-clock process start (t_abs origin)
  // True once the process's first events (version or start) were read: from then on an
  // exit/result for an unknown child or exec id is an error. Reading a suffix of a trace
  // leaves it false, so children started before the suffix are accepted.
  bool saw_process_start = false;
  std::optional<uint64_t> last_gen;
  // unique_ptr keeps ThreadState (and views of its name) at a stable address.
  absl::flat_hash_map<uint64_t, std::unique_ptr<ThreadState>> threads;
  absl::flat_hash_set<uint64_t> open_children;
  absl::flat_hash_set<uint64_t> open_execs;
  // Active tasks (task_begin or a task_active re-statement, until task_end).
  absl::flat_hash_set<uint64_t> open_tasks;

  // The pairing rules of children and execs (each returns false if the record is invalid
  // in this state): a child_start or exec must not reuse a running id; a child_exit,
  // child_ready or exec_result must name a running id, unless the process's start was not
  // read (a suffix of the trace).
  bool StartChild(uint64_t id) { return open_children.insert(id).second; }
  bool EndChild(uint64_t id) { return open_children.erase(id) > 0 || !saw_process_start; }
  bool ChildReady(uint64_t id) const { return open_children.contains(id) || !saw_process_start; }
  bool StartExec(uint64_t id) { return open_execs.insert(id).second; }
  bool EndExec(uint64_t id) { return open_execs.erase(id) > 0 || !saw_process_start; }
  // The rules of tasks: a task_begin must not name an active task, nor make more than
  // kMaxActiveTasks active; a task_active re-statement may name an active one; ending a
  // task that is not active is not an error (it began before what is read).
  bool StartTask(uint64_t id) {
    return open_tasks.size() < kMaxActiveTasks && open_tasks.insert(id).second;
  }
  bool RestateTask(uint64_t id) {
    return open_tasks.contains(id) ||
           (open_tasks.size() < kMaxActiveTasks && open_tasks.insert(id).second);
  }
  void EndTask(uint64_t id) { open_tasks.erase(id); }

  // After a gap in the process's generation numbers (a generation the writer dropped: a
  // flight recorder's ring, a runtime past its memory limit): what happened in the missing
  // generations is unknown, so the next re-statement of open regions is taken as it is, and
  // children and execs started in them may end later (as in a suffix of the trace).
  void ForgetAcrossGap() {
    for (auto& [id, thread] : threads) thread->carried.reset();
    saw_process_start = false;
  }

  // A deep copy (threads included).
  ProcessState Clone() const {
    ProcessState copy;
    copy.sid = sid;
    copy.depth = depth;
    copy.pid = pid;
    copy.start_time = start_time;
    copy.saw_process_start = saw_process_start;
    copy.last_gen = last_gen;
    for (const auto& [id, thread] : threads) {
      copy.threads.emplace(id, std::make_unique<ThreadState>(*thread));
    }
    copy.open_children = open_children;
    copy.open_execs = open_execs;
    copy.open_tasks = open_tasks;
    return copy;
  }
};

// The live state of every process met in one input: a file may hold the generations of
// several processes (appending to one file), told apart by their process_info sid.
class ProcessStates {
 public:
  // The state of process `sid`, created empty (depth = number of '/') on first use. The
  // pointer stays valid for the life of this object.
  ProcessState* FindOrCreate(absl::string_view sid) {
    std::unique_ptr<ProcessState>& state = by_sid_[sid];
    if (state == nullptr) {
      state = std::make_unique<ProcessState>();
      state->sid = std::string(sid);
      state->depth = static_cast<int>(std::count(sid.begin(), sid.end(), '/'));
    }
    return state.get();
  }

  // The state of process `sid`, or nullptr if it was never used.
  const ProcessState* Find(absl::string_view sid) const {
    auto it = by_sid_.find(sid);
    return it == by_sid_.end() ? nullptr : it->second.get();
  }

  // Calls `f(sid)` for every process met (in no particular order).
  template <typename F>
  void ForEachSid(F f) const {
    for (const auto& [sid, state] : by_sid_) f(absl::string_view(sid));
  }

  // A deep copy.
  ProcessStates Clone() const {
    ProcessStates copy;
    for (const auto& [sid, state] : by_sid_) {
      copy.by_sid_.emplace(sid, std::make_unique<ProcessState>(state->Clone()));
    }
    return copy;
  }

 private:
  absl::flat_hash_map<std::string, std::unique_ptr<ProcessState>> by_sid_;
};

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_PROCESS_STATE_H_
