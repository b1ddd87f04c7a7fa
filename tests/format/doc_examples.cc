#include "tests/format/doc_examples.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "format/batch_encoder.h"
#include "format/constants.h"
#include "format/event_spec.h"
#include "format/file_header.h"
#include "format/generation_encoder.h"
#include "format/raw_decoder.h"
#include "format/record_encoder.h"
#include "format/varint.h"

namespace tracewire::format {
namespace {

// The standalone examples share one generation and one string table:
//   1 "wt-status.c"  2 "status"  3 "refresh"  4 "count"  5 "main"  6 "git.c"
//   7 "/usr/bin/git"  8 "4c1e7f3a" (a build ID, shortened)
constexpr uint64_t kGen = 1;
constexpr uint64_t kMainThread = 0;

#define RETURN_IF_ERROR(expr)               \
  do {                                      \
    if (absl::Status s = (expr); !s.ok()) { \
      return s;                             \
    }                                       \
  } while (0)

absl::StatusOr<std::string> EventBatchExample() {
  // Thread 0 of generation 1; base time 5'000'100'000 ticks (ns).
  EventBatchEncoder batch(kGen, kMainThread, 5'000'100'000);
  const uint64_t enter[] = {/*site=*/1, /*msg_string=*/0};
  const uint64_t value[] = {/*site=*/2, /*value=*/ZigzagEncode(42)};
  const uint64_t leave[] = {/*site=*/1, /*msg_string=*/0};
  for (auto [type, time, args] : {std::tuple{EventType::kRegionEnter, 5'000'100'001, enter},
                                  std::tuple{EventType::kDataInt, 5'000'350'001, value},
                                  std::tuple{EventType::kRegionLeave, 5'001'100'001, leave}}) {
    absl::StatusOr<bool> appended = batch.Append(type, time, absl::MakeConstSpan(args, 2));
    if (!appended.ok()) return appended.status();
    if (!*appended) return absl::InternalError("example batch full");
  }
  std::string out;
  batch.AppendTo(&out);
  return out;
}

absl::StatusOr<std::string> StringBatchExample() {
  std::string out;
  TableStreamEncoder strings(EventType::kStringBatch, kGen, &out);
  uint64_t id = 0;
  for (const char* value :
       {"wt-status.c", "status", "refresh", "count", "main", "git.c", "/usr/bin/git", "4c1e7f3a"}) {
    RETURN_IF_ERROR(strings.AppendString(++id, value));
  }
  strings.Flush();
  return out;
}

absl::StatusOr<std::string> SiteBatchExample() {
  std::string out;
  TableStreamEncoder sites(EventType::kSiteBatch, kGen, &out);
  // id, file_string, line, category_string, label_string, repo (repo id + 1)
  const uint64_t site1[] = {1, 1, 1520, 2, 3, 2};
  const uint64_t site2[] = {2, 1, 1533, 2, 4, 2};
  RETURN_IF_ERROR(sites.Append(EventType::kSite, site1));
  RETURN_IF_ERROR(sites.Append(EventType::kSite, site2));
  sites.Flush();
  return out;
}

absl::StatusOr<std::string> StackBatchExample() {
  std::string out;
  TableStreamEncoder stacks(EventType::kStackBatch, kGen, &out);
  // Module 1: /usr/bin/git mapped at 0x55d0c0dc0000-0x55d0c0f00000 with that load bias.
  const uint64_t module[] = {1, 0x55d0c0dc0000, 0x55d0c0f00000, 0x55d0c0dc0000, 7, 8};
  RETURN_IF_ERROR(stacks.Append(EventType::kModule, module));
  const StackFrame frames[] = {{0x55d0c0de1234, 5, 6, 920}, {0x55d0c0de0f00, 0, 0, 0}};
  const uint64_t args[] = {1, 2};
  RETURN_IF_ERROR(stacks.Append(EventType::kStack, args, {}, frames));
  stacks.Flush();
  return out;
}

ClockSync ExampleClockSync() {
  return {.freq = 1'000'000'000,
          .trace_time = 5'000'000'000,
          .mono_ns = 5'000'000'000,
          .wall_sec = 1'700'000'000,
          .wall_nsec = 250'000'000,
          .utc_offset_sec = 3600};
}

absl::StatusOr<std::string> ClockSyncExample() {
  const ClockSync sync = ExampleClockSync();
  const uint64_t args[] = {kGen,
                           sync.freq,
                           sync.trace_time,
                           sync.mono_ns,
                           sync.wall_sec,
                           sync.wall_nsec,
                           ZigzagEncode(sync.utc_offset_sec)};
  std::string out;
  RETURN_IF_ERROR(AppendRecord(&out, EventType::kClockSync, args));
  return out;
}

absl::StatusOr<std::string> ExperimentalExample() {
  // An event batch holding a known experimental event and an unknown one (type 200).
  EventBatchEncoder batch(kGen, kMainThread, 5'002'000'000);
  for (auto [type, time, data] :
       {std::tuple{EventType::kExpMark, 5'002'000'010, "mark"},
        std::tuple{static_cast<EventType>(200), 5'002'000'020, "\x01\x02"}}) {
    absl::StatusOr<bool> appended = batch.Append(type, time, {}, data);
    if (!appended.ok()) return appended.status();
    if (!*appended) return absl::InternalError("example batch full");
  }
  std::string out;
  batch.AppendTo(&out);
  return out;
}

absl::StatusOr<std::string> EndOfGenerationExample() {
  std::string out;
  const uint64_t args[] = {kGen};
  RETURN_IF_ERROR(AppendRecord(&out, EventType::kEndOfGeneration, args));
  return out;
}

// `git status` in miniature: one thread, one region, exit code 0.
absl::StatusOr<std::string> TinyTrace() {
  std::string out = EncodeFileHeader(kFormatVersion);
  GenerationEncoder g(kGen);
  g.SetClockSync(ExampleClockSync());
  g.SetProcessInfo({.sid = "20231114T221320.250000Z-Habc-P4d2",
                    .pid = 1234,
                    .start_time = 5'000'000'000,
                    .name = "status",
                    .hierarchy = "status"});
  Site site;
  site.file = "git.c";
  site.line = 460;
  const uint64_t main_site = g.InternSite(site);
  site.file = "wt-status.c";
  site.line = 1520;
  site.category = "status";
  site.label = "refresh";
  site.repo = 2;  // repo id 1
  const uint64_t region_site = g.InternSite(site);
  const uint64_t status_args[] = {g.String("main"), 5'000'000'000, /*tid=*/1234};
  RETURN_IF_ERROR(g.Event(kMainThread, EventType::kThreadStatus, 5'000'000'010, status_args));
  const uint64_t start_args[] = {main_site, g.StringList({"git", "status"})};
  RETURN_IF_ERROR(g.Event(kMainThread, EventType::kStart, 5'000'000'020, start_args));
  const uint64_t enter_args[] = {region_site, 0};
  RETURN_IF_ERROR(g.Event(kMainThread, EventType::kRegionEnter, 5'000'100'001, enter_args));
  RETURN_IF_ERROR(g.Event(kMainThread, EventType::kRegionLeave, 5'001'100'001, enter_args));
  const uint64_t exit_args[] = {main_site, ZigzagEncode(0)};
  RETURN_IF_ERROR(g.Event(kMainThread, EventType::kExit, 5'001'200'000, exit_args));
  RETURN_IF_ERROR(g.Finish(&out));
  return out;
}

std::string Hex(absl::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) {
    if (!out.empty()) out.push_back(' ');
    absl::StrAppendFormat(&out, "%02x", c);
  }
  return out;
}

// Printable rendering of string data for annotations.
std::string Quote(absl::string_view bytes) {
  std::string out = "\"";
  for (unsigned char c : bytes) {
    if (c == 0) {
      out += "\\0";
    } else if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c >= 0x20 && c < 0x7f && c != '|' && c != '`') {
      out.push_back(c);
    } else {
      absl::StrAppendFormat(&out, "\\x%02x", c);
    }
  }
  return out + "\"";
}

// One record or frame header of an example, as the walker sees it.
struct Piece {
  RawEvent event;
  absl::string_view bytes;  // the record without its body
  int depth;                // 0: file header, 1: frame, 2: record of a body
  uint64_t time = 0;        // absolute time of a timed record
};

absl::StatusOr<std::vector<Piece>> Walk(const DocExample& example) {
  std::vector<Piece> pieces;
  absl::string_view input = example.bytes;
  uint64_t offset = 0;
  if (example.is_file) {
    absl::StatusOr<uint32_t> version = ParseFileHeader(input);
    if (!version.ok()) return version.status();
    Piece header;
    header.bytes = input.substr(0, kFileHeaderSize);
    header.depth = 0;
    pieces.push_back(header);
    offset = kFileHeaderSize;
  }
  RecordDecoder frames(input.substr(offset), offset, Scope::kFrame);
  RawEvent frame;
  while (true) {
    absl::StatusOr<bool> more = frames.Next(&frame);
    if (!more.ok()) return more.status();
    if (!*more) break;
    Piece p;
    p.event = frame;
    p.bytes = input.substr(frame.offset, frame.size - frame.body.size());
    p.depth = 1;
    pieces.push_back(p);
    if (frame.spec->body == BodyKind::kNone) continue;
    RecordDecoder body(frame.body, frame.body_offset, BodyScope(frame.spec->body));
    RawEvent record;
    uint64_t time = frame.spec->ArgIndex("base_time") >= 0 ? frame.Arg("base_time") : 0;
    while (true) {
      absl::StatusOr<bool> got = body.Next(&record);
      if (!got.ok()) return got.status();
      if (!*got) break;
      Piece r;
      r.event = record;
      r.bytes = input.substr(record.offset, record.size);
      r.depth = 2;
      if (record.spec == nullptr || record.spec->timed) {
        time += record.args[0];
        r.time = time;
      }
      pieces.push_back(r);
    }
  }
  return pieces;
}

// Strings defined by the string batches of `examples`.
std::map<uint64_t, std::string> StringsOf(const std::vector<DocExample>& examples) {
  std::map<uint64_t, std::string> strings;
  for (const DocExample& example : examples) {
    absl::StatusOr<std::vector<Piece>> pieces = Walk(example);
    if (!pieces.ok()) continue;
    for (const Piece& p : *pieces) {
      if (p.depth != 2) continue;
      if (p.event.type == static_cast<uint8_t>(EventType::kString) ||
          p.event.type == static_cast<uint8_t>(EventType::kStringPart)) {
        strings[p.event.Arg("id")].append(p.event.data.data(), p.event.data.size());
      }
    }
  }
  return strings;
}

// "name = value" of one argument, with what the value means.
std::string DescribeArg(const ArgSpec& arg, uint64_t value, const Piece& piece,
                        const std::map<uint64_t, std::string>& strings) {
  std::string out = absl::StrCat(arg.name, " = ", value);
  switch (arg.type) {
    case ArgType::kInt:
      absl::StrAppend(&out, " (zigzag: ", ZigzagDecode(value), ")");
      break;
    case ArgType::kDeltaTime:
      absl::StrAppend(&out, " (t = ", piece.time, ")");
      break;
    case ArgType::kString:
    case ArgType::kStringList:
      if (value == 0) {
        absl::StrAppend(&out, " (none)");
      } else if (auto it = strings.find(value); it != strings.end()) {
        absl::StrAppend(&out, " (", Quote(it->second), ")");
      }
      break;
    case ArgType::kLength:
      absl::StrAppend(&out, " (body bytes)");
      break;
    case ArgType::kSite:
      if (value == 0) absl::StrAppend(&out, " (none)");
      break;
    default:
      if (arg.name == "repo") {
        absl::StrAppend(&out, value == 0 ? " (none)" : absl::StrCat(" (repo id ", value - 1, ")"));
      } else if (arg.name == "pc") {
        out = absl::StrFormat("%s = 0x%x", arg.name, value);
      }
      break;
  }
  return out;
}

std::string RecordSummary(const Piece& p, const std::map<uint64_t, std::string>& strings) {
  std::string out = absl::StrCat("**", p.event.Name(), "**");
  absl::Span<const ArgSpec> args;
  static constexpr ArgSpec kGeneric[] = {{"dt", ArgType::kDeltaTime}};
  args = p.event.spec != nullptr ? p.event.spec->Args() : absl::Span<const ArgSpec>(kGeneric);
  for (size_t i = 0; i < args.size(); ++i) {
    absl::StrAppend(&out, " ", DescribeArg(args[i], p.event.args[i], p, strings));
  }
  for (const StackFrame& f : p.event.frames) {
    absl::StrAppendFormat(&out, " [pc 0x%x func %d file %d line %d]", f.pc, f.func_string,
                          f.file_string, f.line);
  }
  if (p.event.spec == nullptr || p.event.spec->has_data) {
    absl::StrAppend(&out, " data ", Quote(p.event.data));
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<DocExample>> DocExamples() {
  std::vector<DocExample> examples;
  examples.push_back({"example:file_header", EncodeFileHeader(kFormatVersion), true});
  const std::pair<const char*, absl::StatusOr<std::string> (*)()> frames[] = {
      {"example:event_batch", EventBatchExample},
      {"example:string_batch", StringBatchExample},
      {"example:site_batch", SiteBatchExample},
      {"example:stack_batch", StackBatchExample},
      {"example:clock_sync", ClockSyncExample},
      {"example:experimental_events", ExperimentalExample},
      {"example:end_of_generation", EndOfGenerationExample},
  };
  for (const auto& [label, build] : frames) {
    absl::StatusOr<std::string> bytes = build();
    if (!bytes.ok()) return bytes.status();
    examples.push_back({label, *std::move(bytes), false});
  }
  absl::StatusOr<std::string> tiny = TinyTrace();
  if (!tiny.ok()) return tiny.status();
  examples.push_back({"example:tiny_trace", *std::move(tiny), true});
  return examples;
}

absl::StatusOr<std::string> HexBlock(const DocExample& example) {
  absl::StatusOr<std::vector<Piece>> pieces = Walk(example);
  if (!pieces.ok()) return pieces.status();
  std::string out = absl::StrCat("```hex ", example.label, "\n");
  for (const Piece& p : *pieces) {
    for (size_t i = 0; i < p.bytes.size(); i += 16) {
      absl::StrAppend(&out, Hex(p.bytes.substr(i, 16)), "\n");
    }
  }
  return out + "```\n";
}

absl::StatusOr<std::string> AnnotationTable(const DocExample& example) {
  absl::StatusOr<std::vector<Piece>> pieces = Walk(example);
  if (!pieces.ok()) return pieces.status();
  std::vector<DocExample> all;
  if (example.is_file) {
    all.push_back(example);
  } else if (absl::StatusOr<std::vector<DocExample>> examples = DocExamples(); examples.ok()) {
    for (DocExample& e : *examples) {
      if (!e.is_file) all.push_back(std::move(e));
    }
  }
  const std::map<uint64_t, std::string> strings = StringsOf(all);
  std::string out;
  if (example.is_file) {
    out = "| Offset | Size | Record |\n|---:|---:|---|\n";
    for (const Piece& p : *pieces) {
      const uint64_t offset = p.depth == 0 ? 0 : p.event.offset;
      std::string what;
      if (p.depth == 0) {
        what = absl::StrCat("file header, format version ", kFormatVersion);
      } else {
        what =
            absl::StrCat(p.depth == 2 ? "&nbsp;&nbsp;&nbsp;&nbsp;" : "", RecordSummary(p, strings));
      }
      absl::StrAppend(&out, "| ", offset, " | ", p.bytes.size(), " | ", what, " |\n");
    }
    return out;
  }
  out = "| Offset | Bytes | Meaning |\n|---:|---|---|\n";
  for (const Piece& p : *pieces) {
    const RawEvent& e = p.event;
    uint64_t offset = e.offset;
    absl::string_view rest = p.bytes;
    auto row = [&](size_t size, const std::string& meaning) {
      absl::StrAppend(&out, "| ", offset, " | `", Hex(rest.substr(0, size)), "` | ",
                      p.depth == 2 ? "&nbsp;&nbsp;" : "", meaning, " |\n");
      offset += size;
      rest.remove_prefix(size);
    };
    row(1,
        absl::StrCat("type ", e.type, ": **", e.Name(), "**",
                     p.depth == 1 ? " frame" : (e.spec != nullptr ? "" : " (not in the table)")));
    static constexpr ArgSpec kGeneric[] = {{"dt", ArgType::kDeltaTime}};
    const absl::Span<const ArgSpec> args =
        e.spec != nullptr ? e.spec->Args() : absl::Span<const ArgSpec>(kGeneric);
    for (size_t i = 0; i < args.size(); ++i) {
      row(UvarintSize(e.args[i]), DescribeArg(args[i], e.args[i], p, strings));
    }
    for (size_t i = 0; i < e.frames.size(); ++i) {
      const StackFrame& f = e.frames[i];
      row(UvarintSize(f.pc), absl::StrFormat("frame %d: pc = 0x%x", i, f.pc));
      row(UvarintSize(f.func_string),
          DescribeArg({"func_string", ArgType::kString}, f.func_string, p, strings));
      row(UvarintSize(f.file_string),
          DescribeArg({"file_string", ArgType::kString}, f.file_string, p, strings));
      row(UvarintSize(f.line), absl::StrCat("line = ", f.line));
    }
    if (e.spec == nullptr || e.spec->has_data) {
      row(UvarintSize(e.data.size()), absl::StrCat("data length = ", e.data.size()));
      if (!e.data.empty()) row(e.data.size(), absl::StrCat("data ", Quote(e.data)));
    }
    if (!rest.empty()) return absl::InternalError("annotation did not cover every byte");
  }
  return out;
}

std::string SpecTableMarkdown() {
  std::string out =
      "| Type | Name | Scope | Arguments | String IDs | Stack IDs | Kind | Trailer | Range | "
      "Trace2 event |\n"
      "|---:|---|---|---|---|---|---|---|---|---|\n";
  auto type_name = [](ArgType type) -> const char* {
    switch (type) {
      case ArgType::kUint:
        return "uint";
      case ArgType::kInt:
        return "int";
      case ArgType::kDeltaTime:
        return "dt";
      case ArgType::kTime:
        return "time";
      case ArgType::kDuration:
        return "duration";
      case ArgType::kLength:
        return "length";
      case ArgType::kString:
        return "string";
      case ArgType::kStringList:
        return "strlist";
      case ArgType::kStack:
        return "stack";
      case ArgType::kSite:
        return "site";
    }
    return "?";
  };
  for (const EventSpec& s : AllSpecs()) {
    std::vector<std::string> args, string_ids, stack_ids;
    for (const ArgSpec& arg : s.Args()) {
      args.push_back(absl::StrCat("`", arg.name, "`:", type_name(arg.type),
                                  arg.since != 0 ? absl::StrCat(" (v", arg.since, ")") : ""));
    }
    for (uint8_t i : s.StringIds()) string_ids.push_back(std::string(s.args[i].name));
    for (uint8_t i : s.StackIds()) stack_ids.push_back(std::string(s.args[i].name));
    std::string trailer = "—";
    if (s.has_data) trailer = absl::StrCat("data ≤ ", s.max_data);
    if (s.is_stack) trailer = "`nframes` × (pc, func_string, file_string, line)";
    if (s.body != BodyKind::kNone) {
      trailer = absl::StrCat("body: ", ScopeName(BodyScope(s.body)));
    }
    std::string range = "—";
    switch (s.range) {
      case RangeRole::kNone:
        break;
      case RangeRole::kBegin:
        range = "begin";
        break;
      case RangeRole::kEnd:
        range = absl::StrCat("end of ", LookupSpec(s.start_type)->name);
        break;
      case RangeRole::kActive:
        range = absl::StrCat("active ", LookupSpec(s.start_type)->name);
        break;
    }
    const char* kind = s.experimental ? "experimental" : s.timed ? "timed" : "structural";
    absl::StrAppend(&out, "| ", static_cast<int>(s.type), " | `", s.name, "` | ",
                    ScopeName(s.scope), " | ", absl::StrJoin(args, ", "), " | ",
                    string_ids.empty() ? "—" : absl::StrJoin(string_ids, ", "), " | ",
                    stack_ids.empty() ? "—" : absl::StrJoin(stack_ids, ", "), " | ", kind, " | ",
                    trailer, " | ", range, " | ",
                    s.trace2_event.empty() ? "—" : absl::StrCat("`", s.trace2_event, "`"), " |\n");
  }
  return out;
}

}  // namespace tracewire::format
