// The `tracewire` command under faults and at scale: salvage of a shared file where one
// writer stopped inside a generation, outputs that are inputs, import and dump of large
// inputs in bounded memory (peak RSS of the child, from getrusage), and a directory of
// more traces than the descriptor limit.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"
#include "tests/reader/trace_builder.h"

namespace tracewire::cli_test {
namespace {

using ::testing::HasSubstr;

std::string Testtool() { return Runfile("tests/testtool/testtool"); }

// Runs testtool's 006data verb with tracing to `target`; `value` marks its data event.
void TracedRun(const std::string& target, const std::string& value) {
  RunOptions options;
  options.env = {{"TRACEWIRE", target}};
  const CommandResult r =
      RunCommand({Testtool(), "trace2", "006data", "test", "marker", value}, options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

// ---- Salvage ----

// A shared file target (git's append mode): process A's write stopped inside its
// generation (a full disk), then processes B, C and D appended complete traces. Salvage
// recovers all three, whatever byte A's write stopped at.
TEST(ReliabilityTest, SalvageRecoversEveryProcessAfterAWriterCutShort) {
  const std::string dir = NewTempDir("shared");
  TracedRun(dir + "/a.twr", "value-A");
  const std::string a = ReadFile(dir + "/a.twr");
  ASSERT_GT(a.size(), 100u);
  std::string later;
  for (const char* value : {"value-B", "value-C", "value-D"}) {
    TracedRun(dir + "/later.twr", value);  // appended, as to a shared file
  }
  later = ReadFile(dir + "/later.twr");
  for (size_t cut : {size_t{20}, a.size() / 3, a.size() / 2, a.size() - 2}) {
    SCOPED_TRACE(absl::StrCat("A's write stopped at byte ", cut, " of ", a.size()));
    const std::string shared = dir + "/shared.twr";
    ASSERT_TRUE(WriteFile(shared, a.substr(0, cut) + later));
    const CommandResult strict = RunCommand({Tracewire(), "validate", shared});
    EXPECT_EQ(strict.exit_code, 1);
    const CommandResult salvage =
        RunCommand({Tracewire(), "decode", "--salvage", "--format=event", shared});
    EXPECT_EQ(salvage.exit_code, 1);  // something was lost, and said so
    EXPECT_THAT(salvage.err, HasSubstr("lost "));
    EXPECT_THAT(salvage.err, HasSubstr("1 generation(s)"));
    for (const char* value : {"value-B", "value-C", "value-D"}) {
      EXPECT_THAT(salvage.out, HasSubstr(absl::StrCat("\"value\":\"", value, "\"")));
    }
    EXPECT_THAT(salvage.out, ::testing::Not(HasSubstr("value-A")));
  }
}

// ---- Outputs that are inputs ----

struct Refusal {
  std::vector<std::string> argv;
  std::string protected_file;
};

TEST(ReliabilityTest, EveryCommandRefusesAnOutputThatIsOneOfItsInputs) {
  const std::string dir = NewTempDir("same");
  TracedRun(dir + "/t.twr", "v");
  const std::string trace = dir + "/t.twr";
  const std::string bytes = ReadFile(trace);
  ASSERT_FALSE(bytes.empty());
  ASSERT_EQ(link(trace.c_str(), (dir + "/hardlink.twr").c_str()), 0);
  ASSERT_EQ(symlink(trace.c_str(), (dir + "/symlink.twr").c_str()), 0);
  const std::string events = dir + "/events.json";
  const std::string stream = RunCommand({Tracewire(), "decode", "--format=event", trace}).out;
  ASSERT_TRUE(WriteFile(events, stream));
  // A trace directory whose listing holds the output.
  const std::string tree = NewTempDir("tree");
  ASSERT_TRUE(WriteFile(tree + "/one.twr", bytes));

  const std::string t = Tracewire();
  const std::vector<Refusal> refusals = {
      {{t, "decode", trace, "-o", trace}, trace},
      {{t, "decode", "--format=chrome", trace, "-o", dir + "/hardlink.twr"}, trace},
      {{t, "decode", trace, "-o", dir + "/symlink.twr"}, trace},
      {{t, "decode", dir + "/../" + dir.substr(dir.rfind('/') + 1) + "/t.twr", "-o", trace}, trace},
      {{t, "decode", tree, "-o", tree + "/one.twr"}, tree + "/one.twr"},
      {{t, "import", "--from=trace2-event", events, "-o", events}, events},
      {{"/bin/sh", "-c", absl::StrCat(t, " decode ", trace, " >>", trace)}, trace},
      {{"/bin/sh", "-c", absl::StrCat(t, " dump ", trace, " >>", trace)}, trace},
      {{"/bin/sh", "-c", absl::StrCat(t, " stats ", trace, " >>", trace)}, trace},
      {{"/bin/sh", "-c", absl::StrCat(t, " validate ", trace, " >>", trace)}, trace},
      {{"/bin/sh", "-c", absl::StrCat(t, " decode - <", trace, " >>", trace)}, trace},
      {{"/bin/sh", "-c",
        absl::StrCat(t, " import --from=trace2-event - -o ", events, " <", events)},
       events},
  };
  for (const Refusal& refusal : refusals) {
    SCOPED_TRACE(refusal.argv.back());
    const std::string before = ReadFile(refusal.protected_file);
    const CommandResult r = RunCommand(refusal.argv);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr("the output is the input"));
    EXPECT_EQ(ReadFile(refusal.protected_file), before);
  }
  // Another output is fine.
  const CommandResult ok = RunCommand({t, "decode", trace, "-o", dir + "/out.txt"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_FALSE(ReadFile(dir + "/out.txt").empty());
}

// ---- Bounded memory ----

// Writes a git EVENT stream of `processes` processes, each with `regions` regions holding
// a data event (about 700 bytes per region), to `path` a line at a time; returns its size.
// (The test never holds a large input in memory: a child forked later starts with the
// parent's resident pages, and its peak RSS would count them.)
size_t WriteEventStream(const std::string& path, int processes, int regions) {
  std::ofstream file(path, std::ios::binary);
  size_t size = 0;
  auto time = [](int64_t us) {
    const int64_t s = us / 1000000;
    return absl::StrFormat("2023-11-15T%02d:%02d:%02d.%06dZ", (s / 3600) % 24, (s / 60) % 60,
                           s % 60, us % 1000000);
  };
  for (int p = 1; p <= processes; ++p) {
    const int64_t base = int64_t{p} * 1000000000;
    auto emit = [&](const char* event, int64_t us, const std::string& rest) {
      const std::string line = absl::StrCat(
          "{\"event\":\"", event, "\",\"sid\":\"20231115T000000.000000Z-H0a7c9cdf-P",
          absl::StrFormat("%08x", p), "\",\"thread\":\"main\",\"time\":\"", time(base + us),
          "\",", rest, "}\n");
      file << line;
      size += line.size();
    };
    emit("version", 0, "\"file\":\"common-main.c\",\"line\":39,\"evt\":\"3\",\"exe\":\"2.39.5\"");
    emit("start", 100,
         "\"file\":\"common-main.c\",\"line\":40,\"t_abs\":0.000100,\"argv\":[\"git\",\"status\"]");
    for (int r = 0; r < regions; ++r) {
      const int64_t at = 200 + int64_t{r} * 1000;
      emit("region_enter", at,
           "\"file\":\"read-cache.c\",\"line\":2301,\"nesting\":1,\"category\":\"index\","
           "\"label\":\"do_read_index\",\"msg\":\".git/index\"");
      emit("data", at + 100,
           absl::StrFormat("\"file\":\"read-cache.c\",\"line\":2320,\"t_abs\":%.6f,"
                           "\"t_rel\":0.000100,\"nesting\":2,\"category\":\"index\","
                           "\"key\":\"read/cache_nr\",\"value\":\"%d\"",
                           (at + 100) / 1e6, r));
      emit("region_leave", at + 500,
           "\"file\":\"read-cache.c\",\"line\":2325,\"t_rel\":0.000500,\"nesting\":1,"
           "\"category\":\"index\",\"label\":\"do_read_index\",\"msg\":\".git/index\"");
    }
    const int64_t end = 200 + int64_t{regions} * 1000;
    emit("exit", end,
         absl::StrFormat("\"file\":\"git.c\",\"line\":721,\"t_abs\":%.6f,\"code\":0", end / 1e6));
    emit("atexit", end + 10,
         absl::StrFormat("\"file\":\"git.c\",\"line\":721,\"t_abs\":%.6f,\"code\":0",
                         (end + 10) / 1e6));
  }
  file.close();
  EXPECT_TRUE(file.good()) << path;
  return size;
}

// Importing reads the stream a window at a time: the command's peak RSS stays below half
// of the input's size (the whole-input importer needed several times the input).
TEST(ReliabilityTest, ImportStreamsInBoundedMemory) {
  const std::string dir = NewTempDir("import_rss");
  const size_t input_size = WriteEventStream(dir + "/big.json", 2, 40000);
  ASSERT_GT(input_size, size_t{48} << 20);
  RunOptions options;
  options.timeout_seconds = 600;
  const CommandResult r = RunCommand(
      {Tracewire(), "import", "--from=trace2-event", dir + "/big.json", "-o", dir + "/big.twr"},
      options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(r.max_rss_kib * 1024, static_cast<long>(input_size / 2))
      << "peak RSS " << r.max_rss_kib << " KiB for " << input_size << " bytes of input";
  const CommandResult valid = RunCommand({Tracewire(), "validate", dir + "/big.twr"}, options);
  EXPECT_EQ(valid.exit_code, 0) << valid.err;
  EXPECT_THAT(valid.out, HasSubstr("valid: 240008 events"));
}

// A 256 MiB file of zero bytes (no newline: sparse, as a preallocated file is) is refused
// at the line length limit, without being read whole; the output is removed.
TEST(ReliabilityTest, ImportRefusesAnEndlessLineEarly) {
  const std::string dir = NewTempDir("import_sparse");
  const std::string input = dir + "/sparse.json";
  const int fd = open(input.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, off_t{256} << 20), 0);
  close(fd);
  const CommandResult r =
      RunCommand({Tracewire(), "import", "--from=trace2-event", input, "-o", dir + "/out.twr"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("line 1: longer than"));
  EXPECT_LT(r.max_rss_kib, 128 * 1024);
  EXPECT_NE(access((dir + "/out.twr").c_str(), F_OK), 0);
}

// Dump reads a frame at a time: peak RSS below half of the trace's size.
TEST(ReliabilityTest, DumpStreamsInBoundedMemory) {
  const std::string dir = NewTempDir("dump_rss");
  TracedRun(dir + "/one.twr", "v");
  const std::string one = ReadFile(dir + "/one.twr");  // header + one generation
  ASSERT_FALSE(one.empty());
  size_t trace_size = 0;
  {
    std::ofstream file(dir + "/big.twr", std::ios::binary);
    for (; trace_size < (size_t{32} << 20); trace_size += one.size()) file << one;
  }
  RunOptions options;
  options.timeout_seconds = 600;
  const CommandResult r =
      Shell(absl::StrCat(Tracewire(), " dump ", dir, "/big.twr >/dev/null"), options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(r.max_rss_kib * 1024, static_cast<long>(trace_size / 2))
      << "peak RSS " << r.max_rss_kib << " KiB for a trace of " << trace_size << " bytes";
}

// ---- Many files ----

// 1,500 per-process trace files, more than `ulimit -n 1024` allows open at once.
TEST(ReliabilityTest, DirectoryOfMoreTracesThanTheDescriptorLimit) {
  const std::string dir = NewTempDir("many");
  constexpr int kFiles = 1500;
  for (int i = 0; i < kFiles; ++i) {
    const std::string sid = absl::StrFormat("20260101T000000.%06dZ-H0a7c9cdf-P%08x", i, 1000 + i);
    const uint64_t t = testing::kBaseTicks + 1000 * static_cast<uint64_t>(i);
    testing::GenBuilder g(1, sid, 1000 + i, t, t);
    g.Ev(0, format::EventType::kVersion, t + 1, g.Site("common-main.c", 50), {g.S("2.39.5")});
    g.Ev(0, format::EventType::kStart, t + 2, g.Site("common-main.c", 51),
         {g.L({"prog", std::to_string(i)})});
    g.Ev(0, format::EventType::kExit, t + 3, g.Site("git.c", 9), {0});
    g.Ev(0, format::EventType::kAtexit, t + 4, g.Site("git.c", 10), {0});
    ASSERT_TRUE(WriteFile(absl::StrCat(dir, "/", sid), testing::Trace({g.Finish()})));
  }
  const CommandResult valid =
      Shell(absl::StrCat("ulimit -n 1024 && exec ", Tracewire(), " validate ", dir));
  EXPECT_EQ(valid.exit_code, 0) << valid.err;
  EXPECT_THAT(valid.out, HasSubstr("valid: 6000 events, 1500 generations, 1500 processes"));
  const CommandResult decoded = Shell(
      absl::StrCat("ulimit -n 64 && exec ", Tracewire(), " decode --format=normal ", dir));
  EXPECT_EQ(decoded.exit_code, 0) << decoded.err;
  EXPECT_EQ(Lines(decoded.out).size(), 6000u);
}

}  // namespace
}  // namespace tracewire::cli_test
