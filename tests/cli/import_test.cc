// `tracewire import --from=trace2-event`: a git EVENT stream imported and decoded back to
// EVENT reproduces every line (keys, order, values; times within 2 µs), and bad input is
// rejected with the line number.
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/event_compare.h"

namespace tracewire::cli_test {
namespace {

using ::testing::HasSubstr;

std::string TestData(const std::string& name) { return Runfile("tests/cli/testdata/" + name); }

// Imports `stream` (text) and returns the trace path; fails the test on errors.
std::string Import(const std::string& stream, const std::string& name) {
  const std::string dir = NewTempDir(name);
  WriteFile(dir + "/in.json", stream);
  const CommandResult r = RunCommand(
      {Tracewire(), "import", "--from=trace2-event", dir + "/in.json", "-o", dir + "/out.twr"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  return dir + "/out.twr";
}

// Imports `stream` and returns the error of the import (expecting exit code 1).
std::string ImportError(const std::string& stream) {
  const std::string dir = NewTempDir("bad");
  WriteFile(dir + "/in.json", stream);
  const CommandResult r = RunCommand(
      {Tracewire(), "import", "--from=trace2-event", dir + "/in.json", "-o", dir + "/out.twr"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  return r.err;
}

std::string Decode(const std::string& trace, const std::vector<std::string>& flags) {
  std::vector<std::string> argv = {Tracewire(), "decode"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back(trace);
  const CommandResult r = RunCommand(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

void ExpectSameStream(const std::string& expected, const std::string& actual) {
  const std::vector<std::string> problems = CompareEventStreams(expected, actual, 1.0);
  EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n");
}

TEST(ImportTest, GitEventStreamRoundTrip) {
  // Four processes (A, its children B and D, B's child C) with interleaved lines, two
  // threads out of time order, regions to depth 3, every kind of git 2.39.5 event.
  const std::string stream = ReadFile(TestData("git_event_stream.json"));
  ASSERT_FALSE(stream.empty());
  const std::string trace = Import(stream, "roundtrip");
  const CommandResult valid = RunCommand({Tracewire(), "validate", trace});
  EXPECT_EQ(valid.exit_code, 0) << valid.err;
  EXPECT_THAT(valid.out, HasSubstr("79 events"));
  ExpectSameStream(stream, Decode(trace, {"--format=event", "--nesting=100", "--evt=3"}));
}

// The complete example of each Trace2 API document (git 2.23: evt 1; later: evt 3, and
// the evt 4 edition), imported and decoded with that document's --evt, byte for byte.
// (The 2.23 document's version line reads "sid":"sid":"..."; the testdata has the
// duplicated key removed.)
TEST(ImportTest, EveryEvtVersionReproducesItsDocumentExample) {
  for (const auto& [file, evt] : std::vector<std::pair<std::string, std::string>>{
           {"trace2_doc_evt1.json", "1"}, {"trace2_doc_evt3.json", "3"},
           {"trace2_doc_evt4.json", "4"}}) {
    SCOPED_TRACE(file);
    const std::string stream = ReadFile(TestData(file));
    ASSERT_THAT(stream, HasSubstr(absl::StrCat("\"evt\":\"", evt, "\"")));
    const std::string trace = Import(stream, "doc" + evt);
    EXPECT_EQ(Decode(trace, {"--evt=" + evt}), stream);
  }
  // evt 2 writes the same lines with "evt":"2".
  const std::string evt1 = ReadFile(TestData("trace2_doc_evt1.json"));
  EXPECT_EQ(Decode(Import(evt1, "doc2"), {"--evt=2"}),
            absl::StrReplaceAll(evt1, {{"\"evt\":\"1\"", "\"evt\":\"2\""}}));
}

TEST(ImportTest, CompressedRoundTrip) {
  const std::string stream = ReadFile(TestData("git_event_stream.json"));
  const std::string dir = NewTempDir("compressed");
  const CommandResult r = RunCommand({Tracewire(), "import", "--from=trace2-event", "--compress",
                                      TestData("git_event_stream.json"), "-o", dir + "/z.twr"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectSameStream(stream, Decode(dir + "/z.twr", {"--nesting=100", "--evt=3"}));
}

TEST(ImportTest, StdinInput) {
  const std::string dir = NewTempDir("stdin");
  const CommandResult r =
      RunCommand({Tracewire(), "import", "--from", "trace2-event", "-", "-o", dir + "/s.twr"},
                 {.stdin_path = TestData("git_event_stream.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectSameStream(ReadFile(TestData("git_event_stream.json")),
                   Decode(dir + "/s.twr", {"--nesting=100", "--evt=3"}));
}

// The stream as git writes it in brief mode: no "time" (but on version and atexit), no
// file and line.
std::string Brief(const std::string& stream) {
  std::string out;
  for (const std::string& line : Lines(stream)) {
    std::string brief = std::regex_replace(line, std::regex(R"(,"file":"[^"]*","line":\d+)"), "");
    if (brief.find("\"event\":\"version\"") == std::string::npos &&
        brief.find("\"event\":\"atexit\"") == std::string::npos) {
      brief = std::regex_replace(brief, std::regex(R"(,"time":"[^"]*")"), "");
    }
    absl::StrAppend(&out, brief, "\n");
  }
  return out;
}

TEST(ImportTest, BriefStreamRoundTrip) {
  const std::string stream = Brief(ReadFile(TestData("git_event_stream.json")));
  const std::string trace = Import(stream, "brief");
  ExpectSameStream(stream, Decode(trace, {"--brief", "--nesting=100", "--evt=3"}));
}

TEST(ImportTest, Evt4PrintfAndNewerKeys) {
  const std::string sid = "20261122T020000.100000Z-H0a7c9cdf-P00000010";
  const std::string stream = absl::StrCat(
      R"({"event":"version","sid":")", sid,
      R"(","thread":"main","time":"2026-11-22T02:00:00.100010Z","file":"common-main.c","line":50,"evt":"4","exe":"2.55.GIT"})"
      "\n",
      R"({"event":"start","sid":")", sid,
      R"(","thread":"main","time":"2026-11-22T02:00:00.100030Z","file":"common-main.c","line":51,"t_abs":0.000028,"argv":["git","version"]})"
      "\n",
      R"({"event":"printf","sid":")", sid,
      R"(","thread":"main","time":"2026-11-22T02:00:00.100050Z","file":"t/helper/test-trace2.c","line":543,"t_abs":0.000046,"msg":"two\nlines\n"})"
      "\n",
      R"({"event":"def_param","sid":")", sid,
      R"(","thread":"main","time":"2026-11-22T02:00:00.100060Z","file":"config.c","line":9,"scope":"command","param":"foo.true"})"
      "\n",
      R"({"event":"cmd_mode","sid":")", sid,
      R"(","thread":"main","time":"2026-11-22T02:00:00.100061Z","file":"builtin/checkout.c","line":1,"name":"path"})"
      "\n",
      R"({"event":"exec","sid":")", sid,
      R"(","thread":"main","time":"2026-11-22T02:00:00.100070Z","file":"exec-cmd.c","line":3,"exec_id":0,"exe":"git","argv":["version"]})"
      "\n",
      R"({"event":"exec_result","sid":")", sid,
      R"(","thread":"main","time":"2026-11-22T02:00:00.100080Z","file":"exec-cmd.c","line":4,"exec_id":0,"code":2})"
      "\n",
      R"({"event":"child_start","sid":")", sid,
      R"(","thread":"main","time":"2026-11-22T02:00:00.100090Z","file":"run-command.c","line":5,"child_id":0,"child_class":"?","use_shell":false,"argv":["git"]})"
      "\n",
      R"({"event":"child_ready","sid":")", sid,
      R"(","thread":"main","time":"2026-11-22T02:00:00.100190Z","file":"run-command.c","line":6,"child_id":0,"pid":15709,"ready":"timeout","t_rel":0.000100})"
      "\n",
      R"({"event":"child_exit","sid":")", sid,
      R"(","thread":"main","time":"2026-11-22T02:00:00.100290Z","file":"run-command.c","line":7,"child_id":0,"pid":-1,"code":-1,"t_rel":0.000200})"
      "\n",
      R"({"event":"cmd_path","sid":")", sid,
      R"(","thread":"main","time":"2026-11-22T02:00:00.100291Z","file":"git.c","line":8,"path":"/usr/lib/git-core/git"})"
      "\n",
      R"({"event":"data","sid":")", sid,
      R"(","thread":"main","time":"2026-11-22T02:00:00.100300Z","file":"t.c","line":1,"repo":0,"t_abs":0.000296,"t_rel":0.000296,"nesting":1,"category":"c","key":"k","value":"\u0001\u001f\u007f/ü€"})"
      "\n",
      R"({"event":"too_many_files","sid":")", sid,
      R"(","thread":"main","time":"2026-11-22T02:00:00.100310Z","file":"common-main.c","line":50})"
      "\n",
      R"({"event":"atexit","sid":")", sid,
      R"(","thread":"main","time":"2026-11-22T02:00:00.100320Z","file":"trace2/tr2_tgt_event.c","line":207,"t_abs":0.000316,"code":0})"
      "\n");
  const std::string trace = Import(stream, "evt4");
  // The JSON writer escapes DEL as is (raw 0x7f), so compare against git's spelling.
  const std::string expected = absl::StrReplaceAll(stream, {{"\\u007f", "\x7f"}});
  ExpectSameStream(expected, Decode(trace, {"--nesting=100", "--evt=4"}));
}

TEST(ImportTest, RawBytesThatAreNotUtf8) {
  // git writes bytes >= 0x80 raw without checking UTF-8.
  const std::string sid = "20261122T020000.100000Z-H0a7c9cdf-P00000011";
  const std::string stream = absl::StrCat(
      R"({"event":"start","sid":")", sid,
      R"(","thread":"main","time":"2026-11-22T02:00:00.100030Z","file":"common-main.c","line":51,"t_abs":0.000028,"argv":["git","add","caf)",
      "\xe9\xff", R"(.txt"]})", "\n");
  const std::string trace = Import(stream, "raw");
  ExpectSameStream(stream, Decode(trace, {}));
}

TEST(ImportTest, IntegerDataValuesBecomeStrings) {
  // Other producers (GCM) write integers; git's EVENT target always writes strings.
  const std::string sid = "20261122T020000.100000Z-H0a7c9cdf-P00000012";
  const std::string line = absl::StrCat(
      R"({"event":"data","sid":")", sid,
      R"(","thread":"main","time":"2026-11-22T02:00:00.100300Z","file":"t.c","line":1,"t_abs":0.000296,"t_rel":0.000296,"nesting":1,"category":"c","key":"k","value":-42})",
      "\n");
  const std::string out = Decode(Import(line, "int"), {});
  EXPECT_THAT(out, HasSubstr(R"("key":"k","value":"-42"})"));
}

TEST(ImportTest, DefParamWithoutScopeIsAccepted) {
  // git before 2.38 writes no "scope".
  const std::string sid = "20261122T020000.100000Z-H0a7c9cdf-P00000013";
  const std::string line = absl::StrCat(
      R"({"event":"def_param","sid":")", sid,
      R"(","thread":"main","time":"2026-11-22T02:00:00.100300Z","file":"config.c","line":1,"param":"core.bare","value":"false"})",
      "\n");
  const std::string out = Decode(Import(line, "scope"), {});
  EXPECT_THAT(out, HasSubstr(R"("param":"core.bare","value":"false"})"));
}

TEST(ImportTest, ErrorsNameTheLine) {
  const std::vector<std::string> good = Lines(ReadFile(TestData("git_event_stream.json")));
  ASSERT_GT(good.size(), 20u);
  auto with_line = [&](size_t index, const std::string& replacement) {
    std::vector<std::string> lines = good;
    lines[index] = replacement;
    return absl::StrCat(absl::StrJoin(lines, "\n"), "\n");
  };
  EXPECT_THAT(ImportError(with_line(2, "not json")), HasSubstr("line 3: not a JSON object"));
  EXPECT_THAT(ImportError(with_line(2, "[1,2]")), HasSubstr("line 3: not a JSON object"));
  EXPECT_THAT(ImportError(with_line(4, R"({"event":"bogus","sid":"s","thread":"main"})")),
              HasSubstr("line 5: unknown event \"bogus\""));
  std::string unknown_key = good[3];
  unknown_key.insert(unknown_key.size() - 1, ",\"extra\":1");
  EXPECT_THAT(ImportError(with_line(3, unknown_key)), HasSubstr("line 4: def_repo: unknown key"));
  std::string missing = std::regex_replace(good[1], std::regex(R"(,"argv":\[.*\])"), "");
  EXPECT_THAT(ImportError(with_line(1, missing)), HasSubstr("line 2: start: \"argv\" is missing"));

  // A child started twice: the reader's bookkeeping, reported with the line.
  size_t child = 0;
  while (good[child].find("\"event\":\"child_start\"") == std::string::npos) ++child;
  std::vector<std::string> twice = good;
  twice.insert(twice.begin() + child + 1, good[child]);
  EXPECT_THAT(ImportError(absl::StrCat(absl::StrJoin(twice, "\n"), "\n")),
              HasSubstr(absl::StrCat("line ", child + 2,
                                     ": child_start for child_id 0, which is already running")));

  // A region_enter left out (as a low GIT_TRACE2_EVENT_NESTING would): the next event's
  // nesting no longer matches the region stack.
  size_t enter = 0;
  while (good[enter].find("\"label\":\"read\"") == std::string::npos) ++enter;
  std::vector<std::string> lines = good;
  lines.erase(lines.begin() + enter);
  const std::string error = ImportError(absl::StrCat(absl::StrJoin(lines, "\n"), "\n"));
  EXPECT_THAT(error, HasSubstr(absl::StrCat("line ", enter + 1, ": region_leave has nesting 2")));
  EXPECT_THAT(error, HasSubstr("GIT_TRACE2_EVENT_NESTING"));
}

}  // namespace
}  // namespace tracewire::cli_test
