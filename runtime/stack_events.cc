#include "runtime/stack_events.h"

#include "format/event_spec.h"
#include "runtime/text.h"

namespace tracewire::runtime {
namespace {

using format::EventType;

// An event name and the rows (at most two) that record it with a stack.
struct StackEvent {
  absl::string_view name;
  EventType rows[2];
};

// Every event whose recording captures a stack when asked (MaybeRecordStack's callers).
constexpr StackEvent kStackEvents[] = {
    {"error", {EventType::kError, EventType::kNone}},
    {"child_start", {EventType::kChildStart, EventType::kNone}},
    {"region_enter", {EventType::kRegionEnter, EventType::kNone}},
    {"region_leave", {EventType::kRegionLeave, EventType::kNone}},
    {"data", {EventType::kData, EventType::kDataInt}},
    {"data_json", {EventType::kDataJson, EventType::kNone}},
    {"printf", {EventType::kPrintf, EventType::kNone}},
};

const StackEvent* FindStackEvent(absl::string_view name) {
  for (const StackEvent& event : kStackEvents) {
    if (event.name == name) return &event;
  }
  return nullptr;
}

}  // namespace

void AddStackEvents(absl::string_view list, uint64_t mask[4], std::vector<std::string>* unknown) {
  for (absl::string_view item : SplitByChar(list, ',', /*skip_empty=*/true)) {
    const absl::string_view name = StripAsciiWhitespace(item);
    if (name.empty()) continue;
    const StackEvent* event = FindStackEvent(name);
    if (event == nullptr) {
      if (unknown != nullptr) unknown->emplace_back(name);
      continue;
    }
    for (EventType row : event->rows) {
      if (row == EventType::kNone) continue;
      const unsigned t = static_cast<unsigned>(row);
      mask[t >> 6] |= uint64_t{1} << (t & 63);
    }
  }
}

std::string StackEventNames() {
  std::string names;
  for (const StackEvent& event : kStackEvents) {
    if (!names.empty()) names += ", ";
    names.append(event.name.data(), event.name.size());
  }
  return names;
}

}  // namespace tracewire::runtime
