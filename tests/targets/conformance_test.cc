// Golden conformance runs: the real //tests/testtool (git's `test-tool trace2` verbs) is
// traced, the trace is decoded with the reader and written by each git target in brief
// mode, scrubbed the way git's tests scrub it, and compared with the expectations of git's
// t0210 (NORMAL), t0211 (PERF) and t0212 (EVENT) in tests/targets/golden/.
//
// Scrubbing, as git's scripts do:
//  * NORMAL (t0210 scrub_normal): elapsed:<float> -> elapsed:_TIME_; argv[0] of `start`
//    -> _EXE_; cmd_path and cmd_ancestry lines dropped.
//  * PERF (t0211/scrub_perf.perl): columns split on '|' and trimmed; start argv[0] ->
//    _EXE_; cmd_path, cmd_ancestry and process/fsync data lines dropped; child_exit pid ->
//    _PID_; timer total/min/max -> _T_TOTAL_/_T_MIN_/_T_MAX_; t_abs/t_rel -> _T_ABS_/_T_REL_.
//  * EVENT (t0212/parse_events.perl): the per-process summary (sids -> _SIDn_, argv[0] and
//    child argv[0] -> _EXE_, errors by fmt, params, children, test_category data) printed
//    as Data::Dumper prints it (sorted keys, Indent=1, Pair ':', quotes as ").
//
// The golden files are git's heredocs with `test-tool` written `testtool` (child argv is not
// scrubbed) and $V kept as is: the test substitutes kVersion, the TRACEWIRE_APP_VERSION it
// sets. Lines starting with "# " at the top of a golden file are comments. The timer and
// counter checks are git's greps (have_timer_event/have_counter_event), one pattern a line.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "reader/event.h"
#include "reader/process_tree.h"
#include "reader/reader.h"
#include "reader/targets/formatter.h"

extern char** environ;

namespace tracewire::targets {
namespace {

constexpr char kVersion[] = "2.55.GIT";

std::string Runfile(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return absl::StrCat(srcdir ? srcdir : ".", "/", workspace ? workspace : "tracewire", "/", path);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string TempPath(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  static int counter = 0;
  return absl::StrCat(tmp ? tmp : "/tmp", "/", name, ".", getpid(), ".", counter++);
}

// Runs `testtool trace2 <args>` (found through PATH, as git's tests find test-tool) with
// tracing to `target`; returns the exit code.
int RunTesttool(const std::vector<std::string>& args, const std::string& target) {
  const std::string tool = Runfile("tests/testtool/testtool");
  const std::string tool_dir = tool.substr(0, tool.rfind('/'));
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const absl::string_view entry(*e);
    if (absl::StartsWith(entry, "TRACEWIRE") || absl::StartsWith(entry, "PATH=")) continue;
    env.emplace_back(entry);
  }
  const char* path = std::getenv("PATH");
  env.push_back(absl::StrCat("PATH=", tool_dir, ":", path ? path : "/usr/bin:/bin"));
  env.push_back(absl::StrCat("TRACEWIRE=", target));
  env.push_back(absl::StrCat("TRACEWIRE_APP_VERSION=", kVersion));
  std::vector<std::string> argv = {"testtool", "trace2"};
  argv.insert(argv.end(), args.begin(), args.end());

  std::vector<char*> argv_ptrs, env_ptrs;
  for (std::string& a : argv) argv_ptrs.push_back(a.data());
  argv_ptrs.push_back(nullptr);
  for (std::string& e : env) env_ptrs.push_back(e.data());
  env_ptrs.push_back(nullptr);
  pid_t pid;
  if (posix_spawn(&pid, tool.c_str(), nullptr, nullptr, argv_ptrs.data(), env_ptrs.data()) != 0) {
    ADD_FAILURE() << "cannot run " << tool;
    return -1;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The brief output of the `event`, `perf` and `normal` formatters.
struct Outputs {
  std::string event, perf, normal;
};

// Formats the events `next` yields (nullptr ends) with all three targets, in order.
template <typename NextFn>
Outputs FormatAll(NextFn next) {
  FormatterOptions options;
  options.brief = true;
  auto event = MakeFormatter("event", options);
  auto perf = MakeFormatter("perf", options);
  auto normal = MakeFormatter("normal", options);
  Outputs out;
  if (!event.ok() || !perf.ok() || !normal.ok()) {
    ADD_FAILURE() << "MakeFormatter failed";
    return out;
  }
  while (true) {
    absl::StatusOr<const reader::Event*> e = next();
    if (!e.ok()) {
      ADD_FAILURE() << e.status();
      break;
    }
    if (*e == nullptr) break;
    (*event)->Write(**e, &out.event);
    (*perf)->Write(**e, &out.perf);
    (*normal)->Write(**e, &out.normal);
  }
  (*event)->Finish(&out.event);
  (*perf)->Finish(&out.perf);
  (*normal)->Finish(&out.normal);
  return out;
}

// A directory target: one file per process, merged in wall-time order.
Outputs RunInDirectory(const std::vector<std::string>& args, int expected_code) {
  const std::string dir = TempPath("traces");
  EXPECT_EQ(mkdir(dir.c_str(), 0777), 0);
  EXPECT_EQ(RunTesttool(args, dir), expected_code);
  auto tree = reader::ProcessTreeReader::OpenDirectory(dir);
  if (!tree.ok()) {
    ADD_FAILURE() << tree.status();
    return {};
  }
  return FormatAll([&] { return (*tree)->Next(); });
}

// A file target every process appends to: read in file order (generation by generation),
// each event formatted alone, then the lines stably sorted by event time (shallower
// process first on ties), which is the order git's processes write their lines in.
Outputs RunInOneFile(const std::vector<std::string>& args, int expected_code) {
  const std::string file = TempPath("trace.twr");
  EXPECT_EQ(RunTesttool(args, file), expected_code);
  auto reader = reader::Reader::OpenFile(file);
  if (!reader.ok()) {
    ADD_FAILURE() << reader.status();
    return {};
  }
  struct Item {
    absl::Time time;
    int depth;
    Outputs text;
  };
  std::vector<Item> items;
  while (true) {
    absl::StatusOr<const reader::Event*> e = (*reader)->Next();
    if (!e.ok()) {
      ADD_FAILURE() << e.status();
      break;
    }
    if (*e == nullptr) break;
    bool done = false;
    Item item{(*e)->time, (*e)->depth, FormatAll([&]() -> absl::StatusOr<const reader::Event*> {
                if (done) return nullptr;
                done = true;
                return *e;
              })};
    items.push_back(std::move(item));
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return a.time != b.time ? a.time < b.time : a.depth < b.depth;
  });
  Outputs out;
  for (const Item& item : items) {
    out.event += item.text.event;
    out.perf += item.text.perf;
    out.normal += item.text.normal;
  }
  return out;
}

std::vector<std::string> Lines(absl::string_view text) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

// ---- t0210/scrub_normal ----

std::string ScrubNormal(absl::string_view normal) {
  static const std::regex kElapsed("elapsed:[0-9]*\\.[0-9]+([eE][-+]?[0-9]+)?");
  static const std::regex kStart("^start\\s+('[^']*'|[^ ]+)\\s+(.*)$");
  std::string out;
  for (std::string line : Lines(normal)) {
    line = std::regex_replace(line, kElapsed, "elapsed:_TIME_");
    if (absl::StartsWith(line, "cmd_path") || absl::StartsWith(line, "cmd_ancestry")) continue;
    std::smatch m;
    if (absl::StartsWith(line, "start") && std::regex_match(line, m, kStart)) {
      line = absl::StrCat("start _EXE_ ", m[2].str());
    }
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

// ---- t0211/scrub_perf.perl ----

std::string ScrubPerf(absl::string_view perf) {
  enum { kDepth, kThread, kEvent, kRepo, kTAbs, kTRel, kCategory, kRest };
  static const std::regex kArgv0("^('[^']*'|[^ ]*)\\W*(.*)$");
  static const std::regex kPid(" pid:\\d* ");
  static const std::regex kTotal(" total:\\d+\\.\\d*");
  static const std::regex kMin(" min:\\d+\\.\\d*");
  static const std::regex kMax(" max:\\d+\\.\\d*");
  std::string out;
  for (const std::string& line : Lines(perf)) {
    std::vector<std::string> t = absl::StrSplit(line, '|');
    for (std::string& column : t) column = std::string(absl::StripAsciiWhitespace(column));
    if (t.size() <= kRest) {
      ADD_FAILURE() << "short PERF line: " << line;
      continue;
    }
    const std::string& event = t[kEvent];
    if (absl::StartsWith(event, "start")) {
      t[kRest] = std::regex_replace(t[kRest], kArgv0, "_EXE_ $2");
    } else if (absl::StrContains(event, "cmd_path") || absl::StrContains(event, "cmd_ancestry")) {
      continue;
    } else if (absl::StrContains(event, "child_exit")) {
      t[kRest] = std::regex_replace(t[kRest], kPid, " pid:_PID_ ",
                                    std::regex_constants::format_first_only);
    } else if (absl::StrContains(event, "data")) {
      if (absl::StrContains(t[kCategory], "process") || absl::StrContains(t[kCategory], "fsync")) {
        continue;
      }
    } else if (absl::StrContains(event, "timer")) {
      t[kRest] = std::regex_replace(t[kRest], kTotal, " total:_T_TOTAL_",
                                    std::regex_constants::format_first_only);
      t[kRest] = std::regex_replace(t[kRest], kMin, " min:_T_MIN_",
                                    std::regex_constants::format_first_only);
      t[kRest] = std::regex_replace(t[kRest], kMax, " max:_T_MAX_",
                                    std::regex_constants::format_first_only);
    }
    if (std::any_of(t[kTAbs].begin(), t[kTAbs].end(), ::isdigit)) t[kTAbs] = "_T_ABS_";
    if (std::any_of(t[kTRel].begin(), t[kTRel].end(), ::isdigit)) t[kTRel] = "_T_REL_";
    absl::StrAppend(&out, absl::StrJoin(t, "|"), "\n");
  }
  return out;
}

// ---- t0212/parse_events.perl ----

using nlohmann::json;

// Data::Dumper (Sortkeys, Indent=1, Pair ':') followed by s/'/"/g.
void Dump(const json& value, int indent, std::string* out) {
  const std::string pad(indent + 2, ' ');
  auto quoted = [](const std::string& s) {
    return absl::StrCat("\"", absl::StrReplaceAll(s, {{"\\", "\\\\"}, {"'", "\\\""}}), "\"");
  };
  if (value.is_object()) {
    if (value.empty()) {
      out->append("{}");
      return;
    }
    out->append("{\n");
    size_t i = 0;
    for (auto it = value.begin(); it != value.end(); ++it, ++i) {  // std::map: sorted keys
      absl::StrAppend(out, pad, quoted(it.key()), ":");
      Dump(it.value(), indent + 2, out);
      out->append(i + 1 < value.size() ? ",\n" : "\n");
    }
    absl::StrAppend(out, std::string(indent, ' '), "}");
  } else if (value.is_array()) {
    if (value.empty()) {
      out->append("[]");
      return;
    }
    out->append("[\n");
    for (size_t i = 0; i < value.size(); ++i) {
      out->append(pad);
      Dump(value[i], indent + 2, out);
      out->append(i + 1 < value.size() ? ",\n" : "\n");
    }
    absl::StrAppend(out, std::string(indent, ' '), "]");
  } else if (value.is_string()) {
    out->append(quoted(value.get<std::string>()));
  } else if (value.is_null()) {
    out->append("undef");
  } else {
    out->append(value.dump());
  }
}

std::string SummarizeEvents(absl::string_view event_lines) {
  std::map<std::string, std::string> sid_map;
  json processes = json::object();
  for (const std::string& line : Lines(event_lines)) {
    const json e = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (e.is_discarded()) {
      ADD_FAILURE() << "not JSON: " << line;
      continue;
    }
    std::vector<std::string> parts;
    for (absl::string_view raw : absl::StrSplit(e["sid"].get<std::string>(), '/')) {
      auto [it, added] = sid_map.emplace(std::string(raw), "");
      if (added) it->second = absl::StrCat("_SID", sid_map.size() - 1, "_");
      parts.push_back(it->second);
    }
    json& p = processes[absl::StrJoin(parts, "/")];
    const std::string event = e["event"].get<std::string>();
    if (event == "version") {
      p["version"] = e["exe"];
    } else if (event == "start") {
      p["argv"] = e["argv"];
      p["argv"][0] = "_EXE_";
    } else if (event == "exit" || event == "atexit") {
      p["exit_code"] = e["code"];
    } else if (event == "error") {
      if (e.contains("fmt")) {
        p["errors"].push_back(e["fmt"]);
      } else if (e.contains("msg")) {
        p["errors"].push_back(e["msg"]);
      }
    } else if (event == "cmd_name") {
      p["name"] = e["name"];
      p["hierarchy"] = e.contains("hierarchy") ? e["hierarchy"] : json();
    } else if (event == "alias") {
      p["alias"]["key"] = e["alias"];
      p["alias"]["argv"] = e["argv"];
    } else if (event == "def_param") {
      p["params"].push_back({{"param", e["param"]}, {"value", e.value("value", json())}});
    } else if (event == "child_start") {
      json& child = p["child"][std::to_string(e["child_id"].get<int64_t>())];
      child["child_class"] = e["child_class"];
      child["child_argv"] = e["argv"];
      child["child_argv"][0] = "_EXE_";
      child["use_shell"] = e["use_shell"].get<bool>() ? 1 : 0;
    } else if (event == "child_exit") {
      p["child"][std::to_string(e["child_id"].get<int64_t>())]["child_code"] = e["code"];
    } else if (event == "def_repo") {
      p["repos"][std::to_string(e["repo"].get<int64_t>())] = "_WORKTREE_";
    } else if (event == "data") {
      if (e["category"] == "test_category") {
        p["data"]["test_category"][e["key"].get<std::string>()] = e["value"];
      }
    }
  }
  std::string out = "VAR1 = ";
  Dump(processes, 0, &out);
  out.append(";\n");
  return out;
}

// ---- golden files ----

std::string Golden(const std::string& name) {
  const std::string text = ReadFile(Runfile(absl::StrCat("tests/targets/golden/", name)));
  EXPECT_FALSE(text.empty()) << "missing golden file " << name;
  std::string out;
  bool header = true;
  for (const std::string& line : Lines(text)) {
    if (header && absl::StartsWith(line, "# ")) continue;
    header = false;
    absl::StrAppend(&out, line, "\n");
  }
  return absl::StrReplaceAll(out, {{"$V", kVersion}});
}

// One traced run of a verb and the golden files it is checked against (empty: none).
struct Case {
  std::string name;
  std::vector<std::string> args;
  int exit_code;
  std::string normal_golden;  // t0210
  std::string perf_golden;    // t0211
  std::string event_golden;   // t0212
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {"001return_0", {"001return", "0"}, 0, "t0210_001return_0.txt", "t0211_001return_0.txt", ""},
      {"001return_1", {"001return", "1"}, 1, "t0210_001return_1.txt", "t0211_001return_1.txt", ""},
      {"002exit_0", {"002exit", "0"}, 0, "t0210_002exit_0.txt", "", ""},
      {"002exit_1", {"002exit", "1"}, 1, "t0210_002exit_1.txt", "", ""},
      {"003error",
       {"003error", "hello world", "this is a test"},
       0,
       "t0210_003error.txt",
       "t0211_003error.txt",
       "t0212_003error.txt"},
      {"004child",
       {"004child", "testtool", "trace2", "004child", "testtool", "trace2", "001return", "0"},
       0,
       "",
       "t0211_004child.txt",
       "t0212_004child.txt"},
      {"006data",
       {"006data", "test_category", "k1", "v1", "test_category", "k2", "v2"},
       0,
       "",
       "",
       "t0212_006data.txt"},
      {"007bug", {"007bug"}, 99, "t0210_007bug.txt", "", ""},
  };
  return cases;
}

// Names a case in gtest messages.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class ConformanceTest : public ::testing::TestWithParam<Case> {};

void CheckGoldens(const Case& c, const Outputs& out) {
  if (!c.normal_golden.empty()) {
    EXPECT_EQ(ScrubNormal(out.normal), Golden(c.normal_golden)) << "raw NORMAL:\n" << out.normal;
  }
  if (!c.perf_golden.empty()) {
    EXPECT_EQ(ScrubPerf(out.perf), Golden(c.perf_golden)) << "raw PERF:\n" << out.perf;
  }
  if (!c.event_golden.empty()) {
    EXPECT_EQ(SummarizeEvents(out.event), Golden(c.event_golden)) << "raw EVENT:\n" << out.event;
  }
}

TEST_P(ConformanceTest, DirectoryTarget) {
  const Case& c = GetParam();
  CheckGoldens(c, RunInDirectory(c.args, c.exit_code));
}

TEST_P(ConformanceTest, SharedFileTarget) {
  const Case& c = GetParam();
  CheckGoldens(c, RunInOneFile(c.args, c.exit_code));
}

INSTANTIATE_TEST_SUITE_P(Verbs, ConformanceTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

// 006data passes the_repository without def_repo: "repo":0 / r0 (git prints a repository whose id is still 0), which the
// t0212 summary does not show.
TEST(ConformanceRawTest, DataWithRepoZero) {
  const Outputs out =
      RunInDirectory({"006data", "test_category", "k1", "v1", "test_category", "k2", "v2"}, 0);
  EXPECT_TRUE(absl::StrContains(out.event, R"(,"repo":0,"t_abs":)")) << out.event;
  EXPECT_TRUE(absl::StrContains(
      out.event, R"("nesting":1,"category":"test_category","key":"k1","value":"v1"})"))
      << out.event;
  EXPECT_TRUE(absl::StrContains(out.perf, "| data         | r0  | ")) << out.perf;
  EXPECT_TRUE(absl::StrContains(out.perf, "| test_categor | k1:v1\n")) << out.perf;
  // NORMAL ignores data (scrubbed as git's t0210 does: no cmd_ancestry line).
  EXPECT_EQ(Lines(ScrubNormal(out.normal)).size(), 5u) << out.normal;
}

// git's have_timer_event / have_counter_event greps over the scrubbed PERF output.
void ExpectGreps(const std::vector<std::string>& args, const std::string& golden) {
  const Outputs out = RunInDirectory(args, 0);
  const std::string scrubbed = ScrubPerf(out.perf);
  for (const std::string& pattern : Lines(Golden(golden))) {
    EXPECT_TRUE(absl::StrContains(scrubbed, pattern)) << "no line has '" << pattern << "' in\n"
                                                      << scrubbed;
  }
}

TEST(ConformanceGrepTest, Timer100) { ExpectGreps({"100timer", "5", "10"}, "t0211_100timer.grep"); }

TEST(ConformanceGrepTest, Timer101) {
  ExpectGreps({"101timer", "5", "10", "3"}, "t0211_101timer.grep");
}

TEST(ConformanceGrepTest, Counter200) {
  ExpectGreps({"200counter", "1", "2", "3", "4", "5"}, "t0211_200counter.grep");
}

TEST(ConformanceGrepTest, Counter201) {
  ExpectGreps({"201counter", "7", "13", "3"}, "t0211_201counter.grep");
}

}  // namespace
}  // namespace tracewire::targets
