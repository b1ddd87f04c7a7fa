// Formatter: turns the reader's semantic events into one output format. The targets of
// git's Trace2 (NORMAL, PERF, EVENT) and the exporters (Chrome, OTLP) implement it; the
// `tracewire decode` command drives one over a reader's stream.
#ifndef TRACEWIRE_READER_TARGETS_FORMATTER_H_
#define TRACEWIRE_READER_TARGETS_FORMATTER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "reader/event.h"

namespace tracewire::targets {

// Options shared by the formatters (each reads the ones that apply to it).
struct FormatterOptions {
  // Brief mode of the git targets (GIT_TRACE2_BRIEF, GIT_TRACE2_PERF_BRIEF,
  // GIT_TRACE2_EVENT_BRIEF): drop the time and file:line prefixes.
  bool brief = false;
  // EVENT: region_enter/region_leave/data/data_json deeper than this are not written
  // (GIT_TRACE2_EVENT_NESTING; git's default is 2).
  int event_nesting = 2;
  // EVENT: the format version ("evt" of `version` events), kMinEventVersion to
  // kMaxEventVersion; each writes the events and keys of that version (EventTarget).
  int event_version = 4;
  // EVENT: add a "stack" array (the event's symbolized frames, innermost first) to events
  // that carry a stack (TRACEWIRE_STACKS). Not a git key: off by default.
  bool event_stacks = false;
  // NORMAL, PERF, EVENT: byte-for-byte git output. git writes some events from its own
  // code rather than the caller's (atexit, signal, timer, th_timer, counter, th_counter)
  // and prints its own source position for them (trace2/tr2_tgt_perf.c:580). With
  // git_exact they get those positions too; otherwise they carry the call site recorded
  // with them, if any, and no file:line when there is none.
  bool git_exact = false;
  // FOLDED: start each stack with the regions open on its thread ("region:cat/label").
  bool folded_regions = false;
};

// The EVENT format versions ("evt") the EVENT formatter writes.
inline constexpr int kMinEventVersion = 1;
inline constexpr int kMaxEventVersion = 4;

class Formatter {
 public:
  virtual ~Formatter() = default;
  // Appends the output for `event` (zero or more complete lines) to *out.
  virtual void Write(const reader::Event& event, std::string* out) = 0;
  // Appends whatever closes the output (nothing for line formats) to *out.
  virtual void Finish(std::string* out) {}
  // True if the output for an event does not depend on the events written before it, so
  // that separate instances may write runs of events to be concatenated (and Finish
  // writes nothing).
  virtual bool context_free() const { return false; }

  // Updates the formatter's state for `event` exactly as Write(event, ...) does, and writes
  // nothing: after any mix of Write and Skip calls over a stream of events, the formatter
  // writes what it would have written had every call been a Write. A parallel decode runs
  // one formatter per worker over every event, each writing its own stripes of events and
  // skipping the others', and concatenates the stripes. The default writes into a scratch
  // buffer and drops it (which costs what Write costs); context-free formatters skip
  // nothing.
  virtual void Skip(const reader::Event& event) {
    if (context_free()) return;
    skipped_text_.clear();
    Write(event, &skipped_text_);
  }
  // True if Skip costs much less than Write (what a worker saves by skipping), so that a
  // parallel decode pays off.
  virtual bool skips_cheaply() const { return context_free(); }

 private:
  std::string skipped_text_;
};

// The formatter of the output format named `name` (the registry of formats is
// reader/targets/output_formats.h, which implements this), or InvalidArgument for an unknown
// name or invalid options.
absl::StatusOr<std::unique_ptr<Formatter>> MakeFormatter(absl::string_view name,
                                                         const FormatterOptions& options);

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_FORMATTER_H_
