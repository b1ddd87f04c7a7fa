// End-to-end tests of the `tracewire` command: decode (demo and testtool traces, every
// format, --git_exact), validate, --salvage, stats, dump (files and directories), usage
// errors, --help and --version.
#include <sys/stat.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"

namespace tracewire::cli_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr const char* kFormats[] = {"event", "perf", "normal"};

std::string TestData(const std::string& name) { return Runfile("tests/cli/testdata/" + name); }

// The git EVENT stream of tests/cli/testdata imported into a trace (done once).
const std::string& ImportedTrace() {
  static const std::string* path = [] {
    auto* trace = new std::string(NewTempDir("imported") + "/git.twr");
    const CommandResult r = RunCommand({Tracewire(), "import", "--from=trace2-event",
                                        TestData("git_event_stream.json"), "-o", *trace});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return trace;
  }();
  return *path;
}

// Checks that `out` is well-formed output of `format` with at least `min_lines` lines.
void ExpectFormat(const std::string& format, const std::string& out, size_t min_lines) {
  const std::vector<std::string> lines = Lines(out);
  EXPECT_GE(lines.size(), min_lines) << format;
  for (const std::string& line : lines) {
    if (format == "event") {
      const nlohmann::json object = nlohmann::json::parse(line, nullptr, false);
      EXPECT_TRUE(object.is_object()) << line;
    } else if (format == "perf") {
      EXPECT_TRUE(
          std::regex_search(line, std::regex(R"(^\d\d:\d\d:\d\d\.\d{6} .{28} \| d\d+ \| )")))
          << line;
    } else if (format == "normal") {
      EXPECT_TRUE(std::regex_search(line, std::regex(R"(^\d\d:\d\d:\d\d\.\d{6} )"))) << line;
    }
  }
}

// ---- Decode ----

TEST(DecodeTest, DemoTraceInEveryFormat) {
  const std::string dir = NewTempDir("demo");
  const std::string traces = dir + "/traces";
  mkdir(traces.c_str(), 0755);
  const CommandResult demo = RunCommand({Runfile("examples/demo/demo")}, {.env = {{"TRACEWIRE", traces}}});
  ASSERT_EQ(demo.exit_code, 1) << demo.err;  // the demo fails on purpose
  for (const char* format : kFormats) {
    SCOPED_TRACE(format);
    // The directory: both processes, merged by wall time.
    const CommandResult r =
        RunCommand({Tracewire(), "decode", absl::StrCat("--format=", format), traces});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    ExpectFormat(format, r.out, 20);
    if (std::string(format) == "event") {
      EXPECT_THAT(r.out, HasSubstr("\"event\":\"child_start\""));
      EXPECT_THAT(r.out, HasSubstr("\"event\":\"th_counter\""));
      EXPECT_THAT(r.out, HasSubstr("\"thread\":\"th01:preload_index\""));
      EXPECT_THAT(r.out, HasSubstr("\"event\":\"error\""));
    } else if (std::string(format) == "perf") {
      EXPECT_THAT(r.out, HasSubstr("| d1 | main "));  // the child
      EXPECT_THAT(r.out, HasSubstr("..label:read_recursive"));
    } else {
      EXPECT_THAT(r.out, HasSubstr("error pathspec 'nonexistent.txt' did not match any file(s)"));
      EXPECT_THAT(r.out, HasSubstr("exit elapsed:"));
    }
  }
}

// The demo's atexit and timer events are written by the runtime with no call site: git's
// own source positions appear only with --git_exact.
TEST(DecodeTest, GitsOwnSourcePositionsOnlyWithGitExact) {
  const std::string traces = NewTempDir("demo_sites") + "/traces";
  mkdir(traces.c_str(), 0755);
  ASSERT_EQ(RunCommand({Runfile("examples/demo/demo")}, {.env = {{"TRACEWIRE", traces}}}).exit_code, 1);
  const struct {
    const char* format;
    const char* git_site;
  } cases[] = {{"normal", "trace2/tr2_tgt_normal.c:128 "},
               {"perf", "trace2/tr2_tgt_perf.c:219 "},
               {"event", R"("file":"trace2/tr2_tgt_event.c","line":207)"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.format);
    const std::string format = absl::StrCat("--format=", c.format);
    const CommandResult plain = RunCommand({Tracewire(), "decode", format, traces});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_THAT(plain.out, HasSubstr("atexit"));
    EXPECT_THAT(plain.out, Not(HasSubstr("tr2_tgt_")));
    const CommandResult exact = RunCommand({Tracewire(), "decode", format, "--git_exact", traces});
    ASSERT_EQ(exact.exit_code, 0) << exact.err;
    EXPECT_THAT(exact.out, HasSubstr(c.git_site));
  }
}

TEST(DecodeTest, TesttoolTracesInEveryFormat) {
  struct Case {
    std::vector<std::string> verb;
    int exit_code;
    std::string normal_brief;  // a line the NORMAL brief output must contain
  };
  const std::vector<Case> cases = {
      {{"001return", "0"}, 0, "exit elapsed:"},
      {{"003error", "hello world", "it's"}, 0, "error it's"},
      {{"004child", Runfile("tests/testtool/testtool"), "trace2", "001return", "3"},
       3,
       "child_exit[0] pid:"},
      {{"006data", "cat", "key", "value"}, 0, "start "},
      {{"007bug"}, 99, "error the bug message"},
      {{"100timer", "3", "1"}, 0, "timer test/test1 intervals:3"},
      {{"101timer", "2", "1", "2"}, 0, "th_timer test/test2 intervals:2"},
      {{"200counter", "5", "10"}, 0, "counter test/test1 value:15"},
      {{"201counter", "1", "2", "2"}, 0, "th_counter test/test2 value:3"},
  };
  const std::string dir = NewTempDir("testtool");
  int index = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.verb[0]);
    const std::string trace = absl::StrCat(dir, "/", index++, ".twr");
    std::vector<std::string> argv = {Runfile("tests/testtool/testtool"), "trace2"};
    argv.insert(argv.end(), c.verb.begin(), c.verb.end());
    // Small generations, compressed: the decoder must join them.
    const CommandResult tool = RunCommand(argv, {.env = {{"TRACEWIRE", trace},
                                                         {"TRACEWIRE_GENERATION_MS", "1"},
                                                         {"TRACEWIRE_COMPRESS", "1"}}});
    ASSERT_EQ(tool.exit_code, c.exit_code) << tool.err;
    for (const char* format : kFormats) {
      const CommandResult r =
          RunCommand({Tracewire(), "decode", absl::StrCat("--format=", format), trace});
      ASSERT_EQ(r.exit_code, 0) << format << ": " << r.err;
      ExpectFormat(format, r.out, 4);
    }
    const CommandResult brief =
        RunCommand({Tracewire(), "decode", "--format=normal", "--brief", trace});
    ASSERT_EQ(brief.exit_code, 0) << brief.err;
    EXPECT_THAT(brief.out, HasSubstr(c.normal_brief));
    EXPECT_THAT(brief.out, StartsWith("version "));
  }
}

TEST(DecodeTest, StdinAndOutputFile) {
  const std::string out = NewTempDir("decode") + "/out.txt";
  const CommandResult r = RunCommand({Tracewire(), "decode", "--format=perf", "-", "-o", out},
                                     {.stdin_path = ImportedTrace()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  ExpectFormat("perf", ReadFile(out), 79);
}

TEST(DecodeTest, NestingAndBriefFlags) {
  const CommandResult all = RunCommand({Tracewire(), "decode", "--nesting=100", ImportedTrace()});
  const CommandResult two = RunCommand({Tracewire(), "decode", ImportedTrace()});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(Lines(all.out).size(), 79u);
  // git's default nesting limit 2 drops the depth-3 region pair and the data at nesting 4.
  EXPECT_EQ(Lines(two.out).size(), 76u);
  const CommandResult brief = RunCommand({Tracewire(), "decode", "--brief", ImportedTrace()});
  ASSERT_EQ(brief.exit_code, 0);
  EXPECT_THAT(brief.out, Not(HasSubstr("\"file\":")));
  const CommandResult evt3 = RunCommand({Tracewire(), "decode", "--evt=3", ImportedTrace()});
  EXPECT_THAT(evt3.out, HasSubstr("\"evt\":\"3\""));
}

// ---- Validate and salvage ----

// A copy of the imported trace, truncated or with one byte changed.
std::string Damaged(const std::string& name, size_t keep, int flip_at = -1) {
  std::string bytes = ReadFile(ImportedTrace());
  if (flip_at >= 0) bytes[flip_at] ^= 0x5a;
  bytes.resize(std::min(keep, bytes.size()));
  const std::string path = NewTempDir("damaged") + "/" + name;
  WriteFile(path, bytes);
  return path;
}

TEST(ValidateTest, GoodBadTruncatedMissing) {
  const CommandResult good = RunCommand({Tracewire(), "validate", ImportedTrace()});
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_THAT(good.out, HasSubstr(": valid: 79 events, "));
  EXPECT_THAT(good.out, HasSubstr(" 4 processes"));

  const size_t size = ReadFile(ImportedTrace()).size();
  const CommandResult truncated =
      RunCommand({Tracewire(), "validate", Damaged("truncated.twr", size / 2)});
  EXPECT_EQ(truncated.exit_code, 1);
  EXPECT_THAT(truncated.err, HasSubstr("byte offset"));
  EXPECT_EQ(truncated.out, "");

  // Every bad byte in the first generation's frames is caught (magic, varints, tables...).
  const CommandResult header = RunCommand({Tracewire(), "validate", Damaged("magic.twr", size, 1)});
  EXPECT_EQ(header.exit_code, 1);
  // The first frame's type byte (clock_sync) becomes an unknown type.
  const CommandResult bad = RunCommand({Tracewire(), "validate", Damaged("bad.twr", size, 16)});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("byte offset"));

  const CommandResult missing = RunCommand({Tracewire(), "validate", "/nonexistent/trace.twr"});
  EXPECT_EQ(missing.exit_code, 2);
}

TEST(SalvageTest, TruncatedFileDecodesCompleteGenerationsAndReportsLoss) {
  const std::string full_out =
      RunCommand({Tracewire(), "decode", "--nesting=100", ImportedTrace()}).out;
  const size_t size = ReadFile(ImportedTrace()).size();
  const std::string truncated = Damaged("salvage.twr", size * 2 / 3);

  const CommandResult strict = RunCommand({Tracewire(), "decode", "--nesting=100", truncated});
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_THAT(strict.err, HasSubstr("byte offset"));

  const CommandResult salvage =
      RunCommand({Tracewire(), "decode", "--nesting=100", "--salvage", truncated});
  EXPECT_EQ(salvage.exit_code, 1);
  EXPECT_THAT(salvage.err, HasSubstr("lost "));
  EXPECT_THAT(salvage.err, HasSubstr("generation(s)"));
  // The complete generations: a non-empty proper prefix of the full output, the same as
  // what the strict decode delivered before its error.
  EXPECT_FALSE(salvage.out.empty());
  EXPECT_LT(salvage.out.size(), full_out.size());
  EXPECT_TRUE(absl::StartsWith(full_out, salvage.out));
  EXPECT_EQ(salvage.out, strict.out);

  const CommandResult clean = RunCommand({Tracewire(), "decode", "--salvage", ImportedTrace()});
  EXPECT_EQ(clean.exit_code, 0);
  EXPECT_EQ(clean.err, "");
}

// ---- Stats and dump ----

// True if `out` has a line "  <name> <spaces> <count>".
bool HasCount(const std::string& out, const std::string& name, int count) {
  return std::regex_search(out, std::regex("\n  " + name + " +" + std::to_string(count) + "\n"));
}

TEST(StatsTest, CountsOfAKnownTrace) {
  const CommandResult r = RunCommand({Tracewire(), "stats", "--top=3", ImportedTrace()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("processes: 4\n"));
  EXPECT_THAT(r.out, HasSubstr("events: 79 ("));
  EXPECT_THAT(r.out, HasSubstr("bytes per event"));
  EXPECT_THAT(r.out, HasSubstr("chrome export: about 0.0 MB\ncompression: none"));
  EXPECT_TRUE(HasCount(r.out, "region_enter", 12)) << r.out;
  EXPECT_TRUE(HasCount(r.out, "region_leave", 12)) << r.out;
  EXPECT_TRUE(HasCount(r.out, "data", 6)) << r.out;
  EXPECT_TRUE(HasCount(r.out, "child_start", 4)) << r.out;
  EXPECT_TRUE(HasCount(r.out, "version", 4)) << r.out;
  EXPECT_TRUE(HasCount(r.out, "th_timer", 1)) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n  th01:preload_thread +6  2026)"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n  main +40  20261122T020000.100000Z)")))
      << r.out;
  // hook/pre-commit: 4530 µs, no nested region; status/worktrees: 100 µs total, 60 µs self.
  EXPECT_THAT(r.out, HasSubstr("top regions by total time:\n       total_s       self_s    "
                               "count  category/label\n      0.004530     0.004530        1  "
                               "hook/pre-commit\n"));
  EXPECT_THAT(r.out, HasSubstr("top regions by self time:"));
  const size_t self = r.out.find("top regions by self time:");
  const std::string section = r.out.substr(self, r.out.find("\n\n", self) - self);
  EXPECT_EQ(Lines(section).size(), 5u);  // title, header, 3 regions
  EXPECT_THAT(r.out, HasSubstr("\ntop stacks (events recorded with each; innermost frame "
                               "first):\n  (no stacks: record some with TRACEWIRE_STACKS)\n"));

  // Compressed: the same counts, and a compression ratio.
  const std::string compressed = NewTempDir("stats") + "/compressed.twr";
  ASSERT_EQ(RunCommand({Tracewire(), "import", "--from=trace2-event", "--compress",
                        TestData("git_event_stream.json"), "-o", compressed})
                .exit_code,
            0);
  const CommandResult z = RunCommand({Tracewire(), "stats", compressed});
  ASSERT_EQ(z.exit_code, 0) << z.err;
  EXPECT_THAT(z.out, HasSubstr("compression: ratio "));
  EXPECT_TRUE(HasCount(z.out, "region_enter", 12));
  const CommandResult decoded = RunCommand({Tracewire(), "decode", compressed});
  EXPECT_EQ(decoded.out, RunCommand({Tracewire(), "decode", ImportedTrace()}).out);
}

// Stacks recorded by the runtime (TRACEWIRE_STACKS) in static functions of testtool, which
// no dynamic symbol names: the reader names them from the executable's symbol table
// through the trace's module records, in decode --stacks, dump and stats.
TEST(StacksTest, SymbolizedInDecodeDumpAndStats) {
  const std::string dir = NewTempDir("stacks");
  const std::string trace = dir + "/stacks.twr";
  const CommandResult ran =
      RunCommand({Runfile("tests/testtool/testtool"), "trace2", "stacks", "3"},
                 {.env = {{"TRACEWIRE", trace}, {"TRACEWIRE_STACKS", "region_enter"}}});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;

  const CommandResult plain = RunCommand({Tracewire(), "decode", trace});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_THAT(plain.out, Not(HasSubstr("\"stack\":[")));  // only when asked
  const CommandResult event = RunCommand({Tracewire(), "decode", "--stacks", trace});
  ASSERT_EQ(event.exit_code, 0) << event.err;
  int stacked = 0;
  for (const std::string& line : Lines(event.out)) {
    if (!absl::StrContains(line, "\"label\":\"leaf\"")) continue;
    if (!absl::StartsWith(line, "{\"event\":\"region_enter\"")) {
      EXPECT_THAT(line, Not(HasSubstr("\"stack\":[")));  // only the enters have stacks
      continue;
    }
    ++stacked;
    EXPECT_TRUE(std::regex_search(
        line, std::regex(R"re("stack":\[\{"pc":"0x[0-9a-f]+","func":"\(anonymous namespace\)::StackLeaf\(int\)","module":"[^"]*/tests/testtool/testtool","offset":"0x[0-9a-f]+"\},\{"pc":"0x[0-9a-f]+","func":"\(anonymous namespace\)::StackMiddle\(int\)")re")))
        << line;
  }
  EXPECT_EQ(stacked, 3);

  const CommandResult dump = RunCommand({Tracewire(), "dump", trace});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_THAT(dump.out, HasSubstr(" module id=1 start="));
  EXPECT_THAT(dump.out, HasSubstr("(stacks of generation 1, symbolized)\n    stack 1:\n      #0  "
                                  "(anonymous namespace)::StackLeaf(int) ["));
  EXPECT_THAT(dump.out, HasSubstr("      #1  (anonymous namespace)::StackMiddle(int) ["));

  const CommandResult stats = RunCommand({Tracewire(), "stats", trace});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_TRUE(std::regex_search(
      stats.out, std::regex(R"re(\ntop stacks [^\n]*\n +3  #0  \(anonymous namespace\)::StackLeaf\(int\) \[)re")))
      << stats.out;
}

TEST(DumpTest, ListsFramesWithOffsets) {
  const CommandResult r = RunCommand({Tracewire(), "dump", ImportedTrace()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_GT(lines.size(), 100u);
  EXPECT_EQ(lines[0], "00000000 file_header version=4");
  EXPECT_THAT(lines[1], StartsWith("00000010 clock_sync gen=1 freq=1000000000 "));
  EXPECT_THAT(lines[2], StartsWith("00000033 process_info gen=1 sid_string="));
  EXPECT_THAT(r.out, HasSubstr("\n  0000005d version dt=1 site=1 exe_string=2\n"));
  EXPECT_THAT(r.out, HasSubstr(" region_enter dt="));
  EXPECT_THAT(r.out, HasSubstr(" end_of_generation gen=1\n"));
  const size_t size = ReadFile(ImportedTrace()).size();
  const CommandResult truncated = RunCommand({Tracewire(), "dump", Damaged("dump.twr", size - 1)});
  EXPECT_EQ(truncated.exit_code, 1);
}

TEST(DumpTest, DirectoryListsEachTraceFileUnderItsName) {
  const std::string dir = NewTempDir("dump_dir");
  const std::string bytes = ReadFile(ImportedTrace());
  for (const char* name : {"a.twr", "b.twr"}) WriteFile(dir + "/" + name, bytes);
  const CommandResult r = RunCommand({Tracewire(), "dump", dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CommandResult one = RunCommand({Tracewire(), "dump", ImportedTrace()});
  EXPECT_EQ(r.out, absl::StrCat("== ", dir, "/a.twr\n", one.out, "== ", dir, "/b.twr\n", one.out));

  const CommandResult empty = RunCommand({Tracewire(), "dump", NewTempDir("dump_empty")});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_EQ(empty.out, "");
  EXPECT_THAT(empty.err, HasSubstr("holds no trace file"));
}

// ---- Usage ----

TEST(UsageTest, ErrorsExitWithTwo) {
  const std::vector<std::vector<std::string>> cases = {
      {},
      {"bogus"},
      {"decode"},
      {"decode", "a", "b"},
      {"decode", "--bogus", "x"},
      {"decode", "--format=xml", "x"},
      {"decode", "--nesting=abc", "x"},
      {"decode", "--nesting=0", "x"},
      {"decode", "--evt=5", "x"},
      {"decode", "--evt=0", "x"},
      {"decode", "--format"},
      {"validate", "--format=perf", "x"},
      {"stats", "--top=-1", "x"},
      {"import", "in.json", "-o", "out"},
      {"import", "--from=json", "in.json", "-o", "out"},
      {"import", "--from=trace2-event", "in.json"},
      {"decode", "/nonexistent/trace"},
      {"import", "--from=trace2-event", "/nonexistent/in.json", "-o", "/tmp/x"},
      {"help", "bogus"},
  };
  for (const std::vector<std::string>& args : cases) {
    std::vector<std::string> argv = {Tracewire()};
    argv.insert(argv.end(), args.begin(), args.end());
    const CommandResult r = RunCommand(argv);
    EXPECT_EQ(r.exit_code, 2) << absl::StrJoin(args, " ") << "\n" << r.err;
    EXPECT_FALSE(r.err.empty()) << absl::StrJoin(args, " ");
    EXPECT_EQ(r.out, "") << absl::StrJoin(args, " ");
  }
  const CommandResult unknown = RunCommand({Tracewire(), "decode", "--bogus", "x"});
  EXPECT_THAT(unknown.err, HasSubstr("unknown flag '--bogus'"));
  EXPECT_THAT(unknown.err, HasSubstr("usage: tracewire decode"));
}

// A formatter flag given with a format it does nothing for is a usage error naming both,
// before anything is read or written.
TEST(UsageTest, FlagsThatDoNothingForTheFormatAreErrors) {
  const struct {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"decode", "--format=perf", "--nesting=3"},
       "tracewire decode: --nesting does not apply to --format=perf (only to event)\n"},
      {{"decode", "--format=normal", "--evt=3"},
       "tracewire decode: --evt does not apply to --format=normal (only to event)\n"},
      {{"decode", "--format=chrome", "--stacks"},
       "tracewire decode: --stacks does not apply to --format=chrome (only to event)\n"},
      {{"decode", "--format=otlp", "--brief"},
       "tracewire decode: --brief does not apply to --format=otlp (only to event, perf and "
       "normal)\n"},
      {{"decode", "--format=chrome", "--git-exact"},
       "tracewire decode: --git_exact does not apply to --format=chrome (only to event, perf "
       "and normal)\n"},
      {{"decode", "--format=perf", "--nobrief", "--stacks=false"},
       "tracewire decode: --stacks does not apply to --format=perf (only to event)\n"},
      // --otlp-endpoint selects the otlp format.
      {{"decode", "--otlp-endpoint=http://127.0.0.1:1", "--git_exact"},
       "tracewire decode: --git_exact does not apply to --format=otlp (only to event, perf "
       "and normal)\n"},
      // run's default format is perf.
      {{"run", "--nesting=3", "--", "/bin/sh", "-c", "exit 5"},
       "tracewire run: --nesting does not apply to --format=perf (only to event)\n"},
      {{"run", "--format=normal", "--nesting=3", "/bin/sh", "-c", "exit 5"},
       "tracewire run: --nesting does not apply to --format=normal (only to event)\n"},
      // A followed trace is decoded serially.
      {{"decode", "--follow", "--jobs=2"},
       "tracewire decode: --jobs does not apply to --follow (a followed trace is decoded "
       "serially)\n"},
  };
  const std::string out = NewTempDir("inapplicable") + "/out";
  for (const auto& c : cases) {
    std::vector<std::string> argv = {Tracewire()};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    if (c.args[0] == "decode") argv.insert(argv.end(), {ImportedTrace(), "-o", out});
    SCOPED_TRACE(absl::StrJoin(c.args, " "));
    const CommandResult r = RunCommand(argv);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_THAT(r.err, StartsWith(c.message + "usage: tracewire " + c.args[0] + " "));
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(ReadFile(out), "");
  }
  // Where they apply, they are taken (--brief and --git_exact by every git format).
  for (const char* format : kFormats) {
    const CommandResult r = RunCommand({Tracewire(), "decode", absl::StrCat("--format=", format),
                                        "--brief", "--git_exact", ImportedTrace()});
    EXPECT_EQ(r.exit_code, 0) << format << ": " << r.err;
  }
  const CommandResult run = RunCommand({Tracewire(), "run", "--format=event", "--nesting=3",
                                        "--", "/bin/sh", "-c", "exit 5"});
  EXPECT_EQ(run.exit_code, 5) << run.err;
}

TEST(UsageTest, HelpForEveryCommand) {
  for (const char* command : {"decode", "validate", "dump", "stats", "import", "help"}) {
    SCOPED_TRACE(command);
    const CommandResult flag = RunCommand({Tracewire(), command, "--help"});
    EXPECT_EQ(flag.exit_code, 0);
    EXPECT_THAT(flag.out, StartsWith(absl::StrCat("usage: tracewire ", command)));
    const CommandResult help = RunCommand({Tracewire(), "help", command});
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_EQ(help.out, flag.out);
  }
  const CommandResult decode = RunCommand({Tracewire(), "decode", "-h"});
  EXPECT_THAT(decode.out, HasSubstr("--salvage"));
  EXPECT_THAT(decode.out, HasSubstr("--nesting=N"));
  EXPECT_THAT(decode.out, HasSubstr("Exit codes"));
  const CommandResult global = RunCommand({Tracewire(), "--help"});
  EXPECT_EQ(global.exit_code, 0);
  for (const char* command : {"decode", "validate", "dump", "stats", "import"}) {
    EXPECT_THAT(global.out, HasSubstr(absl::StrCat("  ", command, " ")));
  }
  EXPECT_EQ(RunCommand({Tracewire(), "help"}).out, global.out);
}

TEST(VersionTest, VersionAndDashDashVersionPrintTheSameLine) {
  const CommandResult flag = RunCommand({Tracewire(), "--version"});
  ASSERT_EQ(flag.exit_code, 0) << flag.err;
  EXPECT_TRUE(std::regex_match(
      flag.out, std::regex(R"(tracewire version \d+\.\d+\.\d+ \(trace format version \d+\)\n)")))
      << flag.out;
  EXPECT_EQ(RunCommand({Tracewire(), "version"}).out, flag.out);
  EXPECT_EQ(RunCommand({Tracewire(), "version", "x"}).exit_code, 2);
  EXPECT_THAT(RunCommand({Tracewire(), "help"}).out, HasSubstr("  version "));
}

}  // namespace
}  // namespace tracewire::cli_test
