// The EventSpec table: one row per event type of the wire format. The encoder, the raw
// decoder, the dumper, the reader and the spec self-check test all read this table.
#ifndef TRACEWIRE_FORMAT_EVENT_SPEC_H_
#define TRACEWIRE_FORMAT_EVENT_SPEC_H_

#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "format/constants.h"

namespace tracewire::format {

// Event type numbers. Values are part of the wire format (docs/format.md §4).
enum class EventType : uint8_t {
  kNone = 0,
  // Frames: appear at the top level of a trace, after the file header.
  kEventBatch = 1,
  kStringBatch = 2,
  kStackBatch = 3,
  kSiteBatch = 4,
  kClockSync = 5,
  kProcessInfo = 6,
  kEndOfGeneration = 7,
  kExperimentalBatch = 8,
  kCompressedGeneration = 9,
  // Table records: appear in the bodies of string, stack and site batches.
  kString = 10,
  kStringPart = 11,
  kStack = 12,
  kSite = 13,
  kModule = 14,
  // Timed Trace2 events: appear in the bodies of event batches.
  kVersion = 16,
  kTooManyFiles = 17,
  kStart = 18,
  kExit = 19,
  kSignal = 20,
  kAtexit = 21,
  kError = 22,
  kCmdPath = 23,
  kCmdAncestry = 24,
  kCmdName = 25,
  kCmdMode = 26,
  kAlias = 27,
  kChildStart = 28,
  kChildExit = 29,
  kChildReady = 30,
  kExec = 31,
  kExecResult = 32,
  kThreadStart = 33,
  kThreadExit = 34,
  kDefParam = 35,
  kDefRepo = 36,
  kRegionEnter = 37,
  kRegionLeave = 38,
  kData = 39,
  kDataInt = 40,
  kDataJson = 41,
  kPrintf = 42,
  kThTimer = 43,
  kTimer = 44,
  kThCounter = 45,
  kCounter = 46,
  kThreadStatus = 47,
  kRegionActive = 48,
  kStackRef = 49,
  // Tasks and gauges (format version 3): tracewire's own events, beyond Trace2.
  kTaskBegin = 50,
  kTaskEnd = 51,
  kTaskAdopt = 52,
  kTaskRelease = 53,
  kGauge = 54,
  kTaskActive = 55,
  kTaskAdopted = 56,
  // CPU profile samples (TRACEWIRE_CPU_PROFILE): in event batch bodies, not Trace2 events.
  kCpuSample = 60,
  kCpuSamplesLost = 61,
  // Experimental events (>= 128). Every experimental event, known or not, is encoded as
  // type, dt, data length, data, so readers can skip the ones they do not know.
  kExpMark = 128,
};

// How an argument's varint is to be read.
enum class ArgType : uint8_t {
  kUint,        // plain unsigned LEB128
  kInt,         // zigzag-encoded signed value
  kDeltaTime,   // ticks since the previous event of the batch (or its base time); >= 1
  kTime,        // absolute trace-clock ticks
  kDuration,    // a span of trace-clock ticks
  kLength,      // byte length of the batch body that follows the header
  kString,      // string ID in this generation's string table; 0 = no string
  kStringList,  // string ID whose bytes are a list: each item followed by one NUL byte
  kStack,       // stack ID in this generation's stack table; 0 = no stack
  kSite,        // site ID in this generation's site table (never 0)
};

// Where a record may appear.
enum class Scope : uint8_t {
  kFrame,       // top level of the trace
  kEventBody,   // body of an event_batch
  kStringBody,  // body of a string_batch
  kStackBody,   // body of a stack_batch
  kSiteBody,    // body of a site_batch
};

// What a frame's body (kLength argument) holds.
enum class BodyKind : uint8_t {
  kNone,
  kEvents,   // timed events, Scope::kEventBody
  kStrings,  // string records, Scope::kStringBody
  kStacks,   // stack records, Scope::kStackBody
  kSites,    // site records, Scope::kSiteBody
};

// Role of an event in a begin/end range.
enum class RangeRole : uint8_t {
  kNone,
  kBegin,   // opens a range
  kEnd,     // closes the range opened by `StartType()`
  kActive,  // re-states, at a generation start, a range opened in an earlier generation
};

// One argument: a name ending in its kind (`dt`, `site`, `category_string`, ...), a type,
// and the format version that added it to its row (0: the row always had it). Arguments
// added later trail their row: a record in an older trace lacks them.
struct ArgSpec {
  absl::string_view name;
  ArgType type;
  uint8_t since = 0;
};

// One row of the table.
struct EventSpec {
  EventType type = EventType::kNone;
  absl::string_view name;          // row name, e.g. "region_enter", "data_int"
  absl::string_view trace2_event;  // Trace2 event it decodes to, "" for structural rows
  ArgSpec args[kMaxArgs] = {};
  uint8_t num_args = 0;
  uint8_t base_args = 0;              // arguments the row always had (ArgSpec::since 0)
  uint8_t newest_arg = 0;             // highest ArgSpec::since of the row
  uint8_t string_ids[kMaxArgs] = {};  // indices of kString/kStringList args
  uint8_t num_string_ids = 0;
  uint8_t stack_ids[kMaxArgs] = {};  // indices of kStack args
  uint8_t num_stack_ids = 0;
  Scope scope = Scope::kFrame;
  bool timed = false;               // first argument is dt, appears in event bodies
  bool has_data = false;            // args are followed by uvarint length + bytes
  bool is_stack = false;            // args are followed by nframes x (pc, func, file, line)
  BodyKind body = BodyKind::kNone;  // a body of `length` bytes follows the args
  RangeRole range = RangeRole::kNone;
  EventType start_type = EventType::kNone;  // for kEnd/kActive: the kBegin type
  bool experimental = false;
  uint32_t max_data = 0;  // largest data trailer when has_data
  // The event first closes every region open on its thread (git's tr2tls_pop_unwind_self:
  // atexit, thread_exit, timers and counters), so its nesting is 1. Reader semantics, not
  // wire layout: consumers that track regions ask this column rather than list the rows.
  bool unwinds_regions = false;

  // The argument list in order.
  absl::Span<const ArgSpec> Args() const { return absl::MakeConstSpan(args, num_args); }
  // Number of arguments a record of this row has in a trace of format `version` (a prefix
  // of Args(): the arguments added after `version` are absent).
  uint8_t NumArgsIn(uint32_t version) const {
    if (version >= newest_arg) return num_args;
    uint8_t n = base_args;
    while (n < num_args && args[n].since <= version) ++n;
    return n;
  }
  // Indices of string-ID arguments.
  absl::Span<const uint8_t> StringIds() const {
    return absl::MakeConstSpan(string_ids, num_string_ids);
  }
  // Indices of stack-ID arguments.
  absl::Span<const uint8_t> StackIds() const {
    return absl::MakeConstSpan(stack_ids, num_stack_ids);
  }
  // Index of the argument named `name`, or -1.
  int ArgIndex(absl::string_view name) const;
};

// The row for `type`, or nullptr if the type is not in the table.
const EventSpec* LookupSpec(EventType type);
inline const EventSpec* LookupSpec(uint8_t type) {
  return LookupSpec(static_cast<EventType>(type));
}

// Every row of the table, ordered by type number.
absl::Span<const EventSpec> AllSpecs();

// Row name -> type for every row of the table ("region_enter", "data_int", "stack_batch",
// ...), built once from the table (Go's tracev2.EventNames). Names are unique.
const absl::flat_hash_map<absl::string_view, EventType>& EventNames();

// The row named `name`, or nullptr if no row has that name.
const EventSpec* LookupSpecByName(absl::string_view name);

// The row a Trace2 event named `trace2_event` is written as ("data" -> the data row, whose
// name is its Trace2 event's), or nullptr if no row writes that Trace2 event under its own
// name. Rows that share a Trace2 event (data_int) are reached through LookupSpecByName.
const EventSpec* LookupTrace2Event(absl::string_view trace2_event);

// True if `type` is in the experimental range (>= 128).
constexpr bool IsExperimentalType(uint8_t type) { return type >= kFirstExperimentalType; }

// Name of a scope for messages ("top level", "event batch body", ...).
absl::string_view ScopeName(Scope scope);

// The scope a body kind's records live in.
Scope BodyScope(BodyKind body);

// Flags of child_start's `flags` argument.
inline constexpr uint64_t kChildFlagUseShell = 1;
inline constexpr uint64_t kChildFlagGitCommand = 2;

// Values of child_ready's `ready` argument.
inline constexpr uint64_t kChildReadyReady = 0;
inline constexpr uint64_t kChildReadyTimeout = 1;
inline constexpr uint64_t kChildReadyError = 2;

}  // namespace tracewire::format

#endif  // TRACEWIRE_FORMAT_EVENT_SPEC_H_
