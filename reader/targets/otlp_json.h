// The JSON writer of the OTLP exporter: one line of OTLP/JSON (an
// ExportTraceServiceRequest: the process's resource, the tracewire scope and spans) from
// the span model of otlp_spans.h. otlp_target.h describes the output.
#ifndef TRACEWIRE_READER_TARGETS_OTLP_JSON_H_
#define TRACEWIRE_READER_TARGETS_OTLP_JSON_H_

#include <string>

#include "absl/strings/string_view.h"
#include "reader/targets/json_writer.h"
#include "reader/targets/otlp_spans.h"

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
  void WriteSpan(JsonWriter& jw, const Process& p, const Span& span);
  // Writes {"key":<key>,"value":{"stringValue":<value>}} as the next array element.
  void WriteAttribute(JsonWriter& jw, absl::string_view key, absl::string_view value);
  // Writes `attribute` as the next array element, with its type's AnyValue member.
  void WriteAttribute(JsonWriter& jw, const Attribute& attribute);

  std::string scratch_;
};

}  // namespace tracewire::targets::otlp

#endif  // TRACEWIRE_READER_TARGETS_OTLP_JSON_H_
