// Shell-style quoting of the NORMAL and PERF targets (git's quote.c: sq_quote_buf_pretty and
// sq_append_quote_argv_pretty).
#ifndef TRACEWIRE_READER_TARGETS_SQ_QUOTE_H_
#define TRACEWIRE_READER_TARGETS_SQ_QUOTE_H_

#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace tracewire::targets {

// Appends `arg` as git's sq_quote_buf_pretty: "''" if empty; as is if every byte is an ASCII
// letter or digit or one of "+,-./:=@_^"; else inside '...' with ' written as '\'' and ! as
// '\!' (every other byte, control characters and bytes >= 0x80 included, is copied raw).
void SqQuotePretty(absl::string_view arg, std::string* out);

// Appends each of `argv` with SqQuotePretty, separated by one space (no leading space).
void SqQuoteArgvPretty(absl::Span<const absl::string_view> argv, std::string* out);

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_SQ_QUOTE_H_
