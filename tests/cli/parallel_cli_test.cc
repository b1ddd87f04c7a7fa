// `tracewire decode|validate|stats --jobs=N` write exactly what --jobs=1 writes (stdout,
// stderr and exit code), for every output format, on multi-generation traces, traces of
// several processes (one appended file, a directory, stdin), and damaged traces read
// strictly (the error after the output before it) and with --salvage.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "reader/targets/output_formats.h"
#include "tests/cli/cli_runner.h"

namespace tracewire::cli_test {
namespace {

// Every output format (the registry's).
std::vector<std::string> AllFormats() {
  std::vector<std::string> names;
  for (const targets::OutputFormat& format : targets::OutputFormats()) {
    names.emplace_back(format.name);
  }
  return names;
}

// Runs tracewire with `args` and --jobs=1, 2 and 3, and expects the same result from each.
// Returns the serial result.
CommandResult ExpectSameForAnyJobs(const std::vector<std::string>& args,
                                   const RunOptions& options = {},
                                   const std::vector<int>& parallel_jobs = {2, 3}) {
  auto run = [&](int jobs, const RunOptions& options) {
    std::vector<std::string> argv = {Tracewire(), args[0], absl::StrCat("--jobs=", jobs)};
    argv.insert(argv.end(), args.begin() + 1, args.end());
    return RunCommand(argv, options);
  };
  const CommandResult serial = run(1, options);
  // decode formats blocks of events on every thread for a context-free format
  // (tools/commands/decode_blocks.h) and writes stripes of events on each thread for the
  // others (tools/commands/decode_stripes.h): with the default choice and stripe size, and
  // in stripes of 7 events (thousands of them here) for every format.
  std::vector<std::string> stripes = {""};
  if (args[0] == "decode") stripes.push_back("7");
  for (const int jobs : parallel_jobs) {
    for (const std::string& stripe : stripes) {
      SCOPED_TRACE(absl::StrCat(absl::StrJoin(args, " "), " --jobs=", jobs,
                                stripe.empty() ? "" : " in stripes of ", stripe));
      RunOptions striped = options;
      if (!stripe.empty()) {
        striped.env.emplace_back("TRACEWIRE_DECODE_STRIPE_EVENTS", stripe);
        striped.env.emplace_back("TRACEWIRE_DECODE_BLOCKS", "0");
      }
      const CommandResult parallel = run(jobs, striped);
      EXPECT_EQ(parallel.exit_code, serial.exit_code);
      EXPECT_EQ(parallel.err, serial.err);
      EXPECT_EQ(parallel.out.size(), serial.out.size());
      EXPECT_TRUE(parallel.out == serial.out) << "stdout differs";
    }
  }
  return serial;
}

// Every command on `trace` with every job count; returns validate's result.
CommandResult CheckAllCommands(const std::string& trace) {
  for (const std::string& format : AllFormats()) {
    ExpectSameForAnyJobs({"decode", absl::StrCat("--format=", format), trace});
  }
  ExpectSameForAnyJobs({"decode", "--brief", "--nesting=100", trace});
  ExpectSameForAnyJobs({"decode", "--format=folded", "--regions", trace});
  // Windows keep state across events (the regions open at their edges).
  for (const char* format : {"--format=chrome", "--format=event", "--format=perfetto"}) {
    ExpectSameForAnyJobs({"decode", format, "--since=0.3ms", "--until=1ms", trace});
  }
  ExpectSameForAnyJobs({"stats", trace});
  return ExpectSameForAnyJobs({"validate", trace});
}

// The benchmarks' synthetic trace: 3 threads, ~25 generations.
const std::string& BenchTrace() {
  static const std::string* path = [] {
    auto* trace = new std::string(NewTempDir("bench") + "/bench.twr");
    const CommandResult r = RunCommand({Runfile("tests/bench/make_bench_trace"), "--threads=3",
                                        "--events=60000", "--events_per_generation=2400", *trace});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return trace;
  }();
  return *path;
}

// A process tree (testtool running testtool running a threaded timer test) traced with a
// generation every millisecond, into one appended file and into a directory.
struct TreeTraces {
  std::string file;
  std::string dir;
};
const TreeTraces& Tree() {
  static const TreeTraces* traces = [] {
    auto* t = new TreeTraces;
    t->file = NewTempDir("tree_file") + "/trace.twr";
    t->dir = NewTempDir("tree_dir");
    const std::string testtool = Runfile("tests/testtool/testtool");
    for (const std::string& target : {t->file, t->dir}) {
      RunOptions options;
      options.env = {{"TRACEWIRE", target}, {"TRACEWIRE_GENERATION_MS", "1"}};
      const CommandResult r =
          RunCommand({testtool, "trace2", "004child", testtool, "trace2", "004child", testtool,
                      "trace2", "101timer", "3", "5", "3"},
                     options);
      EXPECT_EQ(r.exit_code, 0) << r.err;
    }
    return t;
  }();
  return *traces;
}

TEST(ParallelCliTest, MultiGenerationTrace) {
  const CommandResult r = CheckAllCommands(BenchTrace());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("60000 events, 25 generations, 1 processes"), std::string::npos) << r.out;
}

TEST(ParallelCliTest, ProcessTreeInOneFile) {
  const CommandResult r = CheckAllCommands(Tree().file);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("3 processes"), std::string::npos) << r.out;
}

TEST(ParallelCliTest, ProcessTreeDirectory) {
  const CommandResult r = CheckAllCommands(Tree().dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("3 processes"), std::string::npos) << r.out;
}

TEST(ParallelCliTest, Stdin) {
  RunOptions options;
  options.stdin_path = BenchTrace();
  ExpectSameForAnyJobs({"decode", "-"}, options);
  ExpectSameForAnyJobs({"validate", "-"}, options);
  ExpectSameForAnyJobs({"stats", "-"}, options);
}

TEST(ParallelCliTest, DamagedTraces) {
  const std::string bytes = ReadFile(BenchTrace());
  ASSERT_GT(bytes.size(), 100000u);
  const std::string dir = NewTempDir("damaged");
  std::vector<std::string> damaged;
  // Truncated inside a generation (the other changes may or may not leave it valid).
  damaged.push_back(bytes.substr(0, bytes.size() * 2 / 3));
  // Bytes changed in the middle: a bad record, a bad frame header, a bad table...
  for (const uint64_t at : {bytes.size() / 2, bytes.size() / 3 + 17, bytes.size() / 5 + 3}) {
    std::string copy = bytes;
    copy[at] = static_cast<char>(copy[at] ^ 0x5a);
    copy[at + 1] = static_cast<char>(copy[at + 1] ^ 0x13);
    damaged.push_back(copy);
  }
  for (size_t i = 0; i < damaged.size(); ++i) {
    const std::string path = absl::StrCat(dir, "/damaged", i, ".twr");
    ASSERT_TRUE(WriteFile(path, damaged[i]));
    SCOPED_TRACE(path);
    // A context-free format and stateful ones; strict and salvaging.
    for (const char* format : {"--format=event", "--format=chrome", "--format=otlp"}) {
      ExpectSameForAnyJobs({"decode", format, path}, {}, {2});
      ExpectSameForAnyJobs({"decode", "--salvage", format, path}, {}, {2});
    }
    ExpectSameForAnyJobs({"stats", path}, {}, {2});
    ExpectSameForAnyJobs({"validate", path}, {}, {2});
  }
}

TEST(ParallelCliTest, JobsFlag) {
  const CommandResult bad = RunCommand({Tracewire(), "validate", "--jobs=-1", BenchTrace()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--jobs must be >= 0"), std::string::npos) << bad.err;
  // 0 is the default: one thread per core.
  EXPECT_EQ(RunCommand({Tracewire(), "validate", "--jobs=0", BenchTrace()}).out,
            RunCommand({Tracewire(), "validate", BenchTrace()}).out);
}

}  // namespace
}  // namespace tracewire::cli_test
