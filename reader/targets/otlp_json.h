// The JSON writer of the OTLP exporter: one line of OTLP/JSON (an
// ExportTraceServiceRequest: the process's resource, the tracewire scope and spans) from
// the span model of otlp_spans.h. otlp_target.h describes the output.
#ifndef TRACEWIRE_READER_TARGETS_OTLP_JSON_H_
#define TRACEWIRE_READER_TARGETS_OTLP_JSON_H_

#include <string>

#include "absl/strings/string_view.h"
#include "reader/targets/json_writer.h"
#include "reader/targets/otlp_spans.h"
#include "reader/targets/output_cursor.h"

namespace tracewire::targets::otlp {

// Writes OTLP/JSON lines.
class LineWriter {
 public:
  // Appends one line of `p` to `out`: its resource and the spans InLine(span, all), the
  // process span first with `all`, then the others in creation order; ends with '\n'.
  void WriteLine(const Process& p, bool all, std::string* out);
  // Appends one line of `p`'s gauge samples to `out`: an ExportMetricsServiceRequest with
  // the process's resource, the tracewire scope and one Gauge metric per gauge ("<category>/
  // <name>", its unit, an integer data point per sample); ends with '\n'.
  void WriteMetricsLine(const Process& p, std::string* out);

 private:
  // Writes the "resource" member of `p`'s line.
  void WriteResource(JsonWriter& jw, const Process& p);
  // Writes `span`'s object through `c` (span_prefix_ is its process's).
  void WriteSpan(OutputCursor& c, const Span& span);
  // Writes {"key":<key>,"value":{"stringValue":<value>}} as the next array element.
  void WriteAttribute(JsonWriter& jw, absl::string_view key, absl::string_view value);
  // Writes `attribute` as the next array element, with its type's AnyValue member.
  void WriteAttribute(JsonWriter& jw, const Attribute& attribute);
  // The same two, as the whole element through a cursor (no comma): the spans' fast path.
  void PutAttribute(OutputCursor& c, absl::string_view key, absl::string_view value);
  void PutAttribute(OutputCursor& c, const Attribute& attribute);

  std::string scratch_;
  std::string map_text_;     // a region's rendered data
  std::string span_prefix_;  // {"traceId":"<the line's trace id>","spanId":
};

}  // namespace tracewire::targets::otlp

#endif  // TRACEWIRE_READER_TARGETS_OTLP_JSON_H_
