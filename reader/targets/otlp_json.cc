#include "reader/targets/otlp_json.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "reader/sid_parts.h"
#include "reader/targets/otlp_ids.h"
#include "reader/targets/otlp_target.h"
#include "reader/targets/valid_utf8.h"

namespace tracewire::targets::otlp {

void LineWriter::WriteAttribute(JsonWriter& jw, absl::string_view key, absl::string_view value) {
  jw.ArrayBeginObject();
  jw.ObjectString("key", key);
  jw.ObjectBeginObject("value");
  jw.ObjectString("stringValue", ValidUtf8(value, &scratch_));
  jw.End();
  jw.End();
}

void LineWriter::WriteAttribute(JsonWriter& jw, const Attribute& attribute) {
  switch (attribute.type) {
    case Attribute::Type::kString:
      WriteAttribute(jw, attribute.key, attribute.text);
      return;
    case Attribute::Type::kInt:
      jw.ArrayBeginObject();
      jw.ObjectString("key", attribute.key);
      jw.ObjectBeginObject("value");
      // OTLP/JSON writes 64-bit integers as decimal strings (the protobuf JSON mapping).
      jw.ObjectString("intValue", absl::StrCat(attribute.number));
      jw.End();
      jw.End();
      return;
    case Attribute::Type::kStringArray:
      jw.ArrayBeginObject();
      jw.ObjectString("key", attribute.key);
      jw.ObjectBeginObject("value");
      jw.ObjectBeginObject("arrayValue");
      jw.ObjectBeginArray("values");
      for (const std::string& item : attribute.list) {
        jw.ArrayBeginObject();
        jw.ObjectString("stringValue", ValidUtf8(item, &scratch_));
        jw.End();
      }
      jw.End();  // values
      jw.End();  // arrayValue
      jw.End();  // value
      jw.End();
      return;
  }
}

void LineWriter::WriteSpan(JsonWriter& jw, const Process& p, const Span& span) {
  jw.ArrayBeginObject();
  jw.ObjectString("traceId", HexId(p.ids.trace_id));
  jw.ObjectString("spanId", HexId(span.id));
  if (span.parent_id.has_value()) jw.ObjectString("parentSpanId", HexId(*span.parent_id));
  jw.ObjectString("name", ValidUtf8(span.name, &scratch_));
  jw.ObjectInt("kind", span.type == SpanType::kProcess ? kKindServer : kKindInternal);
  jw.ObjectString("startTimeUnixNano", absl::StrCat(span.start_ns));
  jw.ObjectString("endTimeUnixNano", absl::StrCat(span.end_ns));
  jw.ObjectBeginArray("attributes");
  for (const Attribute& attribute : span.attributes) WriteAttribute(jw, attribute);
  if (span.type == SpanType::kRegion && !span.data.empty()) {
    WriteAttribute(jw, "trace2.region.data", RenderMap(span.data));
  }
  if (span.type == SpanType::kThread) {
    if (!span.timers.empty()) WriteAttribute(jw, "trace2.thread.timers", RenderMap(span.timers));
    if (!span.counters.empty()) {
      WriteAttribute(jw, "trace2.thread.counters", RenderMap(span.counters));
    }
  }
  jw.End();  // attributes
  if (!span.events.empty()) {
    jw.ObjectBeginArray("events");
    for (const SpanEvent& event : span.events) {
      jw.ArrayBeginObject();
      jw.ObjectString("timeUnixNano",
                      absl::StrCat(std::clamp(event.time_ns, span.start_ns, span.end_ns)));
      jw.ObjectString("name", event.name);
      jw.ObjectBeginArray("attributes");
      for (const Attribute& attribute : event.attributes) WriteAttribute(jw, attribute);
      jw.End();
      jw.End();
    }
    jw.End();
  }
  if (span.status_code != kStatusUnset) {
    jw.ObjectBeginObject("status");
    if (!span.status_message.empty()) {
      jw.ObjectString("message", ValidUtf8(span.status_message, &scratch_));
    }
    jw.ObjectInt("code", span.status_code);
    jw.End();
  }
  jw.End();
}

void LineWriter::WriteResource(JsonWriter& jw, const Process& p) {
  std::string exe;
  std::string exe_verb;
  const std::string service = ExeVerbMode(p, &exe, &exe_verb);
  jw.ObjectBeginObject("resource");
  jw.ObjectBeginArray("attributes");
  const std::pair<const char*, std::string> resource[] = {
      {"service.namespace", "trace2"},
      {"service.name", service},
      {"service.version", p.version},
      {"service.instance.id", p.sid},
      {"telemetry.sdk.name", "tracewire"},
      {"telemetry.sdk.language", "cpp"},
      {"telemetry.sdk.version", kOtlpScopeVersion},
      {"trace2.cmd.version", p.version},
      {"trace2.cmd.sid", p.sid},
  };
  for (const auto& [key, value] : resource) WriteAttribute(jw, key, value);
  // The process resource of OTel's semantic conventions, typed.
  if (const std::optional<uint32_t> pid =
          reader::PidFromSidComponent(reader::SidLastComponent(p.sid))) {
    WriteAttribute(jw, Int("process.pid", *pid));
  }
  if (const std::optional<absl::string_view> parent = reader::SidParentComponent(p.sid)) {
    if (const std::optional<uint32_t> ppid = reader::PidFromSidComponent(*parent)) {
      WriteAttribute(jw, Int("process.parent_pid", *ppid));
    }
  }
  if (!p.argv.empty()) {
    WriteAttribute(jw, "process.executable.name", exe);
    WriteAttribute(jw, StrArray("process.command_args", p.argv));
  }
  jw.End();  // attributes
  jw.End();  // resource
}

void LineWriter::WriteMetricsLine(const Process& p, std::string* out) {
  JsonWriter jw(out);
  jw.BeginObject();
  jw.ObjectBeginArray("resourceMetrics");
  jw.ArrayBeginObject();
  WriteResource(jw, p);
  jw.ObjectBeginArray("scopeMetrics");
  jw.ArrayBeginObject();
  jw.ObjectBeginObject("scope");
  jw.ObjectString("name", kOtlpScopeName);
  jw.ObjectString("version", kOtlpScopeVersion);
  jw.End();
  jw.ObjectBeginArray("metrics");
  for (const auto& [index, series] : p.gauges) {
    if (series.points.empty()) continue;
    jw.ArrayBeginObject();
    jw.ObjectString("name", ValidUtf8(absl::StrCat(series.category, "/", series.name), &scratch_));
    if (!series.unit.empty()) jw.ObjectString("unit", ValidUtf8(series.unit, &scratch_));
    jw.ObjectBeginObject("gauge");
    jw.ObjectBeginArray("dataPoints");
    for (const auto& [ns, value] : series.points) {
      jw.ArrayBeginObject();
      jw.ObjectString("timeUnixNano", absl::StrCat(ns));
      // 64-bit integers are decimal strings in OTLP/JSON (the protobuf JSON mapping).
      jw.ObjectString("asInt", absl::StrCat(value));
      jw.End();
    }
    jw.End();  // dataPoints
    jw.End();  // gauge
    jw.End();  // metric
  }
  jw.End();  // metrics
  jw.End();  // scope metrics
  jw.End();  // scopeMetrics
  jw.End();  // resource metrics
  jw.End();  // resourceMetrics
  jw.End();
  out->push_back('\n');
}

void LineWriter::WriteLine(const Process& p, bool all, std::string* out) {
  JsonWriter jw(out);
  jw.BeginObject();
  jw.ObjectBeginArray("resourceSpans");
  jw.ArrayBeginObject();
  WriteResource(jw, p);
  jw.ObjectBeginArray("scopeSpans");
  jw.ArrayBeginObject();
  jw.ObjectBeginObject("scope");
  jw.ObjectString("name", kOtlpScopeName);
  jw.ObjectString("version", kOtlpScopeVersion);
  jw.End();
  jw.ObjectBeginArray("spans");
  if (all) WriteSpan(jw, p, p.span);
  for (const std::unique_ptr<Span>& span : p.spans) {
    if (InLine(*span, all)) WriteSpan(jw, p, *span);
  }
  jw.End();  // spans
  jw.End();  // scope span
  jw.End();  // scopeSpans
  jw.End();  // resource span
  jw.End();  // resourceSpans
  jw.End();
  out->push_back('\n');
}

}  // namespace tracewire::targets::otlp
