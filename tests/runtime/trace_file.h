// Test helper: decodes a trace file written by the runtime with format/'s raw decoder only
// (the runtime's tests do not depend on reader/), resolving string, site and stack IDs.
#ifndef TRACEWIRE_TESTS_RUNTIME_TRACE_FILE_H_
#define TRACEWIRE_TESTS_RUNTIME_TRACE_FILE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "format/event_spec.h"
#include "format/generation_encoder.h"
#include "format/raw_event.h"

namespace tracewire::testing {

// One timed event with its IDs resolved.
struct DecodedEvent {
  format::EventType type = format::EventType::kNone;
  std::string name;     // row name
  uint64_t gen = 0;
  uint64_t thread = 0;
  uint64_t time = 0;    // absolute trace-clock ticks
  std::vector<uint64_t> args;                  // raw varints, dt included
  std::map<std::string, std::string> strings;  // string/strlist args present (ID != 0)
  format::Site site;                           // resolved site (when the row has one)
  std::vector<format::StackFrame> stack;       // frames of a stack_ref
  std::vector<std::string> stack_functions;    // resolved function names of a stack_ref

  // The raw value of argument `arg_name` (0 if the row has no such argument).
  uint64_t Arg(absl::string_view arg_name) const;
  // A string argument, or std::nullopt if absent (ID 0).
  std::optional<std::string> Str(absl::string_view arg_name) const;
};

// One complete generation.
struct DecodedGeneration {
  uint64_t gen = 0;
  format::ClockSync sync;
  int clock_syncs = 0;
  std::string sid;
  uint64_t pid = 0;
  uint64_t start_time = 0;
  std::optional<std::string> cmd_name;
  bool compressed = false;
  std::vector<DecodedEvent> events;  // per thread in file order, threads in batch order
};

struct DecodedTrace {
  std::vector<DecodedGeneration> generations;  // complete generations, in file order
  uint64_t complete_bytes = 0;                 // bytes up to the end of the last one
  uint64_t total_bytes = 0;
  absl::Status tail_status;  // OK, or why the bytes after the last generation did not decode

  // All events of all generations, in order.
  std::vector<DecodedEvent> AllEvents() const;
  // Events named `name` (row name).
  std::vector<DecodedEvent> Events(absl::string_view name) const;
};

// Decodes `bytes`. Complete generations are returned even if later bytes are bad; the
// problem is reported in tail_status. A malformed complete generation is an error.
absl::StatusOr<DecodedTrace> DecodeTrace(absl::string_view bytes);

// Reads and decodes a file.
absl::StatusOr<DecodedTrace> DecodeTraceFile(const std::string& path);

}  // namespace tracewire::testing

#endif  // TRACEWIRE_TESTS_RUNTIME_TRACE_FILE_H_
