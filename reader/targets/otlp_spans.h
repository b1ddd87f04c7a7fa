// The span model of the OTLP exporter (otlp_target.h describes the output): from reader
// events, the spans git-ecosystem/trace2receiver builds at its most detailed level —
// processes, threads, regions, children and execs, with their names, ids, attributes,
// statuses and error events. The tracks and slices come from the reader's TrackModel;
// SpanBuilder gives them their OTLP form and hands each process's spans to a line writer
// (otlp_json.h) when the process ends, and early when a process holds many closed spans.
#ifndef TRACEWIRE_READER_TARGETS_OTLP_SPANS_H_
#define TRACEWIRE_READER_TARGETS_OTLP_SPANS_H_

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "reader/event.h"
#include "reader/targets/otlp_data_map.h"
#include "reader/targets/otlp_ids.h"
#include "reader/track_model.h"

namespace tracewire::targets::otlp {

inline constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();
inline constexpr int kKindInternal = 1;  // SPAN_KIND_INTERNAL
inline constexpr int kKindServer = 2;    // SPAN_KIND_SERVER
inline constexpr int kStatusUnset = 0;   // STATUS_CODE_UNSET: not written
inline constexpr int kStatusOk = 1;      // STATUS_CODE_OK
inline constexpr int kStatusError = 2;   // STATUS_CODE_ERROR

using SpanId = std::array<uint8_t, 8>;

// One attribute: trace2receiver's are strings (JSON text for structured values); the OTel
// semantic-convention ones are typed. emplace_back(key, text) makes a string attribute.
// Keys are string literals: an attribute keeps the pointer (no copy per span).
struct Attribute {
  enum class Type { kString, kInt, kStringArray };
  Attribute(const char* key, std::string text, Type type = Type::kString, int64_t number = 0,
            std::vector<std::string> list = {})
      : key(key), text(std::move(text)), type(type), number(number), list(std::move(list)) {}
  const char* key;
  std::string text;  // kString
  Type type = Type::kString;
  int64_t number = 0;             // kInt
  std::vector<std::string> list;  // kStringArray
};

// An int attribute.
inline Attribute Int(const char* key, int64_t value) {
  return {key, "", Attribute::Type::kInt, value, {}};
}
// A string array attribute.
inline Attribute StrArray(const char* key, std::vector<std::string> values) {
  return {key, "", Attribute::Type::kStringArray, 0, std::move(values)};
}

// A span event (an `error` on the process span).
struct SpanEvent {
  int64_t time_ns = 0;
  std::string name;
  std::vector<Attribute> attributes;
};

// category -> key -> JSON text of the value (trace2receiver's data[<cat>][<key>] maps).
using JsonMap = std::map<std::string, std::map<std::string, std::string>>;

// The JSON object text of `map` ({"<cat>":{"<key>":<value>,...},...}).
std::string RenderMap(const JsonMap& map);

enum class SpanType { kProcess, kThread, kRegion, kChild, kExec, kTask };

struct Span {
  SpanType type = SpanType::kRegion;
  SpanId id{};
  std::optional<SpanId> parent_id;
  Span* parent = nullptr;  // the parent span while this one is open (same process)
  std::string name;
  int64_t start_ns = 0;  // Unix nanoseconds
  int64_t end_ns = 0;
  bool open = true;
  int64_t max_child_end = kNoTime;
  // The first attributes as JSON text: their array elements (otlp_attribute_json.h),
  // separated by commas. A region's are rendered when it begins; `attributes` follow.
  std::string attributes_json;
  std::vector<Attribute> attributes;
  int status_code = kStatusUnset;
  std::string status_message;  // with kStatusError
  std::vector<SpanEvent> events;
  DataMap data;      // regions
  JsonMap timers;    // threads (and the process span for main)
  JsonMap counters;  // threads (and the process span for main)

  // Makes the span as new, keeping the storage of its members for reuse.
  void Reset();
};

// A thread of an open process.
struct Thread {
  Span* span = nullptr;  // the thread span; the process span for main
  uint64_t id = 0;       // the trace's thread number (main = 0)
  std::string name;      // "main", "th01:worker", ...
  // Its thread.id and thread.name attributes as JSON text (the regions' attributes_json).
  std::string attributes_json;
};

// The samples of one gauge of a process not yet written (an OTLP Gauge metric).
struct GaugeSeries {
  std::string category;
  std::string name;
  std::string unit;
  std::vector<std::pair<int64_t, int64_t>> points;  // Unix nanoseconds, value
};

// An open process: its span, its other spans and what its attributes are made of.
struct Process {
  uint32_t index = 0;  // the track model's process index
  std::string sid;
  OtlpProcessIds ids;
  std::string trace_hex;  // HexId(ids.trace_id)
  uint64_t id_seed = 0;
  uint64_t next_span = 0;
  Span span;                                 // the process span
  std::vector<std::unique_ptr<Span>> spans;  // the other spans, in creation order
  size_t closed = 0;                         // closed region/child/exec spans in `spans`
  int64_t last_ns = kNoTime;
  bool ended = false;  // exit, atexit or signal seen
  std::optional<int64_t> exit_code;
  std::optional<uint64_t> signo;
  std::string version;
  std::vector<std::string> argv;
  std::string verb;
  std::string hierarchy;
  std::string mode;
  std::string alias_key;
  std::vector<std::string> alias_value;
  std::vector<std::string> ancestry;
  std::optional<std::string> error_fmt;
  std::optional<std::string> error_msg;
  std::vector<SpanEvent> errors;  // the first kMaxErrorEvents error events
  std::map<int64_t, std::string> repos;
  std::map<std::string, std::pair<std::string, int>> params;  // value, scope priority
  JsonMap data;
  JsonMap timers;
  JsonMap counters;
  std::map<uint64_t, Span*> tasks;         // open task spans, by task ID
  std::map<uint32_t, GaugeSeries> gauges;  // by the track model's gauge index
  size_t gauge_points = 0;                 // points held in `gauges`
  uint64_t cpu_samples = 0;                // CPU samples of the process (not spans: only counted)
  uint64_t cpu_samples_lost = 0;           // samples its threads' buffers had no room for
};

// The process span's name, "<exe>:<verb>#<mode>" (trace2receiver's), with its parts:
// `*exe` (argv[0]'s basename without ".exe", "unknown" without argv) and `*exe_verb`.
std::string ExeVerbMode(const Process& p, std::string* exe, std::string* exe_verb);

// Whether a line of `p` holds `span`: every span with `all`, else the closed region, child
// and exec spans.
bool InLine(const Span& span, bool all);

// Builds the spans of a stream of reader events.
class SpanBuilder : public reader::TrackListener {
 public:
  // Appends one line of `p` to `out`: the spans InLine(span, all) (and, with `all`, the
  // process span first). The builder drops the written spans afterwards.
  using LineWriter = std::function<void(const Process& p, bool all, std::string* out)>;
  // Appends one line of `p`'s gauge samples (an ExportMetricsServiceRequest) to `out`;
  // the builder drops the samples afterwards.
  using MetricsWriter = std::function<void(const Process& p, std::string* out)>;

  SpanBuilder(LineWriter write_line, MetricsWriter write_metrics)
      : write_line_(std::move(write_line)), write_metrics_(std::move(write_metrics)) {}

  // Adds one event (in reader order); lines of processes that end go to `out`. With a
  // null `out` (a formatter's Skip), the spans are built and dropped as they would be
  // when their line is written, and no line is rendered.
  void Add(const reader::Event& e, std::string* out);
  // Ends the processes still open (their open spans end at their last event) and writes
  // them; then the builder is as new.
  void Finish(std::string* out);

  // The track model's callbacks (reader/track_model.h).
  void OnProcessBegin(const reader::ProcessTrack& track, const reader::Event& first);
  void OnSliceBegin(const reader::Slice& slice, const reader::Event& e);
  void OnSliceEnd(const reader::Slice& slice, const reader::SliceEnding& end);
  void OnEvent(const reader::Event& e, const reader::EventTracks& at);

 private:
  // A span from the pool (or a new one), named `name`, added to `p.spans`.
  Span* NewSpan(Process& p, SpanType type, Span* parent, absl::string_view name, int64_t ns);
  void Close(Process& p, Span* span, int64_t ns);
  // Writes a line of `p` (see LineWriter), unless skipping, and drops the spans written.
  void WriteLine(Process& p, bool all);
  void AddData(Process& p, uint32_t thread, const reader::Event& e);
  void EndProcess(Process& p);
  // Adds thread.id, thread.name and, where the event has a call site, code.filepath and
  // code.lineno.
  void AddThreadAndSite(Span* span, const Thread& th, const reader::Event& e);
  void BeginRegion(Process& p, const reader::Slice& slice, const reader::Event& e);
  void BeginChild(Process& p, const reader::Slice& slice, const reader::Event& e);
  void BeginExec(Process& p, const reader::Slice& slice, const reader::Event& e);
  void BeginTask(Process& p, const reader::Slice& slice, const reader::Event& e);
  // Writes `p`'s gauge samples held so far as a metrics line (unless skipping) and drops
  // them.
  void WriteMetrics(Process& p);
  void EndChild(Process& p, Span* span, const reader::Event* e);
  void EndExec(Process& p, Span* span, const reader::Event* e);
  void ProcessAttributes(Process& p);
  // Span of slot `slot` (null: a dropped region).
  Span*& SlotSpan(uint32_t slot) {
    if (slot_spans_.size() <= slot) slot_spans_.resize(slot + 1, nullptr);
    return slot_spans_[slot];
  }

  // Text helpers (strings are made valid UTF-8 first).
  std::string JsonString(absl::string_view value);
  std::string JsonList(const std::vector<std::string>& items);
  std::string JsonList(const std::vector<absl::string_view>& items, absl::string_view first);
  std::string DataValue(const reader::Event& e);
  // Appends the JSON text of data's value to *out.
  void AppendDataValue(const reader::Event& e, std::string* out);

  LineWriter write_line_;
  MetricsWriter write_metrics_;
  reader::TrackModel model_;
  // By the model's process index; null once the process's line is written (its later
  // events are ignored).
  std::vector<std::unique_ptr<Process>> processes_;
  std::vector<Process*> order_;    // open processes, in order of appearance
  std::vector<Thread> threads_;    // by the model's thread index
  std::vector<Span*> slot_spans_;  // the span of each open slice, by slot
  reader::EventTracks at_;         // where the current event is
  int64_t now_ns_ = 0;             // the time slices begin and end at
  std::string* out_ = nullptr;     // the output of the current Add() or Finish(); null: skip
  std::string scratch_;
  std::string name_;  // a region's or task's name being built
  // The code.filepath attribute of the last region's call site as JSON text, after a comma.
  std::string site_file_;
  std::string site_json_;
  // Spans whose line is written, kept for NewSpan to reuse (bounded by the most spans a
  // process holds at once: its open spans and up to kMaxClosedSpans closed ones).
  std::vector<std::unique_ptr<Span>> free_spans_;
};

}  // namespace tracewire::targets::otlp

#endif  // TRACEWIRE_READER_TARGETS_OTLP_SPANS_H_
