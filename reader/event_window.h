// EventWindow: keeps the part of a stream of reader events that lies in a time window and/or
// one process subtree, so that every output format shows a large trace in pieces
// (`tracewire decode --since/--until/--sid/--pid`).
//
//   * Processes: with a sid pattern or a pid, only the events of the matching processes and
//     of their descendants pass. A process matches if one component of its sid (its own or
//     an ancestor's: sids join the parents' sids with '/') matches the glob PATTERN
//     (fnmatch: `*`, `?`, `[...]`), or names the pid N ("-P<hex>").
//   * Time: events before `since` or after `until` are dropped (both ends inclusive). Times
//     are absolute, or offsets from the trace's start (the time of the first event).
//   * Edges: at `since`, each process seen before it is stated again (its last version,
//     start and cmd_name events, repeated at `since`, so that outputs name it), and regions
//     still open there are opened again (a region_enter at `since`, outermost first, per
//     thread, with the enter's category, label, message and nesting); regions still open
//     at `until` are closed there (a region_leave at `until`, innermost first), so every
//     viewer shows them as balanced slices cut at the edges. Tasks likewise: tasks active at
//     `since` begin again there (in the order they began) and a thread working for one
//     adopts it again, before its regions; at `until` each thread releases its task after
//     leaving its regions, and the tasks end there. Regions and tasks are followed with
//     reader::TrackModel (the one slice tracker).
// A window no event falls in still shows what spans it: the first event past `until`
// crosses both edges. After an event past `until` nothing more can pass: Add() returns
// false, and the caller may stop reading.
#ifndef TRACEWIRE_READER_EVENT_WINDOW_H_
#define TRACEWIRE_READER_EVENT_WINDOW_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "reader/event.h"
#include "reader/track_model.h"

namespace tracewire::reader {

// A window edge: an absolute UTC time, or an offset from the trace's start.
struct WindowTime {
  std::optional<absl::Time> absolute;
  absl::Duration offset;  // used when `absolute` is not set
};

// Parses a window edge: a duration from the trace's start ("2.5s", "1m30s", "250ms"; a
// bare number is seconds) or an RFC 3339 UTC time ("2026-11-22T02:00:00.25Z").
absl::StatusOr<WindowTime> ParseWindowTime(absl::string_view text);

struct EventWindowOptions {
  std::optional<WindowTime> since;
  std::optional<WindowTime> until;
  std::string sid_pattern;     // empty: every process
  std::optional<int64_t> pid;  // a process (and its subtree) by pid
  // True if anything is filtered.
  bool active() const {
    return since.has_value() || until.has_value() || !sid_pattern.empty() || pid.has_value();
  }
};

class EventWindow {
 public:
  explicit EventWindow(EventWindowOptions options) : options_(std::move(options)) {}

  // Passes what `e` contributes to the window (nothing, `e`, or the edge's region events
  // followed by `e`) to `emit`, in order. Returns false once the stream is past `until`.
  bool Add(const Event& e, absl::FunctionRef<void(const Event&)> emit);
  // Ends the stream: nothing to add (regions open at the end of the input are left to the
  // output format, as without a window).
  bool past_end() const { return past_end_; }

  // True if the process of sid `sid` is kept (the sid pattern and pid options).
  bool KeepsProcess(absl::string_view sid) const;

  // What states a process again at `since`: copies of its last version, start and
  // cmd_name events (not for users).
  struct ProcessIdentity {
    std::string sid, thread_name;
    uint64_t thread_id = 0, thread_tid = 0, gen = 0;
    int depth = 0;
    int64_t utc_offset_sec = 0;
    std::optional<std::string> exe;                // version
    std::optional<std::vector<std::string>> argv;  // start
    std::optional<std::string> cmd_name;           // cmd_name
    std::optional<std::string> cmd_hierarchy;
  };

  // Listener of the window's TrackModel: keeps copies of the open regions, tasks and task
  // segments (not for users).
  struct OpenSlice {
    std::string sid, thread_name, category, label, file;
    std::optional<std::string> msg;
    int64_t line = 0;
    std::optional<int64_t> repo;
    uint64_t thread_id = 0, thread_tid = 0, gen = 0;
    int depth = 0, nesting = 0;
    int64_t utc_offset_sec = 0;
    double t_abs = 0;
    absl::Time time;
    uint64_t task_id = 0;       // tasks and task segments: the task
    uint64_t parent_task = 0;   // tasks: the parent task
    uint64_t adopted_task = 0;  // the task the thread worked for at the enter
  };
  void OnSliceBegin(const Slice& slice, const Event& e);
  void OnProcessBegin(const ProcessTrack&, const Event&) {}
  void OnSliceEnd(const Slice&, const SliceEnding&) {}
  void OnEvent(const Event&, const EventTracks&) {}
  void OnSample(const Event&, const SampleContext&) {}

 private:
  // Notes `e` if it names its process (before `since`).
  void NoteIdentity(const Event& e);
  // Emits the version, start and cmd_name events of `p` at `time`.
  void EmitIdentity(const ProcessIdentity& p, absl::Time time,
                    absl::FunctionRef<void(const Event&)> emit);
  // Crosses `since`: states the processes again, then begins the open tasks, adopts the
  // threads' tasks and enters the open regions again there.
  void EnterWindow(absl::FunctionRef<void(const Event&)> emit);
  // The slots of the open tasks, in the order they began.
  std::vector<uint32_t> OpenTasksInBeginOrder() const;
  // Emits a region or task event (`kind`) of the open slice `slice` at `time`.
  void EmitSlice(const OpenSlice& slice, EventKind kind, absl::Time time,
                 absl::FunctionRef<void(const Event&)> emit);

  EventWindowOptions options_;
  bool started_ = false;  // the trace's start is known
  absl::Time since_ = absl::InfinitePast();
  absl::Time until_ = absl::InfiniteFuture();
  bool inside_ = false;    // `since` has passed: events are emitted
  bool past_end_ = false;  // `until` has passed
  TrackModel model_;
  std::vector<OpenSlice> slices_;            // by slot
  std::vector<ProcessIdentity> identities_;  // in order of appearance
  absl::flat_hash_map<std::string, size_t> identity_index_;
  Event synthetic_;
};

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_EVENT_WINDOW_H_
