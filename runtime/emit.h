// Helpers shared by the API functions to build events (internal to the runtime).
#ifndef TRACEWIRE_RUNTIME_EMIT_H_
#define TRACEWIRE_RUNTIME_EMIT_H_

#include <initializer_list>
#include <string>

#include "format/event_spec.h"
#include "format/varint.h"
#include "runtime/recorder.h"

namespace tracewire::runtime {

// Site ID (in the thread's generation) of C arguments whose strings may change later.
inline uint64_t SiteFor(ThreadState* ts, const char* file, int line, const char* category = nullptr,
                        const char* label = nullptr, int repo_id = TW_NO_REPO) {
  return GenSiteId(ts, SiteIndexForContent(ts, file, line, category, label, repo_id));
}

// Stamps the event and writes type, dt, site and `rest`. Requires BeginEvent.
inline void WriteTimed(ThreadState* ts, format::EventType type, uint64_t site,
                       std::initializer_list<uint64_t> rest) {
  uint64_t now;
  const uint64_t dt = StampEvent(ts, &now);
  uint8_t* p = ts->pos.get();
  *p++ = static_cast<uint8_t>(type);
  p = format::PutUvarint(p, dt);
  p = format::PutUvarint(p, site);
  for (uint64_t arg : rest) p = format::PutUvarint(p, arg);
  ts->pos.publish(p);
}

// A unique string for an optional C string: 0 for NULL.
inline uint64_t OptionalUnique(ThreadState* ts, const char* value) {
  return value == nullptr ? 0 : UniqueString(ts, value);
}

// Encodes a NULL-terminated argv (optionally redacted, optionally prefixed) as a string
// list and records it; uses the thread's scratch buffer.
uint64_t ArgvString(ThreadState* ts, const char* const* argv, bool redact);

// Unique string of printf-style output (thread scratch buffer, no allocation once warm).
uint64_t FormattedString(ThreadState* ts, const char* fmt, va_list ap);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_EMIT_H_
