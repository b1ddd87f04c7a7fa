#include "reader/targets/time_text.h"

namespace tracewire::targets {
namespace {

// The second of `t` and the microseconds within it (truncated toward the past).
void SplitMicros(absl::Time t, int64_t* second, int64_t* micro) {
  const int64_t micros = absl::ToUnixMicros(t);  // rounds toward the past
  *second = micros / 1000000;
  *micro = micros % 1000000;
  if (*micro < 0) {
    *micro += 1000000;
    --*second;
  }
}

}  // namespace

void TimeText::CacheSecond(int64_t second) {
  if (second == cached_second_) return;
  cached_second_ = second;
  cached_text_ = absl::FormatTime(style_ == Style::kUtcDateTime ? "%Y-%m-%dT%H:%M:%S" : "%H:%M:%S",
                                  absl::FromUnixSeconds(second), absl::UTCTimeZone());
}

void TimeText::Append(absl::Time t, std::string* out) {
  int64_t second, micro;
  SplitMicros(t, &second, &micro);
  CacheSecond(second);
  char text[8] = {'.'};
  for (int i = 6; i >= 1; --i) {
    text[i] = static_cast<char>('0' + micro % 10);
    micro /= 10;
  }
  int length = 7;
  if (style_ == Style::kUtcDateTime) text[length++] = 'Z';
  out->append(cached_text_);
  out->append(text, length);
}

void TimeText::Put(absl::Time t, OutputCursor& cursor) {
  int64_t second, micro;
  SplitMicros(t, &second, &micro);
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
