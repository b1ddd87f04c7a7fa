// `tracewire decode --follow FILE`: decodes a trace that is still being written, like
// `tail -f`: the events of each generation are written (and the output flushed) as soon
// as the writer has appended the whole generation. It ends on SIGINT or SIGTERM, after
// decoding what the file holds by then, and closes the output with the formatter's
// Finish() (so Chrome's JSON array is closed).
#ifndef TRACEWIRE_TOOLS_COMMANDS_DECODE_FOLLOW_H_
#define TRACEWIRE_TOOLS_COMMANDS_DECODE_FOLLOW_H_

#include "absl/time/time.h"
#include "tools/commands/decode.h"

namespace tracewire::tools {

// Runs `decode --follow` with `options` (input must be a file path); returns the exit
// code: 0 when stopped (also if the writer was inside a generation then: that generation
// is reported on stderr and left out), 1 for an invalid trace, 2 for usage or I/O errors.
// `poll_interval` is how often the end of the file is checked.
int DecodeFollow(const DecodeOptions& options,
                 absl::Duration poll_interval = absl::Milliseconds(100));

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_DECODE_FOLLOW_H_
