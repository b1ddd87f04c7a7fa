#include "tools/trace2_import/imported_trace_check.h"

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "reader/byte_source.h"
#include "reader/reader.h"

namespace tracewire::tools {

absl::Status ReadToEnd(reader::Reader* reader) {
  while (true) {
    absl::StatusOr<const reader::Event*> event = reader->Next();
    if (!event.ok()) return event.status();
    if (*event == nullptr) return absl::OkStatus();
  }
}

absl::Status CheckImportedTrace(absl::string_view trace, absl::string_view source_name) {
  reader::Reader reader(reader::MemorySource(trace, std::string(source_name)));
  if (absl::Status s = ReadToEnd(&reader); !s.ok()) {
    return absl::InternalError(absl::StrCat(
        "the imported trace does not decode (a bug in tracewire import): ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace tracewire::tools
