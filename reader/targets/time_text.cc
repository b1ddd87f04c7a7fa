#include "reader/targets/time_text.h"

namespace tracewire::targets {
void TimeText::CacheSecond(int64_t second) {
  if (second == cached_second_) return;
  cached_second_ = second;
  cached_text_ = absl::FormatTime(style_ == Style::kUtcDateTime ? "%Y-%m-%dT%H:%M:%S" : "%H:%M:%S",
                                  absl::FromUnixSeconds(second), absl::UTCTimeZone());
}

void TimeText::Append(absl::Time t, std::string* out) {
  OutputCursor cursor(out);
  Put(t, cursor);
}

void TimeText::Put(absl::Time t, OutputCursor& cursor) {
  const int64_t micros = absl::ToUnixMicros(t);  // rounds toward the past
  int64_t second = micros / 1000000;
  int64_t micro = micros % 1000000;
  if (micro < 0) {
    micro += 1000000;
    --second;
  }
  CacheSecond(second);
  cursor.Reserve(cached_text_.size() + 8);
  char* p = OutputCursor::CopyBytes(cached_text_.data(), cached_text_.size(), cursor.pos());
  *p = '.';
  for (int i = 6; i >= 1; --i) {
    p[i] = static_cast<char>('0' + micro % 10);
    micro /= 10;
  }
  p += 7;
  if (style_ == Style::kUtcDateTime) *p++ = 'Z';
  cursor.Advance(p);
}

}  // namespace tracewire::targets
