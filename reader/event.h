// Event: the semantic Trace2 event the reader produces. One tagged struct: `kind` says which
// Trace2 event it is; the common fields are always set, and each kind sets the fields listed
// under its name below. Fields of other kinds hold unspecified (stale) values: switch on
// `kind` before reading them. The fields cover what git's NORMAL, PERF and EVENT targets
// print (docs/cli.md, decode).
//
// Lifetime: string views and spans point into the reader's generation tables and live
// state. They stay valid until the next call to Next() on the reader that produced the
// event; copy what must outlive that.
#ifndef TRACEWIRE_READER_EVENT_H_
#define TRACEWIRE_READER_EVENT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"

namespace tracewire::reader {

// The Trace2 event an Event stands for (data_int decodes to kData).
enum class EventKind : uint8_t {
  kVersion,
  kTooManyFiles,
  kStart,
  kExit,
  kSignal,
  kAtexit,
  kError,
  kCmdPath,
  kCmdAncestry,
  kCmdName,
  kCmdMode,
  kAlias,
  kChildStart,
  kChildExit,
  kChildReady,
  kExec,
  kExecResult,
  kThreadStart,
  kThreadExit,
  kDefParam,
  kDefRepo,
  kRegionEnter,
  kRegionLeave,
  kData,
  kDataJson,
  kPrintf,
  kThTimer,
  kTimer,
  kThCounter,
  kCounter,
  // tracewire's own events (format version 3), beyond Trace2's vocabulary.
  kTaskBegin,
  kTaskEnd,
  kTaskAdopt,
  kTaskRelease,
  kGauge,
  // Not Trace2 events: the CPU profile (TRACEWIRE_CPU_PROFILE). Named by their wire rows.
  kCpuSample,       // one sample of the thread's stack (`stack`) at `ticks`, weight `count`
  kCpuSamplesLost,  // `count` samples of the thread were lost (its sample buffer was full)
  kExperimental,    // an experimental wire event (type >= 128), surfaced as is
};

// True for the kinds git's Trace2 has no event for (tasks, gauges): git's text formats
// show them as extension lines, or leave them out.
inline bool IsExtensionKind(EventKind kind) {
  return kind >= EventKind::kTaskBegin && kind <= EventKind::kGauge;
}

// Number of EventKind values (kExperimental is the last).
inline constexpr size_t kNumEventKinds = static_cast<size_t>(EventKind::kExperimental) + 1;

// The Trace2 event name ("region_enter", "data", ...); for the kinds that are not Trace2
// events, their wire row's name ("cpu_sample", "cpu_samples_lost"); "experimental" for
// kExperimental. Derived from the format's event table.
absl::string_view EventKindName(EventKind kind);

// True for the kinds named by a Trace2 event name (every kind before kCpuSample: Trace2's
// events, and the task and gauge events git's formats show as extension lines); false for
// the CPU profile kinds and kExperimental.
constexpr bool IsTrace2Kind(EventKind kind) { return kind < EventKind::kCpuSample; }

// Number of kinds named by a Trace2 event name (they come first).
inline constexpr size_t kNumTrace2Kinds = static_cast<size_t>(EventKind::kCpuSample);

// The kind a wire event type decodes to (data and data_int -> kData); kExperimental for
// types that are not Trace2 events (structural rows, experimental and unknown types).
EventKind EventKindOfType(uint8_t type);

// The kind whose name (EventKindName) is `name` ("data" -> kData, "cpu_sample" ->
// kCpuSample), or nullopt.
std::optional<EventKind> EventKindByName(absl::string_view name);

// True if events of `kind` first close every region open on their thread, as git's
// tr2tls_pop_unwind_self does (atexit, thread_exit, timers, counters): their nesting is 1,
// and a consumer tracking regions ends the thread's open ones there. From the format's
// event table (format::EventSpec::unwinds_regions of the kind's wire rows).
bool KindUnwindsRegions(EventKind kind);

// Type of a data event's value.
enum class ValueKind : uint8_t {
  kString,  // data: `value_string`
  kInt,     // data from data_int: `value_int`, and `value_string` holds its decimal form
  kJson,    // data_json: `value_string` holds the raw JSON bytes
};

// One symbolized frame of a stack attached to an event: the return address, and what
// the trace and the reader's symbolizer (the module's symbol tables and DWARF line
// tables, when this machine has the module's file) know about it.
struct SymbolFrame {
  uint64_t pc = 0;
  absl::string_view func;      // demangled function name; empty if unknown
  absl::string_view file;      // source file; empty if unknown
  uint64_t line = 0;           // source line; 0 if unknown
  absl::string_view module;    // path of the executable or shared object; empty if unknown
  uint64_t module_offset = 0;  // pc minus the module's load bias (its address in the ELF file)
};

// One line of text for a frame: "func (file:line) [module+0xoffset]", with the parts that
// are unknown left out and the pc ("0x55d0c0de1234") for an unknown function.
std::string FrameText(const SymbolFrame& frame);

struct Event {
  // ---- Common: set for every kind. ----
  EventKind kind = EventKind::kVersion;
  uint8_t wire_type = 0;          // format::EventType number of the record (data vs data_int)
  uint64_t gen = 0;               // generation the event came from
  uint64_t thread_id = 0;         // thread number from the batch header
  uint64_t ticks = 0;             // absolute trace-clock time
  absl::string_view sid;          // process session id (parent sids joined by '/')
  int depth = 0;                  // number of '/' in sid (PERF "d<N>")
  absl::string_view thread_name;  // "main", "th01:worker", ...
  uint64_t thread_tid = 0;        // the thread's kernel thread id (gettid); 0: not recorded
  absl::Time time;                // UTC wall time of the event
  int64_t utc_offset_sec = 0;     // local time = time + utc_offset_sec (NORMAL/PERF)
  absl::string_view file;         // source file of the call site; empty if none
  int64_t line = 0;               // source line of the call site
  std::optional<int64_t> repo;    // repo id, when the call passed a repo
  double t_abs = 0;               // seconds since process start
  // Seconds since the innermost open region's start on this thread (region[0] is the
  // thread start; the process start on main): set for region_leave, data, data_json. For
  // child_exit/child_ready: since the child started. For thread_exit: thread lifetime.
  std::optional<double> t_rel;
  // The thread's nr_open_regions as git counts it (1 = no region open). region_enter
  // reports it before the push and region_leave after the pop, so a pair shows the same
  // value. Kinds for which KindUnwindsRegions() holds unwind first (1).
  int nesting = 1;
  absl::string_view category;            // site category (regions, data, timers, counters)
  absl::string_view label;               // site label: region label, data key, timer/counter name
  std::optional<absl::string_view> msg;  // region msg, error msg, printf msg
  // Attached stack (stack_ref), innermost first; for cpu_sample, the sampled stack.
  absl::Span<const SymbolFrame> stack;
  // The task the thread works for at this event (task_adopt .. task_release), 0 for none:
  // what its regions, data and errors belong to. For task_adopt the adopted task, for
  // task_release 0.
  uint64_t adopted_task = 0;

  // ---- version ----
  absl::string_view exe;  // git version string; also exec's `exe` (see exec_exe)
  // ---- start, alias, child_start, exec: argv; cmd_ancestry: ancestry ----
  std::vector<absl::string_view> argv;
  // ---- exit, atexit, exec_result, child_exit: code ----
  int64_t code = 0;
  // ---- signal ----
  uint64_t signo = 0;
  // ---- error (msg is in `msg`) ----
  std::optional<absl::string_view> fmt;
  // ---- cmd_path ----
  absl::string_view cmd_path;
  // ---- cmd_ancestry ----
  std::vector<absl::string_view> ancestry;  // nearest parent first
  // ---- cmd_name ----
  absl::string_view cmd_name;
  std::optional<absl::string_view> cmd_hierarchy;
  // ---- cmd_mode ----
  absl::string_view cmd_mode;
  // ---- alias (argv in `argv`) ----
  absl::string_view alias;
  // ---- child_start, child_exit, child_ready ----
  uint64_t child_id = 0;
  // The class string, or "git" (no class, a git command) or "?" (no class).
  absl::string_view child_class;
  std::optional<absl::string_view> hook_name;
  std::optional<absl::string_view> cd;  // present iff a directory was set
  bool use_shell = false;
  // A git command: Trace2's argv is "git" followed by `argv` (which does not hold it).
  bool is_git_command = false;
  int64_t pid = 0;          // child_exit/child_ready (-1: spawn failed)
  absl::string_view ready;  // child_ready: "ready", "timeout", "error"
  // ---- exec, exec_result ----
  uint64_t exec_id = 0;
  std::optional<absl::string_view> exec_exe;
  // ---- thread_start: thread_name is the new thread's name; thread_exit: t_rel ----
  // ---- def_param ----
  absl::string_view param_scope;
  absl::string_view param;
  std::optional<absl::string_view> param_value;
  // ---- def_repo (the repo id is in `repo`) ----
  absl::string_view worktree;
  // ---- data, data_json (category/key in `category`/`label`) ----
  ValueKind value_kind = ValueKind::kString;
  absl::string_view value_string;
  int64_t value_int = 0;
  // ---- th_timer, timer (category/name in `category`/`label`) ----
  uint64_t intervals = 0;
  double t_total = 0;
  double t_min = 0;
  double t_max = 0;
  // ---- th_counter, counter; cpu_sample: its weight, the periods of CPU time it stands for
  // (1 + the timer's overrun); cpu_samples_lost: the samples lost ----
  uint64_t count = 0;
  // ---- task_begin, task_end, task_adopt, task_release (task_begin: category and name in
  // `category`/`label`) ----
  uint64_t task_id = 0;      // the task the event names
  uint64_t parent_task = 0;  // task_begin: its parent task (0: none)
  // ---- gauge (category/name in `category`/`label`; the sample in `value_int`) ----
  std::optional<absl::string_view> unit;
  // ---- experimental ----
  absl::string_view experimental_data;

  // Local wall time as NORMAL and PERF print it.
  absl::Time local_time() const { return time + absl::Seconds(utc_offset_sec); }
  // Debug rendering of the common fields and the kind's payload (not a git format).
  std::string DebugString() const;

  // Storage for value_string of data_int (not for users).
  char int_buffer[24] = {};
};

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_EVENT_H_
