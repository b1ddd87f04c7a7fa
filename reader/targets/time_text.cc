#include "reader/targets/time_text.h"

namespace tracewire::targets {

void TimeText::Append(absl::Time t, std::string* out) {
  const int64_t micros = absl::ToUnixMicros(t);  // rounds toward the past
  int64_t second = micros / 1000000;
  int64_t micro = micros % 1000000;
  if (micro < 0) {
    micro += 1000000;
    --second;
  }
  if (second != cached_second_) {
    cached_second_ = second;
    cached_text_ =
        absl::FormatTime(style_ == Style::kUtcDateTime ? "%Y-%m-%dT%H:%M:%S" : "%H:%M:%S",
                         absl::FromUnixSeconds(second), absl::UTCTimeZone());
  }
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

}  // namespace tracewire::targets
