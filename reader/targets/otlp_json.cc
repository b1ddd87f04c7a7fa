#include "reader/targets/otlp_json.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "reader/sid_parts.h"
#include "reader/targets/otlp_attribute_json.h"
#include "reader/targets/otlp_ids.h"
#include "reader/targets/otlp_target.h"
#include "reader/targets/output_cursor.h"
#include "reader/targets/valid_utf8.h"

namespace tracewire::targets::otlp {
namespace {

// Writes `value` as a quoted decimal string (no byte of it needs an escape).
void PutQuotedInt(int64_t value, OutputCursor& cursor) {
  cursor.Put('"');
  cursor.PutInt(value);
  cursor.Put('"');
}

// Writes the quoted lowercase hex of a span id (as HexId).
void PutHexId(const SpanId& id, OutputCursor& cursor) {
  static constexpr char kDigits[] = "0123456789abcdef";
  cursor.Reserve(2 * id.size() + 2);
  char* p = cursor.pos();
  *p++ = '"';
  for (uint8_t b : id) {
    *p++ = kDigits[b >> 4];
    *p++ = kDigits[b & 15];
  }
  *p++ = '"';
  cursor.Advance(p);
}

}  // namespace

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
      PutQuotedInt(attribute.number, jw.ObjectRawValue("intValue"));
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

void LineWriter::PutAttribute(OutputCursor& c, absl::string_view key, absl::string_view value) {
  PutStringAttribute(key, value, &scratch_, c);
}

void LineWriter::PutAttribute(OutputCursor& c, const Attribute& attribute) {
  switch (attribute.type) {
    case Attribute::Type::kString:
      PutAttribute(c, attribute.key, attribute.text);
      return;
    case Attribute::Type::kInt:
      PutIntAttribute(attribute.key, attribute.number, c);
      return;
    case Attribute::Type::kStringArray: {
      PutAttributeKey(attribute.key, c);
      c.PutLiteral(",\"value\":{\"arrayValue\":{\"values\":[");
      bool first = true;
      for (const std::string& item : attribute.list) {
        if (!first) c.Put(',');
        first = false;
        c.PutLiteral("{\"stringValue\":");
        PutUtf8JsonString(item, &scratch_, c);
        c.Put('}');
      }
      c.PutLiteral("]}}}");
      return;
    }
  }
}

void LineWriter::WriteSpan(OutputCursor& c, const Span& span) {
  // The span's object, with the bytes JsonWriter would write for it (compact layout; tests
  // compare the lines with the JSON read back).
  {
    c.Put(span_prefix_);
    PutHexId(span.id, c);
    if (span.parent_id.has_value()) {
      c.PutLiteral(",\"parentSpanId\":");
      PutHexId(*span.parent_id, c);
    }
    c.PutLiteral(",\"name\":");
    PutUtf8JsonString(span.name, &scratch_, c);
    c.PutLiteral(",\"kind\":");
    c.PutInt(span.type == SpanType::kProcess ? kKindServer : kKindInternal);
    c.PutLiteral(",\"startTimeUnixNano\":");
    PutQuotedInt(span.start_ns, c);
    c.PutLiteral(",\"endTimeUnixNano\":");
    PutQuotedInt(span.end_ns, c);
    c.PutLiteral(",\"attributes\":[");
    c.Put(span.attributes_json);
    bool first = span.attributes_json.empty();
    const auto comma = [&] {
      if (!first) c.Put(',');
      first = false;
    };
    for (const Attribute& attribute : span.attributes) {
      comma();
      PutAttribute(c, attribute);
    }
    if (span.type == SpanType::kRegion && !span.data.empty()) {
      map_text_.clear();
      span.data.Render(&map_text_);
      comma();
      PutAttribute(c, "trace2.region.data", map_text_);
    }
    if (span.type == SpanType::kThread) {
      if (!span.timers.empty()) {
        comma();
        PutAttribute(c, "trace2.thread.timers", RenderMap(span.timers));
      }
      if (!span.counters.empty()) {
        comma();
        PutAttribute(c, "trace2.thread.counters", RenderMap(span.counters));
      }
    }
    c.Put(']');
    if (!span.events.empty()) {
      c.PutLiteral(",\"events\":[");
      bool first_event = true;
      for (const SpanEvent& event : span.events) {
        if (!first_event) c.Put(',');
        first_event = false;
        c.PutLiteral("{\"timeUnixNano\":");
        PutQuotedInt(std::clamp(event.time_ns, span.start_ns, span.end_ns), c);
        c.PutLiteral(",\"name\":");
        PutJsonString(event.name, c);
        c.PutLiteral(",\"attributes\":[");
        bool first_attribute = true;
        for (const Attribute& attribute : event.attributes) {
          if (!first_attribute) c.Put(',');
          first_attribute = false;
          PutAttribute(c, attribute);
        }
        c.PutLiteral("]}");
      }
      c.Put(']');
    }
    if (span.status_code != kStatusUnset) {
      c.PutLiteral(",\"status\":{");
      if (!span.status_message.empty()) {
        c.PutLiteral("\"message\":");
        PutUtf8JsonString(span.status_message, &scratch_, c);
        c.Put(',');
      }
      c.PutLiteral("\"code\":");
      c.PutInt(span.status_code);
      c.Put('}');
    }
    c.Put('}');
  }
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
  // The spans go straight through the writer's cursor (the JsonWriter's bytes for them).
  span_prefix_.clear();
  {
    OutputCursor prefix(&span_prefix_);
    prefix.PutLiteral("{\"traceId\":");
    PutJsonString(p.trace_hex, prefix);
    prefix.PutLiteral(",\"spanId\":");
  }
  OutputCursor& c = jw.ObjectRawValue("spans");
  c.Put('[');
  bool first = true;
  if (all) {
    WriteSpan(c, p.span);
    first = false;
  }
  for (const std::unique_ptr<Span>& span : p.spans) {
    if (!InLine(*span, all)) continue;
    if (!first) c.Put(',');
    first = false;
    WriteSpan(c, *span);
  }
  c.Put(']');
  jw.End();  // scope span
  jw.End();  // scopeSpans
  jw.End();  // resource span
  jw.End();  // resourceSpans
  jw.End();
  out->push_back('\n');
}

}  // namespace tracewire::targets::otlp
