#include "tools/go_import/go_trace_spec.h"

#include <array>

namespace tracewire::go_trace {
namespace {

using K = GoKind;

constexpr GoEventSpec Timed(absl::string_view name, uint8_t args, K kind, int8_t stack = -1,
                            int8_t s0 = -1, int8_t s1 = -1, uint8_t start = kEvNone,
                            bool go123 = false) {
  return GoEventSpec{name, args, true, stack, {s0, s1}, start, kind, go123};
}

constexpr GoEventSpec Untimed(absl::string_view name, uint8_t args) {
  return GoEventSpec{name, args, false, -1, {-1, -1}, kEvNone, K::kBad, false};
}

constexpr std::array<GoEventSpec, 256> MakeTable() {
  std::array<GoEventSpec, 256> t{};
  t[kEvEventBatch] = Untimed("EventBatch", 4);
  t[kEvStacks] = Untimed("Stacks", 0);
  t[kEvStack] = Untimed("Stack", 2);
  t[kEvStrings] = Untimed("Strings", 0);
  t[kEvString] = Untimed("String", 1);
  t[kEvCPUSamples] = Untimed("CPUSamples", 0);
  t[kEvCPUSample] = Untimed("CPUSample", 5);
  t[kEvCPUSample].kind = K::kStackSample;
  t[kEvFrequency] = Untimed("Frequency", 1);
  t[kEvExperimentalBatch] = Untimed("ExperimentalBatch", 4);
  //                                   name, args, kind, stack, strings, start
  t[kEvProcsChange] = Timed("ProcsChange", 2, K::kMetric, 1);
  t[kEvProcStart] = Timed("ProcStart", 2, K::kStateTransition);
  t[kEvProcStop] = Timed("ProcStop", 0, K::kStateTransition);
  t[kEvProcSteal] = Timed("ProcSteal", 3, K::kStateTransition);
  t[kEvProcStatus] = Timed("ProcStatus", 2, K::kStateTransition);
  t[kEvGoCreate] = Timed("GoCreate", 3, K::kStateTransition, 2);
  t[kEvGoCreateSyscall] = Timed("GoCreateSyscall", 1, K::kStateTransition);
  t[kEvGoStart] = Timed("GoStart", 2, K::kStateTransition);
  t[kEvGoDestroy] = Timed("GoDestroy", 0, K::kStateTransition);
  t[kEvGoDestroySyscall] = Timed("GoDestroySyscall", 0, K::kStateTransition);
  t[kEvGoStop] = Timed("GoStop", 2, K::kStateTransition, 1, 0);
  t[kEvGoBlock] = Timed("GoBlock", 2, K::kStateTransition, 1, 0);
  t[kEvGoUnblock] = Timed("GoUnblock", 3, K::kStateTransition, 2);
  t[kEvGoSyscallBegin] = Timed("GoSyscallBegin", 2, K::kStateTransition, 1);
  t[kEvGoSyscallEnd] = Timed("GoSyscallEnd", 0, K::kStateTransition, -1, -1, -1, kEvGoSyscallBegin);
  t[kEvGoSyscallEndBlocked] =
      Timed("GoSyscallEndBlocked", 0, K::kStateTransition, -1, -1, -1, kEvGoSyscallBegin);
  t[kEvGoStatus] = Timed("GoStatus", 3, K::kStateTransition);
  t[kEvSTWBegin] = Timed("STWBegin", 2, K::kRangeBegin, 1, 0);
  t[kEvSTWEnd] = Timed("STWEnd", 0, K::kRangeEnd, -1, -1, -1, kEvSTWBegin);
  t[kEvGCActive] = Timed("GCActive", 1, K::kRangeActive, -1, -1, -1, kEvGCBegin);
  t[kEvGCBegin] = Timed("GCBegin", 2, K::kRangeBegin, 1);
  t[kEvGCEnd] = Timed("GCEnd", 1, K::kRangeEnd, -1, -1, -1, kEvGCBegin);
  t[kEvGCSweepActive] = Timed("GCSweepActive", 1, K::kRangeActive, -1, -1, -1, kEvGCSweepBegin);
  t[kEvGCSweepBegin] = Timed("GCSweepBegin", 1, K::kRangeBegin, 0);
  t[kEvGCSweepEnd] = Timed("GCSweepEnd", 2, K::kRangeEnd, -1, -1, -1, kEvGCSweepBegin);
  t[kEvGCMarkAssistActive] =
      Timed("GCMarkAssistActive", 1, K::kRangeActive, -1, -1, -1, kEvGCMarkAssistBegin);
  t[kEvGCMarkAssistBegin] = Timed("GCMarkAssistBegin", 1, K::kRangeBegin, 0);
  t[kEvGCMarkAssistEnd] =
      Timed("GCMarkAssistEnd", 0, K::kRangeEnd, -1, -1, -1, kEvGCMarkAssistBegin);
  t[kEvHeapAlloc] = Timed("HeapAlloc", 1, K::kMetric);
  t[kEvHeapGoal] = Timed("HeapGoal", 1, K::kMetric);
  t[kEvGoLabel] = Timed("GoLabel", 1, K::kLabel, -1, 0);
  t[kEvUserTaskBegin] = Timed("UserTaskBegin", 4, K::kTaskBegin, 3, 2);
  t[kEvUserTaskEnd] = Timed("UserTaskEnd", 2, K::kTaskEnd, 1);
  t[kEvUserRegionBegin] = Timed("UserRegionBegin", 3, K::kRegionBegin, 2, 1);
  t[kEvUserRegionEnd] = Timed("UserRegionEnd", 3, K::kRegionEnd, 2, 1, -1, kEvUserRegionBegin);
  t[kEvUserLog] = Timed("UserLog", 4, K::kLog, 3, 1, 2);
  t[kEvGoSwitch] = Timed("GoSwitch", 2, K::kStateTransition, -1, -1, -1, kEvNone, true);
  t[kEvGoSwitchDestroy] =
      Timed("GoSwitchDestroy", 2, K::kStateTransition, -1, -1, -1, kEvNone, true);
  t[kEvGoCreateBlocked] =
      Timed("GoCreateBlocked", 3, K::kStateTransition, 2, -1, -1, kEvNone, true);
  t[kEvGoStatusStack] = Timed("GoStatusStack", 4, K::kStateTransition, 3, -1, -1, kEvNone, true);
  t[kEvExperimentalBatch].go123 = true;
  // The alloc/free experiment: events of experimental batches' neighbours in event batches.
  constexpr struct {
    absl::string_view name;
    uint8_t args;
  } kExperimental[] = {
      {"Span", 3},           {"SpanAlloc", 3},           {"SpanFree", 1},
      {"HeapObject", 2},     {"HeapObjectAlloc", 2},     {"HeapObjectFree", 1},
      {"GoroutineStack", 2}, {"GoroutineStackAlloc", 2}, {"GoroutineStackFree", 1}};
  for (int i = 0; i < 9; ++i) {
    t[kEvFirstExperimental + i] = Timed(kExperimental[i].name, kExperimental[i].args,
                                        K::kExperimental, -1, -1, -1, kEvNone, true);
  }
  t[kEvSync] = GoEventSpec{"Sync", 0, false, -1, {-1, -1}, kEvNone, K::kSync, false};
  return t;
}

constexpr std::array<GoEventSpec, 256> kTable = MakeTable();

constexpr absl::string_view kKindNames[] = {
    "Bad",         "Sync",        "Metric",   "Label",           "StackSample",
    "RangeBegin",  "RangeActive", "RangeEnd", "TaskBegin",       "TaskEnd",
    "RegionBegin", "RegionEnd",   "Log",      "StateTransition", "Experimental"};

constexpr absl::string_view kGoStateNames[] = {"Undetermined", "NotExist", "Runnable",
                                               "Running",      "Waiting",  "Syscall"};
constexpr absl::string_view kProcStateNames[] = {"Undetermined", "NotExist", "Running", "Idle"};

}  // namespace

const GoEventSpec& GoSpec(uint8_t type) { return kTable[type]; }

absl::string_view GoKindName(GoKind kind) { return kKindNames[static_cast<int>(kind)]; }

absl::string_view GoStateName(GoState state) { return kGoStateNames[static_cast<int>(state)]; }

absl::string_view ProcStateName(ProcState state) {
  return kProcStateNames[static_cast<int>(state)];
}

GoState GoStateOfStatus(uint64_t status) {
  constexpr GoState kStates[] = {GoState::kUndetermined, GoState::kRunnable, GoState::kRunning,
                                 GoState::kSyscall, GoState::kWaiting};
  return status < 5 ? kStates[status] : GoState::kUndetermined;
}

ProcState ProcStateOfStatus(uint64_t status) {
  constexpr ProcState kStates[] = {ProcState::kUndetermined, ProcState::kRunning, ProcState::kIdle,
                                   ProcState::kRunning, ProcState::kIdle};
  return status < 5 ? kStates[status] : ProcState::kUndetermined;
}

}  // namespace tracewire::go_trace
