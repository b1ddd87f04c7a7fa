// The JSON text of OTLP attributes ({"key":...,"value":{...}}), written through an output
// cursor: shared by the line writer (otlp_json.h) and the span builder, which renders a
// region's attributes as text when the region begins (otlp_spans.h).
#ifndef TRACEWIRE_READER_TARGETS_OTLP_ATTRIBUTE_JSON_H_
#define TRACEWIRE_READER_TARGETS_OTLP_ATTRIBUTE_JSON_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "reader/targets/output_cursor.h"

namespace tracewire::targets::otlp {

// Writes `value` made valid UTF-8 (ValidUtf8) as a quoted JSON string (PutJsonString):
// one scan and a copy when it is plain ASCII with nothing to escape, the common case.
// `scratch` holds the repaired text otherwise.
void PutUtf8JsonString(absl::string_view value, std::string* scratch, OutputCursor& c);

// Writes the quoted key of an attribute: `key` is a literal with nothing to escape.
inline void PutAttributeKey(absl::string_view key, OutputCursor& c) {
  c.PutLiteral("{\"key\":\"");
  c.Put(key);
  c.Put('"');
}

// {"key":"<key>","value":{"stringValue":<value made valid UTF-8>}}
void PutStringAttribute(absl::string_view key, absl::string_view value, std::string* scratch,
                        OutputCursor& c);
// {"key":"<key>","value":{"intValue":"<value>"}}: OTLP/JSON writes 64-bit integers as
// decimal strings (the protobuf JSON mapping).
void PutIntAttribute(absl::string_view key, int64_t value, OutputCursor& c);

}  // namespace tracewire::targets::otlp

#endif  // TRACEWIRE_READER_TARGETS_OTLP_ATTRIBUTE_JSON_H_
