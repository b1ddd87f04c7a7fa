// Event fields: how the payload of a reader::Event is bound to the wire format. For each
// Trace2 row of the EventSpec table (format/event_spec.h) the list of the Event members its
// event fills, each either copied from one of the row's arguments (the conversion follows
// from the argument's ArgType and the member's type: a string ID into a string_view or an
// optional one, a string list into a vector, a zigzag int into int64_t, a duration into
// seconds, ...) or set by the kind's semantics in the decoder (argument name empty).
//
// The decoder copies arguments through these bindings, and Event::DebugString prints a
// kind's payload by visiting them, so a new event kind needs a row in the EventSpec table
// and its bindings here, not a case in every switch. Per-kind behaviour (region push and
// pop, child and exec bookkeeping, ...) stays in the decoder.
#ifndef TRACEWIRE_READER_EVENT_FIELDS_H_
#define TRACEWIRE_READER_EVENT_FIELDS_H_

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "format/event_spec.h"
#include "reader/event.h"

namespace tracewire::reader {

// A typed pointer to one member of Event.
using EventMember =
    std::variant<absl::string_view Event::*, std::optional<absl::string_view> Event::*,
                 std::vector<absl::string_view> Event::*, int64_t Event::*, uint64_t Event::*,
                 double Event::*, std::optional<double> Event::*, std::optional<int64_t> Event::*,
                 bool Event::*>;

// One Event member a row's events fill.
struct FieldBinding {
  // The row argument it is copied from; empty: set by the kind's semantics.
  absl::string_view arg;
  // Its name in Event::DebugString's payload part; empty: not printed there (a common
  // field such as msg, t_rel or repo).
  absl::string_view label;
  EventMember member;
};

// The bindings of the wire row `type`, in DebugString order, or nullptr if the reader has
// none for the row (structural and experimental rows, and Trace2 rows it does not know).
const std::vector<FieldBinding>* FieldBindings(format::EventType type);

// How a bound argument is converted into its member.
enum class FieldConversion : uint8_t {
  kNone,          // the argument type does not fit the member (a table error)
  kString,        // kString -> string_view (0: empty)
  kOptString,     // kString -> optional<string_view> (0: none)
  kStringList,    // kStringList -> vector of the NUL-terminated items
  kZigzag,        // kInt -> int64_t
  kUint,          // kUint -> uint64_t
  kUintToOptInt,  // kUint -> optional<int64_t>
  kSeconds,       // kDuration -> double seconds
  kOptSeconds,    // kDuration -> optional<double> seconds
};

// The conversion of an argument of type `arg` into `member`.
FieldConversion ConversionOf(format::ArgType arg, const EventMember& member);

// Calls visit(label, value) for each labelled payload field of `event`'s kind, in order,
// with `value` the member (a const reference of its type). Nothing for kExperimental.
template <typename Visitor>
void VisitPayload(const Event& event, Visitor&& visit);

// ---- Implementation details. ----

// The bindings DebugString prints for `kind` (those of the kind's own wire row).
const std::vector<FieldBinding>* KindFieldBindings(EventKind kind);

template <typename Visitor>
void VisitPayload(const Event& event, Visitor&& visit) {
  const std::vector<FieldBinding>* bindings = KindFieldBindings(event.kind);
  if (bindings == nullptr) return;
  for (const FieldBinding& binding : *bindings) {
    if (binding.label.empty()) continue;
    std::visit([&](auto member) { visit(binding.label, event.*member); }, binding.member);
  }
}

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_EVENT_FIELDS_H_
