#include "reader/event.h"

#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "format/event_spec.h"
#include "reader/event_fields.h"
#include "reader/kind_table.h"

namespace tracewire::reader {
namespace {

std::string Opt(const std::optional<absl::string_view>& value) {
  return value.has_value() ? absl::StrCat("\"", *value, "\"") : "none";
}

std::string Views(const std::vector<absl::string_view>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "" : ",", "\"", items[i], "\"");
  }
  return absl::StrCat(out, "]");
}

// DebugString's rendering of a payload field, by its type.
std::string PayloadText(const std::optional<absl::string_view>& value) { return Opt(value); }
std::string PayloadText(const std::vector<absl::string_view>& items) { return Views(items); }
std::string PayloadText(double value) { return absl::StrFormat("%.6f", value); }
std::string PayloadText(const std::optional<double>& value) {
  return value.has_value() ? PayloadText(*value) : "none";
}
std::string PayloadText(const std::optional<int64_t>& value) {
  return value.has_value() ? absl::StrCat(*value) : "none";
}
template <typename T>
std::string PayloadText(const T& value) {
  return absl::StrCat(value);
}

}  // namespace

namespace {

using format::EventType;

// The wire row of each EventKind whose name is the kind's Trace2 event name (data_int, the
// other row that decodes to kData, shares the data row's Trace2 event).
constexpr EventType kKindRows[] = {
    EventType::kVersion,     EventType::kTooManyFiles, EventType::kStart,
    EventType::kExit,        EventType::kSignal,       EventType::kAtexit,
    EventType::kError,       EventType::kCmdPath,      EventType::kCmdAncestry,
    EventType::kCmdName,     EventType::kCmdMode,      EventType::kAlias,
    EventType::kChildStart,  EventType::kChildExit,    EventType::kChildReady,
    EventType::kExec,        EventType::kExecResult,   EventType::kThreadStart,
    EventType::kThreadExit,  EventType::kDefParam,     EventType::kDefRepo,
    EventType::kRegionEnter, EventType::kRegionLeave,  EventType::kData,
    EventType::kDataJson,    EventType::kPrintf,       EventType::kThTimer,
    EventType::kTimer,       EventType::kThCounter,    EventType::kCounter,
    EventType::kTaskBegin,   EventType::kTaskEnd,      EventType::kTaskAdopt,
    EventType::kTaskRelease, EventType::kGauge,
};
static_assert(std::size(kKindRows) == kNumTrace2Kinds, "one row per Trace2 EventKind");

// The wire rows of the kinds that are not Trace2 events, from kCpuSample on (named by
// their rows).
constexpr EventType kProfileKindRows[] = {EventType::kCpuSample, EventType::kCpuSamplesLost};
static_assert(kNumTrace2Kinds + std::size(kProfileKindRows) ==
                  static_cast<size_t>(EventKind::kExperimental),
              "one row per EventKind that is not a Trace2 event");

// EventKind of every wire type, derived from the spec table's Trace2 event names.
struct KindsOfTypes {
  EventKind kind[256];
  KindsOfTypes() {
    for (EventKind& k : kind) k = EventKind::kExperimental;
    for (size_t k = 0; k < std::size(kKindRows); ++k) {
      const absl::string_view name = format::LookupSpec(kKindRows[k])->trace2_event;
      for (const format::EventSpec& spec : format::AllSpecs()) {
        if (spec.trace2_event == name) kind[static_cast<uint8_t>(spec.type)] = EventKind(k);
      }
    }
    for (size_t k = 0; k < std::size(kProfileKindRows); ++k) {
      kind[static_cast<uint8_t>(kProfileKindRows[k])] = EventKind(kNumTrace2Kinds + k);
    }
  }
};

}  // namespace

absl::string_view EventKindName(EventKind kind) {
  const size_t k = static_cast<size_t>(kind);
  if (k < kNumTrace2Kinds) return format::LookupSpec(kKindRows[k])->trace2_event;
  if (k - kNumTrace2Kinds < std::size(kProfileKindRows)) {
    return format::LookupSpec(kProfileKindRows[k - kNumTrace2Kinds])->name;
  }
  return "experimental";
}

EventKind EventKindOfType(uint8_t type) {
  static const KindsOfTypes* table = new KindsOfTypes();
  return table->kind[type];
}

std::optional<EventKind> EventKindByName(absl::string_view name) {
  const format::EventSpec* spec = format::LookupTrace2Event(name);
  if (spec == nullptr) {
    for (EventType row : kProfileKindRows) {
      if (format::LookupSpec(row)->name == name) return EventKindOfType(static_cast<uint8_t>(row));
    }
    return std::nullopt;
  }
  return EventKindOfType(static_cast<uint8_t>(spec->type));
}

bool KindUnwindsRegions(EventKind kind) {
  static const KindTable<bool>* unwinds = [] {
    auto* table = new KindTable<bool>();
    for (const format::EventSpec& spec : format::AllSpecs()) {
      if (spec.unwinds_regions) (*table)[EventKindOfType(static_cast<uint8_t>(spec.type))] = true;
    }
    return table;
  }();
  return (*unwinds)[kind];
}

std::string FrameText(const SymbolFrame& frame) {
  std::string out =
      frame.func.empty() ? absl::StrFormat("0x%x", frame.pc) : std::string(frame.func);
  if (!frame.file.empty()) {
    absl::StrAppend(&out, " (", frame.file);
    if (frame.line != 0) absl::StrAppend(&out, ":", frame.line);
    out += ")";
  }
  if (!frame.module.empty()) {
    absl::StrAppendFormat(&out, " [%s+0x%x]", frame.module, frame.module_offset);
  }
  return out;
}

std::string Event::DebugString() const {
  std::string out = absl::StrFormat(
      "%s gen=%d sid=%s d%d thread=%s time=%s file=%s:%d repo=%s t_abs=%.6f t_rel=%s "
      "nesting=%d cat=%s label=%s msg=%s",
      EventKindName(kind), gen, sid, depth, thread_name,
      absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", time, absl::UTCTimeZone()), file, line,
      repo.has_value() ? absl::StrCat(*repo) : "none", t_abs,
      t_rel.has_value() ? absl::StrFormat("%.6f", *t_rel) : "none", nesting, category, label,
      Opt(msg));
  if (kind == EventKind::kExperimental) {
    absl::StrAppend(&out, " type=", wire_type, " bytes=", experimental_data.size());
  }
  VisitPayload(*this, [&out](absl::string_view label, const auto& value) {
    absl::StrAppend(&out, " ", label, "=", PayloadText(value));
  });
  if (adopted_task != 0) absl::StrAppend(&out, " adopted_task=", adopted_task);
  if (!stack.empty()) absl::StrAppend(&out, " stack=", stack.size(), " frames");
  return out;
}

}  // namespace tracewire::reader
