#include "tools/trace2_import/trace2_line.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "format/varint.h"
#include "reader/targets/valid_utf8.h"
#include "tools/trace2_import/import_timeline.h"

namespace tracewire::tools {
namespace {

using Json = nlohmann::ordered_json;
using format::EventType;

// 10000-01-01T00:00:00Z, the end of the "time" values accepted.
constexpr absl::Time kEndOfYear9999 = absl::FromUnixSeconds(253402300800);

// ---- Bytes that are not UTF-8 ----
// git writes string bytes >= 0x80 raw, without checking UTF-8, but the JSON parser accepts
// only UTF-8. Each byte of an ill-formed sequence is escaped as the private-use code point
// U+10FF00 + byte before parsing, and turned back into the byte afterwards.

// `text` with every byte of an ill-formed UTF-8 sequence written as the JSON escape of
// U+10FF00 + byte (a surrogate pair \udbff\udfXX). Returns false if nothing changed.
bool EscapeRawBytes(absl::string_view text, std::string* out) {
  bool changed = false;
  out->clear();
  for (size_t i = 0; i < text.size();) {
    const size_t n = targets::Utf8SequenceLength(text, i);
    if (n == 0) {
      absl::StrAppendFormat(out, "\\udbff\\udf%02x", static_cast<unsigned char>(text[i]));
      changed = true;
      ++i;
    } else {
      out->append(text.data() + i, n);
      i += n;
    }
  }
  return changed;
}

// Turns the UTF-8 encoding of U+10FF00 + byte (F4 8F BC..BF 80..BF) back into the byte.
void RestoreRawBytes(std::string* s) {
  if (s->find('\xf4') == std::string::npos) return;
  std::string out;
  for (size_t i = 0; i < s->size(); ++i) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>((*s)[k]); };
    if (i + 3 < s->size() && b(i) == 0xf4 && b(i + 1) == 0x8f && b(i + 2) >= 0xbc &&
        b(i + 3) >= 0x80 && b(i + 3) <= 0xbf) {
      out.push_back(static_cast<char>(((b(i + 2) - 0xbc) << 6) | (b(i + 3) & 0x3f)));
      i += 3;
    } else {
      out.push_back((*s)[i]);
    }
  }
  *s = std::move(out);
}

// The raw bytes of the top-level member "value" of the object `line`, when it is the last
// member (git's order for data_json); nullopt if it cannot be found.
std::optional<std::string> RawLastMember(absl::string_view line, absl::string_view key) {
  const std::string needle = absl::StrCat("\"", key, "\":");
  // Members before "value" are scalars whose strings escape every '"', so the first
  // occurrence of the needle whose quote is not escaped is the member's key.
  size_t pos = 0;
  while ((pos = line.find(needle, pos)) != absl::string_view::npos) {
    size_t backslashes = 0;
    while (backslashes < pos && line[pos - 1 - backslashes] == '\\') ++backslashes;
    if (backslashes % 2 == 0) break;
    pos += needle.size();
  }
  if (pos == absl::string_view::npos) return std::nullopt;
  const size_t begin = pos + needle.size();
  size_t end = line.find_last_not_of(" \t\r\n");
  if (end == absl::string_view::npos || line[end] != '}' || end < begin) return std::nullopt;
  return std::string(line.substr(begin, end - begin));
}

// Reads the members of one line's object, remembering which keys were used.
class Members {
 public:
  Members(const Json& object, int line_number, absl::string_view event)
      : object_(object), line_number_(line_number), event_(event) {}

  absl::Status Error(absl::string_view message) const {
    return absl::InvalidArgumentError(
        absl::StrFormat("line %d: %s: %s", line_number_, event_, message));
  }

  const Json* Find(absl::string_view key) {
    auto it = object_.find(std::string(key));
    if (it == object_.end()) return nullptr;
    used_.insert(std::string(key));
    return &*it;
  }

  absl::StatusOr<std::optional<std::string>> OptString(absl::string_view key) {
    const Json* value = Find(key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_string()) return Error(absl::StrCat("\"", key, "\" is not a string"));
    std::string text = value->get<std::string>();
    RestoreRawBytes(&text);
    return text;
  }
  absl::StatusOr<std::string> String(absl::string_view key) {
    absl::StatusOr<std::optional<std::string>> value = OptString(key);
    if (!value.ok()) return value.status();
    if (!value->has_value()) return Error(absl::StrCat("\"", key, "\" is missing"));
    return std::move(**value);
  }

  absl::StatusOr<std::optional<int64_t>> OptInt(absl::string_view key) {
    const Json* value = Find(key);
    if (value == nullptr) return std::nullopt;
    if (value->is_number_unsigned()) return static_cast<int64_t>(value->get<uint64_t>());
    if (value->is_number_integer()) return value->get<int64_t>();
    return Error(absl::StrCat("\"", key, "\" is not an integer"));
  }
  absl::StatusOr<int64_t> Int(absl::string_view key) {
    absl::StatusOr<std::optional<int64_t>> value = OptInt(key);
    if (!value.ok()) return value.status();
    if (!value->has_value()) return Error(absl::StrCat("\"", key, "\" is missing"));
    return **value;
  }
  absl::StatusOr<uint64_t> Uint(absl::string_view key) {
    absl::StatusOr<int64_t> value = Int(key);
    if (!value.ok()) return value.status();
    return static_cast<uint64_t>(*value);
  }

  // A time in seconds ("t_abs": 0.000794), as microseconds.
  absl::StatusOr<std::optional<int64_t>> OptMicros(absl::string_view key) {
    const Json* value = Find(key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_number()) return Error(absl::StrCat("\"", key, "\" is not a number"));
    const double seconds = value->get<double>();
    if (!std::isfinite(seconds) || std::fabs(seconds) * 1e6 > kMaxProcessMicros) {
      return Error(absl::StrCat("\"", key, "\" is out of range (beyond 100 years)"));
    }
    return static_cast<int64_t>(std::llround(seconds * 1e6));
  }
  absl::StatusOr<int64_t> Micros(absl::string_view key) {
    absl::StatusOr<std::optional<int64_t>> value = OptMicros(key);
    if (!value.ok()) return value.status();
    if (!value->has_value()) return Error(absl::StrCat("\"", key, "\" is missing"));
    return **value;
  }

  absl::StatusOr<bool> Bool(absl::string_view key) {
    const Json* value = Find(key);
    if (value == nullptr) return Error(absl::StrCat("\"", key, "\" is missing"));
    if (!value->is_boolean()) return Error(absl::StrCat("\"", key, "\" is not a boolean"));
    return value->get<bool>();
  }

  absl::StatusOr<std::vector<std::string>> StringArray(absl::string_view key) {
    const Json* value = Find(key);
    if (value == nullptr) return Error(absl::StrCat("\"", key, "\" is missing"));
    if (!value->is_array()) return Error(absl::StrCat("\"", key, "\" is not an array"));
    std::vector<std::string> items;
    for (const Json& item : *value) {
      if (!item.is_string()) {
        return Error(absl::StrCat("\"", key, "\" holds an item that is not a string"));
      }
      items.push_back(item.get<std::string>());
      RestoreRawBytes(&items.back());
    }
    return items;
  }

  // Fails on the first member no getter asked for.
  absl::Status CheckAllUsed() const {
    for (auto it = object_.begin(); it != object_.end(); ++it) {
      if (!used_.contains(it.key())) {
        return Error(absl::StrCat("unknown key \"", it.key(), "\""));
      }
    }
    return absl::OkStatus();
  }

 private:
  const Json& object_;
  int line_number_;
  absl::string_view event_;
  absl::flat_hash_set<std::string> used_;
};

#define TW_ASSIGN_OR_RETURN_IMPL(var, expr, tmp) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  var = std::move(*tmp)
#define TW_CONCAT_INNER(a, b) a##b
#define TW_CONCAT(a, b) TW_CONCAT_INNER(a, b)
// Assigns the value of a StatusOr expression to `var`, or returns its error.
#define TW_ASSIGN_OR_RETURN(var, expr) \
  TW_ASSIGN_OR_RETURN_IMPL(var, expr, TW_CONCAT(status_or_, __LINE__))

ImportArg Number(uint64_t value) {
  ImportArg arg;
  arg.number = value;
  return arg;
}
ImportArg SignedNumber(int64_t value) { return Number(format::ZigzagEncode(value)); }
ImportArg Text(std::optional<std::string> value) {
  ImportArg arg;
  arg.text = std::move(value);
  return arg;
}
ImportArg List(std::vector<std::string> items) {
  ImportArg arg;
  arg.list = std::move(items);
  return arg;
}
// A duration in microseconds as trace-clock ticks (1 tick = 1 ns).
ImportArg DurationMicros(int64_t micros) {
  return Number(static_cast<uint64_t>(std::max<int64_t>(micros, 0)) * 1000);
}

// Reads the keys of the event that follow the common prefix into `line`.
absl::Status ParsePayload(absl::string_view text, const std::string& event, Members& m,
                          Trace2Line& line) {
  std::vector<ImportArg>& args = line.args;
  switch (line.type) {
    case EventType::kVersion: {
      TW_ASSIGN_OR_RETURN(std::string evt, m.String("evt"));
      if (evt != "1" && evt != "2" && evt != "3" && evt != "4") {
        return m.Error(absl::StrCat("unsupported event format version \"", evt, "\""));
      }
      TW_ASSIGN_OR_RETURN(std::string exe, m.String("exe"));
      args.push_back(Text(std::move(exe)));
      return absl::OkStatus();
    }
    case EventType::kTooManyFiles:
      return absl::OkStatus();
    case EventType::kStart: {
      TW_ASSIGN_OR_RETURN(line.t_abs_us, m.Micros("t_abs"));
      TW_ASSIGN_OR_RETURN(std::vector<std::string> argv, m.StringArray("argv"));
      args.push_back(List(std::move(argv)));
      return absl::OkStatus();
    }
    case EventType::kExit:
    case EventType::kAtexit: {
      TW_ASSIGN_OR_RETURN(line.t_abs_us, m.Micros("t_abs"));
      TW_ASSIGN_OR_RETURN(int64_t code, m.Int("code"));
      args.push_back(SignedNumber(code));
      return absl::OkStatus();
    }
    case EventType::kSignal: {
      TW_ASSIGN_OR_RETURN(line.t_abs_us, m.Micros("t_abs"));
      TW_ASSIGN_OR_RETURN(uint64_t signo, m.Uint("signo"));
      args.push_back(Number(signo));
      return absl::OkStatus();
    }
    case EventType::kError: {
      TW_ASSIGN_OR_RETURN(std::optional<std::string> msg, m.OptString("msg"));
      TW_ASSIGN_OR_RETURN(std::optional<std::string> fmt, m.OptString("fmt"));
      args.push_back(Text(std::move(msg)));
      args.push_back(Text(std::move(fmt)));
      return absl::OkStatus();
    }
    case EventType::kCmdPath: {
      TW_ASSIGN_OR_RETURN(std::string path, m.String("path"));
      args.push_back(Text(std::move(path)));
      return absl::OkStatus();
    }
    case EventType::kCmdAncestry: {
      TW_ASSIGN_OR_RETURN(std::vector<std::string> ancestry, m.StringArray("ancestry"));
      args.push_back(List(std::move(ancestry)));
      return absl::OkStatus();
    }
    case EventType::kCmdName: {
      TW_ASSIGN_OR_RETURN(std::string name, m.String("name"));
      TW_ASSIGN_OR_RETURN(std::optional<std::string> hierarchy, m.OptString("hierarchy"));
      args.push_back(Text(std::move(name)));
      args.push_back(Text(std::move(hierarchy)));
      return absl::OkStatus();
    }
    case EventType::kCmdMode: {
      TW_ASSIGN_OR_RETURN(std::string name, m.String("name"));
      args.push_back(Text(std::move(name)));
      return absl::OkStatus();
    }
    case EventType::kAlias: {
      TW_ASSIGN_OR_RETURN(std::string alias, m.String("alias"));
      TW_ASSIGN_OR_RETURN(std::vector<std::string> argv, m.StringArray("argv"));
      args.push_back(Text(std::move(alias)));
      args.push_back(List(std::move(argv)));
      return absl::OkStatus();
    }
    case EventType::kChildStart: {
      TW_ASSIGN_OR_RETURN(uint64_t child_id, m.Uint("child_id"));
      TW_ASSIGN_OR_RETURN(std::string child_class, m.String("child_class"));
      TW_ASSIGN_OR_RETURN(std::optional<std::string> hook_name, m.OptString("hook_name"));
      TW_ASSIGN_OR_RETURN(std::optional<std::string> cd, m.OptString("cd"));
      TW_ASSIGN_OR_RETURN(bool use_shell, m.Bool("use_shell"));
      TW_ASSIGN_OR_RETURN(std::vector<std::string> argv, m.StringArray("argv"));
      uint64_t flags = use_shell ? format::kChildFlagUseShell : 0;
      std::optional<std::string> class_string;
      if (hook_name.has_value()) {
        if (child_class != "hook") return m.Error("\"hook_name\" without \"child_class\":\"hook\"");
        class_string = child_class;
      } else if (child_class != "?") {
        // "?" is what the reader derives from no class. A leading "git" of any other
        // class stays part of argv: whether git added it cannot be told.
        class_string = child_class;
      }
      args.push_back(Number(child_id));
      args.push_back(Text(std::move(class_string)));
      args.push_back(Text(std::move(hook_name)));
      args.push_back(Text(std::move(cd)));
      args.push_back(Number(flags));
      args.push_back(List(std::move(argv)));
      return absl::OkStatus();
    }
    case EventType::kChildExit:
    case EventType::kChildReady: {
      TW_ASSIGN_OR_RETURN(uint64_t child_id, m.Uint("child_id"));
      TW_ASSIGN_OR_RETURN(int64_t pid, m.Int("pid"));
      args.push_back(Number(child_id));
      args.push_back(SignedNumber(pid));
      if (line.type == EventType::kChildExit) {
        TW_ASSIGN_OR_RETURN(int64_t code, m.Int("code"));
        args.push_back(SignedNumber(code));
      } else {
        TW_ASSIGN_OR_RETURN(std::string ready, m.String("ready"));
        if (ready == "ready") {
          args.push_back(Number(format::kChildReadyReady));
        } else if (ready == "timeout") {
          args.push_back(Number(format::kChildReadyTimeout));
        } else if (ready == "error") {
          args.push_back(Number(format::kChildReadyError));
        } else {
          return m.Error(absl::StrCat("unknown \"ready\" value \"", ready, "\""));
        }
      }
      TW_ASSIGN_OR_RETURN(int64_t t_rel, m.Micros("t_rel"));
      args.push_back(DurationMicros(t_rel));
      return absl::OkStatus();
    }
    case EventType::kExec: {
      TW_ASSIGN_OR_RETURN(uint64_t exec_id, m.Uint("exec_id"));
      TW_ASSIGN_OR_RETURN(std::optional<std::string> exe, m.OptString("exe"));
      TW_ASSIGN_OR_RETURN(std::vector<std::string> argv, m.StringArray("argv"));
      args.push_back(Number(exec_id));
      args.push_back(Text(std::move(exe)));
      args.push_back(List(std::move(argv)));
      return absl::OkStatus();
    }
    case EventType::kExecResult: {
      TW_ASSIGN_OR_RETURN(uint64_t exec_id, m.Uint("exec_id"));
      TW_ASSIGN_OR_RETURN(int64_t code, m.Int("code"));
      args.push_back(Number(exec_id));
      args.push_back(SignedNumber(code));
      return absl::OkStatus();
    }
    case EventType::kThreadStart:
      args.push_back(Text(line.thread));
      return absl::OkStatus();
    case EventType::kThreadExit: {
      TW_ASSIGN_OR_RETURN(line.t_rel_us, m.Micros("t_rel"));
      return absl::OkStatus();
    }
    case EventType::kDefParam: {
      // "scope" arrived in git 2.38.
      TW_ASSIGN_OR_RETURN(std::optional<std::string> scope, m.OptString("scope"));
      TW_ASSIGN_OR_RETURN(std::string param, m.String("param"));
      TW_ASSIGN_OR_RETURN(std::optional<std::string> value, m.OptString("value"));
      args.push_back(Text(std::move(scope)));
      args.push_back(Text(std::move(param)));
      args.push_back(Text(std::move(value)));
      return absl::OkStatus();
    }
    case EventType::kDefRepo: {
      if (line.site.repo == 0) return m.Error("\"repo\" is missing");
      TW_ASSIGN_OR_RETURN(std::string worktree, m.String("worktree"));
      args.push_back(Number(line.site.repo - 1));
      args.push_back(Text(std::move(worktree)));
      line.site.repo = 0;  // the repo id travels as the row's repo_id
      return absl::OkStatus();
    }
    case EventType::kRegionEnter:
    case EventType::kRegionLeave: {
      if (line.type == EventType::kRegionLeave) {
        TW_ASSIGN_OR_RETURN(line.t_rel_us, m.Micros("t_rel"));
      }
      TW_ASSIGN_OR_RETURN(int64_t nesting, m.Int("nesting"));
      line.nesting = static_cast<int>(nesting);
      TW_ASSIGN_OR_RETURN(line.site.category, m.OptString("category"));
      TW_ASSIGN_OR_RETURN(line.site.label, m.OptString("label"));
      TW_ASSIGN_OR_RETURN(std::optional<std::string> msg, m.OptString("msg"));
      args.push_back(Text(std::move(msg)));
      return absl::OkStatus();
    }
    case EventType::kData:
    case EventType::kDataJson: {
      TW_ASSIGN_OR_RETURN(line.t_abs_us, m.Micros("t_abs"));
      TW_ASSIGN_OR_RETURN(line.t_rel_us, m.Micros("t_rel"));
      TW_ASSIGN_OR_RETURN(int64_t nesting, m.Int("nesting"));
      line.nesting = static_cast<int>(nesting);
      TW_ASSIGN_OR_RETURN(std::string category, m.String("category"));
      TW_ASSIGN_OR_RETURN(std::string key, m.String("key"));
      line.site.category = std::move(category);
      line.site.label = std::move(key);
      const Json* value = m.Find("value");
      if (value == nullptr) return m.Error("\"value\" is missing");
      if (line.type == EventType::kDataJson) {
        // The value's exact bytes (git splices the caller's JSON in as is).
        std::optional<std::string> raw = RawLastMember(text, "value");
        std::string escaped;
        if (raw.has_value()) {
          const std::string& candidate = EscapeRawBytes(*raw, &escaped) ? escaped : *raw;
          const Json reparsed = Json::parse(candidate, nullptr, /*allow_exceptions=*/false);
          if (reparsed.is_discarded() || reparsed != *value) raw.reset();
        }
        if (!raw.has_value()) {
          raw = value->dump();
          RestoreRawBytes(&*raw);
        }
        args.push_back(Text(std::move(*raw)));
      } else if (value->is_string()) {
        std::string text_value = value->get<std::string>();
        RestoreRawBytes(&text_value);
        args.push_back(Text(std::move(text_value)));
      } else if (value->is_number_integer() && !value->is_number_unsigned()) {
        line.type = EventType::kDataInt;  // a producer that writes integers (not git)
        args.push_back(SignedNumber(value->get<int64_t>()));
      } else if (value->is_number_unsigned() &&
                 value->get<uint64_t>() <=
                     static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        line.type = EventType::kDataInt;
        args.push_back(SignedNumber(static_cast<int64_t>(value->get<uint64_t>())));
      } else {
        return m.Error("\"value\" is neither a string nor an integer");
      }
      return absl::OkStatus();
    }
    case EventType::kPrintf: {
      TW_ASSIGN_OR_RETURN(line.t_abs_us, m.Micros("t_abs"));
      TW_ASSIGN_OR_RETURN(std::optional<std::string> msg, m.OptString("msg"));
      args.push_back(Text(std::move(msg)));
      return absl::OkStatus();
    }
    case EventType::kThTimer:
    case EventType::kTimer: {
      TW_ASSIGN_OR_RETURN(std::string category, m.String("category"));
      TW_ASSIGN_OR_RETURN(std::string name, m.String("name"));
      line.site.category = std::move(category);
      line.site.label = std::move(name);
      TW_ASSIGN_OR_RETURN(uint64_t intervals, m.Uint("intervals"));
      TW_ASSIGN_OR_RETURN(int64_t total, m.Micros("t_total"));
      TW_ASSIGN_OR_RETURN(int64_t min, m.Micros("t_min"));
      TW_ASSIGN_OR_RETURN(int64_t max, m.Micros("t_max"));
      args.push_back(Number(intervals));
      args.push_back(DurationMicros(total));
      args.push_back(DurationMicros(min));
      args.push_back(DurationMicros(max));
      return absl::OkStatus();
    }
    case EventType::kThCounter:
    case EventType::kCounter: {
      TW_ASSIGN_OR_RETURN(std::string category, m.String("category"));
      TW_ASSIGN_OR_RETURN(std::string name, m.String("name"));
      line.site.category = std::move(category);
      line.site.label = std::move(name);
      // EVENT prints the uint64 counter as a signed integer.
      TW_ASSIGN_OR_RETURN(uint64_t count, m.Uint("count"));
      args.push_back(Number(count));
      return absl::OkStatus();
    }
    default:
      return m.Error(absl::StrCat("unknown event \"", event, "\""));
  }
}

}  // namespace

absl::StatusOr<Trace2Line> ParseTrace2Line(absl::string_view text, int line_number) {
  std::string escaped;
  const absl::string_view input = EscapeRawBytes(text, &escaped) ? escaped : text;
  const Json object = Json::parse(input.begin(), input.end(), nullptr, /*allow_exceptions=*/false);
  if (object.is_discarded() || !object.is_object()) {
    return absl::InvalidArgumentError(absl::StrFormat("line %d: not a JSON object", line_number));
  }
  auto event_it = object.find("event");
  if (event_it == object.end() || !event_it->is_string()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("line %d: no \"event\" string member", line_number));
  }
  const std::string event = event_it->get<std::string>();
  Trace2Line line;
  line.line_number = line_number;
  if (const format::EventSpec* spec = format::LookupTrace2Event(event); spec != nullptr) {
    line.type = spec->type;
  }
  if (line.type == EventType::kNone) {
    return absl::InvalidArgumentError(
        absl::StrFormat("line %d: unknown event \"%s\"", line_number, event));
  }
  Members m(object, line_number, event);
  m.Find("event");
  TW_ASSIGN_OR_RETURN(line.sid, m.String("sid"));
  TW_ASSIGN_OR_RETURN(line.thread, m.String("thread"));
  TW_ASSIGN_OR_RETURN(std::optional<std::string> time, m.OptString("time"));
  if (time.has_value()) {
    absl::Time parsed;
    std::string error;
    if (!absl::ParseTime("%Y-%m-%dT%H:%M:%E*S%Ez", *time, &parsed, &error)) {
      return m.Error(absl::StrCat("cannot parse \"time\" \"", *time, "\": ", error));
    }
    // The trace's clock_sync states UTC from the Unix epoch; git prints four-digit years.
    if (parsed < absl::UnixEpoch() || parsed >= kEndOfYear9999) {
      return m.Error(absl::StrCat("\"time\" \"", *time, "\" is outside the years 1970 to 9999"));
    }
    line.time_us = absl::ToUnixMicros(parsed);
  }
  TW_ASSIGN_OR_RETURN(line.site.file, m.OptString("file"));
  TW_ASSIGN_OR_RETURN(std::optional<int64_t> source_line, m.OptInt("line"));
  if (source_line.has_value()) {
    if (*source_line < 0) return m.Error("\"line\" is negative");
    line.site.line = static_cast<uint64_t>(*source_line);
  }
  TW_ASSIGN_OR_RETURN(std::optional<int64_t> repo, m.OptInt("repo"));
  if (repo.has_value()) {
    if (*repo < 0) return m.Error("\"repo\" is negative");
    line.site.repo = static_cast<uint64_t>(*repo) + 1;
  }
  if (absl::Status s = ParsePayload(text, event, m, line); !s.ok()) return s;
  if (absl::Status s = m.CheckAllUsed(); !s.ok()) return s;
  return line;
}

}  // namespace tracewire::tools
