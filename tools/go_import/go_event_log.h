// GoEventLog: one generation's events in Go's order, packed (varints: the type, the time
// as a delta from the previous event's, the M, P and goroutine where they changed, the
// arguments in use and the extras), so that holding a generation's events costs a small
// multiple of the generation's size in the trace (a GoEvent has 112 bytes).
#ifndef TRACEWIRE_TOOLS_GO_IMPORT_GO_EVENT_LOG_H_
#define TRACEWIRE_TOOLS_GO_IMPORT_GO_EVENT_LOG_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "tools/go_import/go_event.h"
#include "tools/go_import/go_generation.h"

namespace tracewire::go_trace {

class GoEventLog {
 public:
  // Forgets the events (keeps the memory for the next generation's).
  void Clear();
  // Appends `e`. Its extra_string must stay valid while the log is read (it points into
  // its generation's tables); its table is not kept (the reader of the log names it).
  void Add(const GoEvent& e);

  size_t size() const { return count_; }
  // Bytes the log holds (its capacity).
  size_t bytes() const { return data_.capacity(); }

  // Reads the log from its first event; each event's table is `table`.
  class Cursor {
   public:
    Cursor(const GoEventLog& log, const GoGeneration* table) : log_(&log), table_(table) {}
    // The next event; false after the last one.
    bool Next(GoEvent* out);

   private:
    const GoEventLog* log_;
    const GoGeneration* table_;
    size_t pos_ = 0;
    GoEvent last_;  // the previous event (its time and context)
  };

 private:
  std::string data_;
  size_t count_ = 0;
  GoEvent last_;  // the previous event added
};

}  // namespace tracewire::go_trace

#endif  // TRACEWIRE_TOOLS_GO_IMPORT_GO_EVENT_LOG_H_
