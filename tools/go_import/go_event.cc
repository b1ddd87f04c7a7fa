#include "tools/go_import/go_event.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tracewire::go_trace {
namespace {

// Go's %q of a string (strconv.Quote for printable ASCII and common escapes).
std::string Quote(absl::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          absl::StrAppendFormat(&out, "\\x%02x", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

std::string Resource(absl::string_view kind, int64_t id) {
  return absl::StrCat(kind, "(", id, ")");
}

void RangeText(const GoEvent& e, std::string* out) {
  std::string name, scope;
  switch (e.type) {
    case kEvSTWBegin:
    case kEvSTWEnd:
      name = absl::StrCat("stop-the-world (", e.StringArg(0), ")");
      scope = Resource("Goroutine", e.g);
      break;
    case kEvGCBegin:
    case kEvGCActive:
    case kEvGCEnd:
      name = "GC concurrent mark phase";
      scope = "None";
      break;
    case kEvGCSweepBegin:
    case kEvGCSweepActive:
    case kEvGCSweepEnd:
      name = "GC incremental sweep";
      scope = Resource("Proc", e.p);  // Go reports the event's P even for GCSweepActive
      break;
    default:  // mark assist
      name = "GC mark assist";
      scope = Resource("Goroutine",
                       e.type == kEvGCMarkAssistActive ? static_cast<int64_t>(e.args[0]) : e.g);
      break;
  }
  absl::StrAppend(out, " Name=", Quote(name), " Scope=", scope);
  if (e.kind() == GoKind::kRangeEnd) {
    *out += " Attributes=[";
    if (e.type == kEvGCSweepEnd) {
      absl::StrAppend(out, "\"bytes swept\"=Uint64(", e.args[0], ") \"bytes reclaimed\"=Uint64(",
                      e.args[1], ")");
    }
    *out += "]";
  }
}

void TransitionText(const GoEvent& e, std::string* out) {
  bool proc = false;
  int64_t id = 0;
  int from = 0, to = 0;
  absl::string_view reason;
  uint64_t stack = 0;
  using G = GoState;
  using P = ProcState;
  auto go = [&](int64_t gid, G a, G b) {
    id = gid;
    from = static_cast<int>(a);
    to = static_cast<int>(b);
  };
  auto pr = [&](int64_t pid, P a, P b) {
    proc = true;
    id = pid;
    from = static_cast<int>(a);
    to = static_cast<int>(b);
  };
  switch (e.type) {
    case kEvProcStart:
      pr(static_cast<int64_t>(e.args[0]), P::kIdle, P::kRunning);
      break;
    case kEvProcStop:
      pr(e.p, P::kRunning, P::kIdle);
      break;
    case kEvProcSteal:
      pr(static_cast<int64_t>(e.args[0]),
         e.extra[0] == kProcSyscallAbandoned ? P::kIdle : P::kRunning, P::kIdle);
      break;
    case kEvProcStatus:
      pr(static_cast<int64_t>(e.args[0]), static_cast<P>(e.extra[0]), ProcStateOfStatus(e.args[1]));
      break;
    case kEvGoCreate:
    case kEvGoCreateBlocked:
      go(static_cast<int64_t>(e.args[0]), G::kNotExist,
         e.type == kEvGoCreateBlocked ? G::kWaiting : G::kRunnable);
      stack = e.args[1];
      break;
    case kEvGoCreateSyscall:
      go(static_cast<int64_t>(e.args[0]), G::kNotExist, G::kSyscall);
      break;
    case kEvGoStart:
      go(static_cast<int64_t>(e.args[0]), G::kRunnable, G::kRunning);
      break;
    case kEvGoDestroy:
      go(e.g, G::kRunning, G::kNotExist);
      stack = e.stack();
      break;
    case kEvGoDestroySyscall:
      go(e.g, G::kSyscall, G::kNotExist);
      break;
    case kEvGoStop:
    case kEvGoBlock:
      go(e.g, G::kRunning, e.type == kEvGoStop ? G::kRunnable : G::kWaiting);
      reason = e.StringArg(0);
      stack = e.stack();
      break;
    case kEvGoUnblock:
    case kEvGoSwitch:
    case kEvGoSwitchDestroy:
      go(static_cast<int64_t>(e.args[0]), G::kWaiting, G::kRunnable);
      break;
    case kEvGoSyscallBegin:
      go(e.g, G::kRunning, G::kSyscall);
      stack = e.stack();
      break;
    case kEvGoSyscallEnd:
      go(e.g, G::kSyscall, G::kRunning);
      stack = e.stack();
      break;
    case kEvGoSyscallEndBlocked:
      go(e.g, G::kSyscall, G::kRunnable);
      stack = e.stack();
      break;
    default:  // GoStatus, GoStatusStack
      go(static_cast<int64_t>(e.args[0]), static_cast<G>(e.extra[0]), GoStateOfStatus(e.args[2]));
      break;
  }
  absl::StrAppend(out, " Resource=", Resource(proc ? "Proc" : "Goroutine", id),
                  " Reason=", Quote(reason));
  if (proc) {
    absl::StrAppend(out, " ProcID=", id, " ", ProcStateName(static_cast<P>(from)), "->",
                    ProcStateName(static_cast<P>(to)));
  } else {
    absl::StrAppend(out, " GoID=", id, " ", GoStateName(static_cast<G>(from)), "->",
                    GoStateName(static_cast<G>(to)));
  }
  if (stack != 0) {
    *out += "\nTransitionStack=\n";
    AppendGoStackText(*e.table, stack, out);
  }
}

}  // namespace

absl::string_view GoEvent::StringArg(int i) const {
  if (table == nullptr) return "";
  const std::string* s = table->String(args[i]);
  return s == nullptr ? absl::string_view() : absl::string_view(*s);
}

void AppendGoStackText(const GoGeneration& table, uint64_t stack, std::string* out) {
  auto it = table.stacks.find(stack);
  if (it == table.stacks.end()) return;
  for (uint64_t pc : it->second) {
    const GoFrame& f = table.frames.at(pc);
    absl::StrAppendFormat(out, "\t%s @ 0x%x\n\t\t%s:%d\n", *table.String(f.func), f.pc,
                          *table.String(f.file), f.line);
  }
}

std::string GoEventText(const GoEvent& e) {
  std::string out =
      absl::StrCat("M=", e.m, " P=", e.p, " G=", e.g, " ", GoKindName(e.kind()), " Time=", e.time);
  switch (e.kind()) {
    case GoKind::kMetric: {
      absl::string_view name = e.type == kEvProcsChange ? "/sched/gomaxprocs:threads"
                               : e.type == kEvHeapAlloc ? "/memory/classes/heap/objects:bytes"
                                                        : "/gc/heap/goal:bytes";
      absl::StrAppend(&out, " Name=", Quote(name), " Value=Uint64(", e.args[0], ")");
      break;
    }
    case GoKind::kLabel:
      absl::StrAppend(&out, " Label=", Quote(e.StringArg(0)),
                      " Resource=", Resource("Goroutine", e.g));
      break;
    case GoKind::kRangeBegin:
    case GoKind::kRangeActive:
    case GoKind::kRangeEnd:
      RangeText(e, &out);
      break;
    case GoKind::kTaskBegin:
      absl::StrAppend(&out, " ID=", e.args[0], " Parent=", e.args[1],
                      " Type=", Quote(e.StringArg(2)));
      break;
    case GoKind::kTaskEnd:
      absl::StrAppend(&out, " ID=", e.args[0], " Parent=", e.extra[0],
                      " Type=", Quote(e.extra_string));
      break;
    case GoKind::kRegionBegin:
    case GoKind::kRegionEnd:
      absl::StrAppend(&out, " Task=", e.args[0], " Type=", Quote(e.StringArg(1)));
      break;
    case GoKind::kLog:
      absl::StrAppend(&out, " Task=", e.args[0], " Category=", Quote(e.StringArg(1)),
                      " Message=", Quote(e.StringArg(2)));
      break;
    case GoKind::kStateTransition:
      TransitionText(e, &out);
      break;
    case GoKind::kExperimental: {
      absl::StrAppend(&out, " Name=", e.spec().name, " ArgNames=[");
      out += "] Args=[";
      for (int i = 0; i < e.spec().args; ++i) absl::StrAppend(&out, i ? " " : "", e.args[i]);
      out += "]";
      break;
    }
    default:
      break;
  }
  if (e.type != kEvSync && e.stack() != 0 && e.table != nullptr) {
    out += "\nStack=\n";
    AppendGoStackText(*e.table, e.stack(), &out);
  }
  return out;
}

}  // namespace tracewire::go_trace
