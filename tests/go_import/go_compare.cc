#include "tests/go_import/go_compare.h"

#include <zstd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "tools/go_import/go_event.h"
#include "tools/go_import/go_trace_reader.h"

namespace tracewire::testing {
namespace {

// The value after `key` in a record's first line: up to the next space, or a quoted
// string (quotes removed, \" and \\ unescaped).
std::string Field(absl::string_view line, absl::string_view key) {
  const size_t at = line.find(absl::StrCat(" ", key));
  if (at == absl::string_view::npos) return "";
  absl::string_view rest = line.substr(at + key.size() + 1);
  if (!absl::ConsumePrefix(&rest, "\"")) return std::string(rest.substr(0, rest.find(' ')));
  std::string out;
  for (size_t i = 0; i < rest.size() && rest[i] != '"'; ++i) {
    if (rest[i] == '\\' && i + 1 < rest.size()) ++i;
    out += rest[i];
  }
  return out;
}

std::string FirstLine(absl::string_view record) {
  return std::string(record.substr(0, record.find('\n')));
}

// The function of the first frame after the line `header` ("Stack=", "TransitionStack=").
std::string FirstFrame(absl::string_view record, absl::string_view header) {
  const size_t at = record.find(absl::StrCat("\n", header, "\n\t"));
  if (at == absl::string_view::npos) return "";
  absl::string_view frame = record.substr(at + header.size() + 3);
  return std::string(frame.substr(0, frame.find(" @ ")));
}

std::string StripTime(absl::string_view record) {
  const size_t at = record.find(" Time=");
  const size_t end = std::min(record.find(' ', at + 1), record.find('\n', at + 1));
  return absl::StrCat(record.substr(0, at),
                      end == absl::string_view::npos ? "" : record.substr(end));
}

int64_t TimeOf(absl::string_view record) {
  int64_t t = 0;
  (void)absl::SimpleAtoi(Field(FirstLine(record), "Time="), &t);
  return t;
}

std::string Log(absl::string_view category, absl::string_view message, absl::string_view g,
                absl::string_view task, int64_t t) {
  return absl::StrCat("Log ", t, " G", g, " T", task, " ", category.empty() ? "log" : category, " ",
                      message);
}

}  // namespace

std::vector<std::string> GoRecords(absl::string_view text) {
  std::vector<std::string> records;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, "M=")) {
      records.emplace_back(line);
    } else if (!records.empty() && !line.empty()) {
      absl::StrAppend(&records.back(), "\n", line);
    }
  }
  return records;
}

GoSummary SummarizeGo(const std::vector<std::string>& records) {
  GoSummary s;
  for (const std::string& r : records) {
    const std::string line = FirstLine(r);
    const std::vector<std::string> words = absl::StrSplit(line, ' ');
    if (words.size() < 5) continue;
    const std::string& kind = words[3];
    const std::string g = words[2].substr(2);
    const int64_t t = TimeOf(r);
    ++s.kinds[kind];
    if (kind == "TaskBegin") {
      s.user_events.insert(absl::StrCat("TaskBegin ", t, " ", Field(line, "ID="), " ",
                                        Field(line, "Parent="), " ", Field(line, "Type=")));
    } else if (kind == "TaskEnd") {
      s.user_events.insert(
          absl::StrCat("TaskEnd ", t, " ", Field(line, "ID="), " ", Field(line, "Type=")));
    } else if (kind == "RegionBegin") {
      s.user_events.insert(absl::StrCat(kind, " ", t, " G", g, " T", Field(line, "Task="), " ",
                                        Field(line, "Type=")));
    } else if (kind == "RegionEnd") {
      s.user_events.insert(absl::StrCat(kind, " ", t, " G", g, " ", Field(line, "Type=")));
    } else if (kind == "Log") {
      s.user_events.insert(
          Log(Field(line, "Category="), Field(line, "Message="), g, Field(line, "Task="), t));
    } else if (kind == "StackSample") {
      ++s.samples[FirstFrame(r, "Stack=")];
    } else if (kind == "StateTransition" && absl::StrContains(line, " NotExist->") &&
               absl::StrContains(line, "Resource=Goroutine")) {
      int64_t id = 0;
      if (absl::SimpleAtoi(Field(line, "GoID="), &id)) s.goroutines.insert(id);
      if (g != "-1") ++s.creations;
    }
  }
  return s;
}

absl::StatusOr<GoSummary> SummarizeImported(const std::string& trace) {
  GoSummary s;
  reader::Reader reader(reader::MemorySource(trace, "imported"));
  while (true) {
    absl::StatusOr<const reader::Event*> next = reader.Next();
    if (!next.ok()) return next.status();
    if (*next == nullptr) break;
    const reader::Event& e = **next;
    const int64_t t = static_cast<int64_t>(e.ticks);
    const std::string g = absl::StrCat(e.thread_id);
    switch (e.kind) {
      case reader::EventKind::kTaskBegin:
        if (e.category == "go.create") {
          ++s.creations;
          break;
        }
        s.user_events.insert(absl::StrCat("TaskBegin ", t, " ", e.task_id, " ",
                                          e.parent_task == 0 ? ~uint64_t{0} : e.parent_task, " ",
                                          e.label));
        break;
      case reader::EventKind::kTaskEnd:
        if (e.category == "go.create") break;
        s.user_events.insert(absl::StrCat("TaskEnd ", t, " ", e.task_id, " ", e.label));
        break;
      case reader::EventKind::kRegionEnter:
      case reader::EventKind::kRegionLeave:
        if (e.category != "go.region") break;
        s.user_events.insert(
            e.kind == reader::EventKind::kRegionEnter
                ? absl::StrCat("RegionBegin ", t, " G", g, " T", e.adopted_task, " ", e.label)
                : absl::StrCat("RegionEnd ", t, " G", g, " ", e.label));
        break;
      case reader::EventKind::kData:
        if (e.category == "go.log") {
          s.user_events.insert(Log(e.label, e.value_string, g, absl::StrCat(e.adopted_task), t));
        }
        break;
      case reader::EventKind::kCpuSample:
        ++s.samples[e.stack.empty() ? std::string() : std::string(e.stack[0].func)];
        break;
      case reader::EventKind::kThreadStart:
        s.goroutines.insert(static_cast<int64_t>(e.thread_id));
        break;
      default:
        break;
    }
  }
  return s;
}

std::string CompareRecords(const std::vector<std::string>& go,
                           const std::vector<std::string>& ours) {
  std::string diff;
  if (go.size() != ours.size())
    absl::StrAppend(&diff, "events: Go ", go.size(), ", ours ", ours.size(), "\n");
  std::multiset<std::string> a, b;
  std::vector<int64_t> ta, tb;
  for (const std::string& r : go) {
    a.insert(StripTime(r));
    ta.push_back(TimeOf(r));
  }
  for (const std::string& r : ours) {
    b.insert(StripTime(r));
    tb.push_back(TimeOf(r));
  }
  std::vector<std::string> only_go, only_ours;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(only_go));
  std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(only_ours));
  for (size_t i = 0; i < std::min<size_t>(only_go.size(), 5); ++i)
    absl::StrAppend(&diff, "only Go: ", only_go[i], "\n");
  for (size_t i = 0; i < std::min<size_t>(only_ours.size(), 5); ++i)
    absl::StrAppend(&diff, "only ours: ", only_ours[i], "\n");
  std::sort(ta.begin(), ta.end());
  std::sort(tb.begin(), tb.end());
  if (ta != tb) absl::StrAppend(&diff, "the event times differ\n");
  const GoSummary sa = SummarizeGo(go), sb = SummarizeGo(ours);
  if (sa.user_events != sb.user_events) absl::StrAppend(&diff, "tasks, regions or logs differ\n");
  if (sa.kinds != sb.kinds) absl::StrAppend(&diff, "event counts by kind differ\n");
  return diff;
}

std::string CompareImported(const GoSummary& go, const GoSummary& imported) {
  std::string diff;
  std::vector<std::string> only_go, only_ours;
  std::set_difference(go.user_events.begin(), go.user_events.end(), imported.user_events.begin(),
                      imported.user_events.end(), std::back_inserter(only_go));
  std::set_difference(imported.user_events.begin(), imported.user_events.end(),
                      go.user_events.begin(), go.user_events.end(), std::back_inserter(only_ours));
  for (size_t i = 0; i < std::min<size_t>(only_go.size(), 5); ++i)
    absl::StrAppend(&diff, "only Go: ", only_go[i], "\n");
  for (size_t i = 0; i < std::min<size_t>(only_ours.size(), 5); ++i)
    absl::StrAppend(&diff, "only imported: ", only_ours[i], "\n");
  if (go.samples != imported.samples) {
    absl::StrAppend(&diff, "samples per function differ: Go ",
                    absl::StrJoin(go.samples, ",", absl::PairFormatter("=")), " imported ",
                    absl::StrJoin(imported.samples, ",", absl::PairFormatter("=")), "\n");
  }
  if (go.creations != imported.creations) {
    absl::StrAppend(&diff, "goroutine creations (go.create flows) differ: Go ", go.creations,
                    ", imported ", imported.creations, "\n");
  }
  if (go.goroutines != imported.goroutines) {
    absl::StrAppend(&diff, "created goroutines differ: Go ", go.goroutines.size(), ", imported ",
                    imported.goroutines.size(), "\n");
  }
  return diff;
}

absl::StatusOr<std::vector<std::string>> ReadGoRecords(std::string bytes) {
  absl::StatusOr<std::unique_ptr<go_trace::GoTraceReader>> reader =
      go_trace::GoTraceReader::Open(std::move(bytes));
  if (!reader.ok()) return reader.status();
  std::string text;
  std::vector<go_trace::GoEvent> events;
  while (true) {
    absl::StatusOr<bool> more = (*reader)->NextGeneration(&events);
    if (!more.ok()) return more.status();
    if (!*more) return GoRecords(text);
    for (const go_trace::GoEvent& e : events)
      absl::StrAppend(&text, go_trace::GoEventText(e), "\n");
  }
}

absl::StatusOr<std::string> ReadTestFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!absl::EndsWith(path, ".zst")) return bytes;
  const unsigned long long size = ZSTD_getFrameContentSize(bytes.data(), bytes.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > (1u << 30)) {
    return absl::DataLossError(absl::StrCat(path, ": not a zstd frame with its size"));
  }
  std::string out(size, '\0');
  const size_t n = ZSTD_decompress(out.data(), out.size(), bytes.data(), bytes.size());
  if (ZSTD_isError(n) || n != size)
    return absl::DataLossError(absl::StrCat(path, ": bad zstd data"));
  return out;
}

}  // namespace tracewire::testing
