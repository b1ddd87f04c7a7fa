// Pieces of text that the NORMAL and PERF targets write alike.
#ifndef TRACEWIRE_READER_TARGETS_GIT_TEXT_H_
#define TRACEWIRE_READER_TARGETS_GIT_TEXT_H_

#include <cstdint>
#include <string>

namespace tracewire::targets {

// The text of errno value `code`, as git's strerror() prints it after " err:".
std::string ErrorText(int64_t code);

// Appends " total:<total> min:<min> max:<max>" with each time as "%8.6f" (timer events).
void AppendTimerTotals(double total, double min, double max, std::string* out);

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_GIT_TEXT_H_
