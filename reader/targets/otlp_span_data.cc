// The data values of spans: a region's `data` events (its DataMap) and the process's
// data map, each value in the form trace2receiver's map holds it.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "reader/targets/json_writer.h"
#include "reader/targets/otlp_spans.h"
#include "reader/targets/valid_utf8.h"
#include "reader/targets/viewer_args.h"

namespace tracewire::targets::otlp {

using reader::Event;

std::string SpanBuilder::DataValue(const Event& e) {
  std::string out;
  AppendDataValue(e, &out);
  return out;
}

void SpanBuilder::AppendDataValue(const Event& e, std::string* out) {
  // The value as every viewer takes it (viewer_args.h: an int, JSON text if valid, else a
  // string), written as trace2receiver's map holds it: git's EVENT target writes data_int
  // values as strings, so an int is its quoted decimal.
  struct ValueSink {
    std::string* out;
    std::string* scratch;
    void Str(ArgName name, absl::string_view value) {
      if (name == ArgName::kValue) AppendJsonString(ValidUtf8(value, scratch), out);
    }
    void Int(ArgName name, int64_t value) {
      if (name != ArgName::kValue) return;
      out->push_back('"');
      absl::StrAppend(out, value);
      out->push_back('"');
    }
    void Uint(ArgName, uint64_t) {}
    void List(ArgName, const std::vector<absl::string_view>&) {}
    void Json(ArgName name, absl::string_view json) {
      if (name == ArgName::kValue) out->append(json.data(), json.size());
    }
  } sink{out, &scratch_};
  VisitViewerArgs(e, sink);
}

void SpanBuilder::AddData(Process& p, uint32_t thread, const Event& e) {
  if (e.nesting <= 1) {
    p.data[std::string(e.category)][std::string(e.label)] = DataValue(e);
    return;
  }
  // Data at nesting n belongs to the region at nesting n - 1, the innermost one.
  const absl::Span<const reader::Slice> regions = model_.OpenRegions(thread);
  if (regions.empty() || regions.back().nesting != e.nesting - 1) return;
  Span* region = slot_spans_[regions.back().slot];
  if (region == nullptr) return;  // a region of a thread after its exit: no span
  AppendDataValue(e, region->data.Set(e.category, e.label));
}

}  // namespace tracewire::targets::otlp
