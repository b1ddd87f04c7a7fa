// A trace directory with files that cannot be read (empty, a truncated header, a foreign
// file, a file whose read fails, a file damaged after its first generations) among healthy
// ones: every command reads all the healthy files, names each skipped one on stderr and
// exits with 4 (docs/cli.md, exit codes).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"

namespace tracewire::cli_test {
namespace {

constexpr int kExitSkipped = 4;

// Traces two healthy processes into `dir` (one file each).
void RecordHealthy(const std::string& dir) {
  for (const char* code : {"0", "3"}) {
    const CommandResult run =
        RunCommand({Runfile("tests/testtool/testtool"), "trace2", "001return", code},
                   {.env = {{"TRACEWIRE", dir}}});
    ASSERT_EQ(run.exit_code, std::stoi(code)) << run.err;
  }
}

// The number of lines of `text` that contain `needle`.
int CountLines(const std::string& text, const std::string& needle) {
  int n = 0;
  for (const std::string& line : Lines(text)) n += absl::StrContains(line, needle) ? 1 : 0;
  return n;
}

class SkippedFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    healthy_ = NewTempDir("healthy");
    RecordHealthy(healthy_);
    // The same healthy files, plus the unreadable ones.
    mixed_ = NewTempDir("mixed");
    ASSERT_EQ(Shell("cp " + healthy_ + "/* " + mixed_ + "/").exit_code, 0);
    std::string header;
    for (const std::string& line : Lines(Shell("ls " + healthy_).out)) {
      header = ReadFile(healthy_ + "/" + line).substr(0, 16);
      break;
    }
    ASSERT_EQ(header.size(), 16u);
    ASSERT_TRUE(WriteFile(mixed_ + "/a-empty", ""));
    ASSERT_TRUE(WriteFile(mixed_ + "/b-truncated-header", header.substr(0, 9)));
    ASSERT_TRUE(WriteFile(mixed_ + "/c-foreign", "{\"event\":\"version\"}\nnot a trace\n"));
    // Opens as a regular file, but every read fails (EIO), whoever runs the test.
    ASSERT_EQ(symlink("/proc/self/mem", (mixed_ + "/d-unreadable").c_str()), 0);
    expected_skipped_ = 4;
  }

  std::string healthy_;
  std::string mixed_;
  int expected_skipped_ = 0;
};

TEST_F(SkippedFilesTest, DecodeWritesEveryHealthyFileAndNamesEachSkippedOne) {
  for (const char* format : {"normal", "perf", "event", "chrome", "otlp", "perfetto"}) {
    SCOPED_TRACE(format);
    const std::string flag = absl::StrCat("--format=", format);
    const CommandResult clean = RunCommand({Tracewire(), "decode", flag, "--jobs=1", healthy_});
    ASSERT_EQ(clean.exit_code, 0) << clean.err;
    const CommandResult mixed = RunCommand({Tracewire(), "decode", flag, "--jobs=1", mixed_});
    EXPECT_EQ(mixed.exit_code, kExitSkipped) << mixed.err;
    // The healthy processes' output is exactly what the clean directory gives.
    EXPECT_EQ(mixed.out, clean.out);
    EXPECT_EQ(CountLines(mixed.err, "tracewire decode: skipped a file: "), expected_skipped_)
        << mixed.err;
    for (const char* name : {"a-empty", "b-truncated-header", "c-foreign", "d-unreadable"}) {
      EXPECT_EQ(CountLines(mixed.err, name), 1) << name << "\n" << mixed.err;
    }
    EXPECT_TRUE(absl::StrContains(mixed.err, "4 of 6 files could not be read; the others were read"))
        << mixed.err;
  }
}

TEST_F(SkippedFilesTest, ParallelDecodeSkipsTheSameFiles) {
  const CommandResult serial = RunCommand({Tracewire(), "decode", "--jobs=1", mixed_});
  const CommandResult parallel = RunCommand({Tracewire(), "decode", "--jobs=2", mixed_});
  EXPECT_EQ(serial.exit_code, kExitSkipped) << serial.err;
  EXPECT_EQ(parallel.exit_code, kExitSkipped) << parallel.err;
  EXPECT_EQ(parallel.out, serial.out);
  EXPECT_EQ(parallel.err, serial.err);
}

TEST_F(SkippedFilesTest, ValidateCountsTheHealthyFilesAndSaysWhatWasSkipped) {
  const CommandResult clean = RunCommand({Tracewire(), "validate", healthy_});
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  const CommandResult mixed = RunCommand({Tracewire(), "validate", mixed_});
  EXPECT_EQ(mixed.exit_code, kExitSkipped) << mixed.err;
  EXPECT_EQ(CountLines(mixed.err, "tracewire validate: skipped a file: "), expected_skipped_)
      << mixed.err;
  // "DIR: valid: N events, G generations, 2 processes" for the clean directory; the same
  // counts for the mixed one.
  const size_t counts = clean.out.find("valid: ");
  ASSERT_NE(counts, std::string::npos) << clean.out;
  const std::string clean_counts = clean.out.substr(counts + 7);
  EXPECT_TRUE(absl::StrContains(mixed.out, "invalid: 4 of 6 files could not be read; the others hold " +
                                               clean_counts))
      << mixed.out << " vs " << clean.out;
}

TEST_F(SkippedFilesTest, StatsAndReportShowTheHealthyFiles) {
  const CommandResult stats = RunCommand({Tracewire(), "stats", mixed_});
  EXPECT_EQ(stats.exit_code, kExitSkipped) << stats.err;
  EXPECT_EQ(CountLines(stats.err, "tracewire stats: skipped a file: "), expected_skipped_)
      << stats.err;
  const CommandResult clean_stats = RunCommand({Tracewire(), "stats", healthy_});
  ASSERT_EQ(clean_stats.exit_code, 0) << clean_stats.err;
  // The same events by kind and by thread as the healthy directory alone.
  const size_t kinds = clean_stats.out.find("events by kind:");
  const size_t regions = clean_stats.out.find("top regions by total time:");
  ASSERT_NE(kinds, std::string::npos) << clean_stats.out;
  ASSERT_NE(regions, std::string::npos) << clean_stats.out;
  EXPECT_TRUE(absl::StrContains(stats.out, clean_stats.out.substr(kinds, regions - kinds)))
      << stats.out << "\nvs\n" << clean_stats.out;
  EXPECT_TRUE(absl::StrContains(stats.out, "processes: 2\n")) << stats.out;

  const std::string html = NewTempDir("report") + "/report.html";
  const CommandResult report = RunCommand({Tracewire(), "report", mixed_, "-o", html});
  EXPECT_EQ(report.exit_code, kExitSkipped) << report.err;
  EXPECT_EQ(CountLines(report.err, "tracewire report: skipped a file: "), expected_skipped_)
      << report.err;
  const std::string page = ReadFile(html);
  EXPECT_TRUE(absl::StrContains(page, "4 of 6 trace files could not be read")) << page.size();
  EXPECT_TRUE(absl::StrContains(page, "testtool")) << page.size();
}

TEST_F(SkippedFilesTest, DumpListsEveryHealthyFile) {
  const CommandResult clean = RunCommand({Tracewire(), "dump", healthy_});
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  const CommandResult mixed = RunCommand({Tracewire(), "dump", mixed_});
  EXPECT_EQ(mixed.exit_code, kExitSkipped) << mixed.err;
  // Every record line of the healthy files is there (the header lines name other paths).
  for (const std::string& line : Lines(clean.out)) {
    if (line.rfind("== ", 0) == 0) continue;
    EXPECT_TRUE(absl::StrContains(mixed.out, line)) << line;
  }
  // dump checks framing only: the empty file lists nothing, and is no error.
  EXPECT_TRUE(absl::StrContains(mixed.err, "3 of 6 files could not be read; the others were read"))
      << mixed.err;
  for (const char* name : {"b-truncated-header", "c-foreign", "d-unreadable"}) {
    EXPECT_EQ(CountLines(mixed.err, name), 1) << name << "\n" << mixed.err;
  }
}

TEST_F(SkippedFilesTest, AFileDamagedAfterItsFirstEventsKeepsThoseEvents) {
  // A long trace in small generations, its tail overwritten with garbage.
  const std::string dir = NewTempDir("damaged");
  const std::string trace = dir + "/z-damaged";
  // The time cuts are a background thread a loaded machine can starve for the whole run:
  // the program runs again until its trace has more than one generation (a bound on hangs
  // only), so that the damage leaves whole generations before it.
  CommandResult stats;
  for (int attempt = 0; attempt < 20; ++attempt) {
    std::remove(trace.c_str());
    const CommandResult run = RunCommand(
        {Runfile("tests/testtool/testtool"), "trace2", "101timer", "30", "1", "2"},
        {.env = {{"TRACEWIRE", trace}, {"TRACEWIRE_GENERATION_MS", "1"}}});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    stats = RunCommand({Tracewire(), "stats", trace});
    ASSERT_EQ(stats.exit_code, 0) << stats.err;
    if (!absl::StrContains(stats.out, "generations: 1 ")) break;
  }
  ASSERT_FALSE(absl::StrContains(stats.out, "generations: 1 ")) << stats.out;
  std::string bytes = ReadFile(trace);
  ASSERT_GT(bytes.size(), 200u);
  const size_t cut = bytes.size() - 40;
  for (size_t i = cut; i < bytes.size(); ++i) bytes[i] = static_cast<char>(0x89);
  ASSERT_TRUE(WriteFile(trace, bytes));
  RecordHealthy(dir);

  const CommandResult alone = RunCommand({Tracewire(), "decode", "--format=event", trace});
  ASSERT_EQ(alone.exit_code, 1) << alone.err;  // a single damaged file: invalid
  const int events_before_damage = static_cast<int>(Lines(alone.out).size());
  ASSERT_GT(events_before_damage, 0);

  const CommandResult mixed = RunCommand({Tracewire(), "decode", "--format=event", dir});
  EXPECT_EQ(mixed.exit_code, kExitSkipped) << mixed.err;
  EXPECT_EQ(CountLines(mixed.err, "skipped the rest of a file after "), 1) << mixed.err;
  // Every event the damaged file held before the damage is there, with the healthy files'.
  int from_damaged = 0;
  const std::string sid_marker = "\"sid\":\"";
  std::string damaged_sid;
  {
    const std::string first = Lines(alone.out).front();
    const size_t at = first.find(sid_marker);
    ASSERT_NE(at, std::string::npos);
    damaged_sid = first.substr(at + sid_marker.size(),
                               first.find('"', at + sid_marker.size()) - at - sid_marker.size());
  }
  for (const std::string& line : Lines(mixed.out)) {
    from_damaged += absl::StrContains(line, sid_marker + damaged_sid + "\"") ? 1 : 0;
  }
  EXPECT_EQ(from_damaged, events_before_damage);
}

}  // namespace
}  // namespace tracewire::cli_test
