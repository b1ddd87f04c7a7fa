// TimeText: the wall-clock text of the git targets, with the text of the last whole second
// cached so that consecutive events only format their microseconds.
#ifndef TRACEWIRE_READER_TARGETS_TIME_TEXT_H_
#define TRACEWIRE_READER_TARGETS_TIME_TEXT_H_

#include <cstdint>
#include <limits>
#include <string>

#include "absl/time/time.h"
#include "reader/targets/output_cursor.h"

namespace tracewire::targets {

class TimeText {
 public:
  enum class Style {
    kUtcDateTime,  // EVENT "time": "2026-11-22T01:59:55.975310Z"
    kTimeOfDay,    // NORMAL/PERF prefix: "01:59:55.975215" (pass the local time)
  };

  explicit TimeText(Style style) : style_(style) {}

  // Appends the text of `t`, whose microseconds are truncated (as git's gettimeofday
  // values are) and whose fields are read in UTC (kTimeOfDay callers pass
  // Event::local_time(), the UTC time shifted by the UTC offset).
  void Append(absl::Time t, std::string* out);
  // Append through a cursor.
  void Put(absl::Time t, OutputCursor& cursor);

 private:
  // Sets cached_text_ to the text of `second` (Unix seconds) unless it holds it already.
  void CacheSecond(int64_t second);

  Style style_;
  int64_t cached_second_ = std::numeric_limits<int64_t>::min();
  std::string cached_text_;  // the text up to the seconds, for cached_second_
};

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_TIME_TEXT_H_
