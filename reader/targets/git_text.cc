#include "reader/targets/git_text.h"

#include <cstring>

#include "reader/targets/fixed_decimal.h"

namespace tracewire::targets {

std::string ErrorText(int64_t code) {
  char buffer[256];
  // GNU strerror_r returns the text (maybe not in buffer).
  return strerror_r(static_cast<int>(code), buffer, sizeof(buffer));
}

void AppendTimerTotals(double total, double min, double max, std::string* out) {
  out->append(" total:");
  AppendFixedPadded(total, 8, 6, out);
  out->append(" min:");
  AppendFixedPadded(min, 8, 6, out);
  out->append(" max:");
  AppendFixedPadded(max, 8, 6, out);
}

}  // namespace tracewire::targets
