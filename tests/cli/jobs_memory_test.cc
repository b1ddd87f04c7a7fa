// The memory promises of the commands that read with worker threads, asserted on the peak
// RSS of the command (getrusage of the child; the machine's load does not change it):
//  * every job beyond the first adds at most 64 MiB to what --jobs=1 takes, for every
//    command with --jobs, on a trace whose generations are large (21 MB each);
//  * `query` keeps its database within --memory: the rest is in a temporary file, and the
//    answers are the same.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"

namespace tracewire::cli_test {
namespace {

constexpr long kMiB = 1024;  // in the KiB of max_rss_kib

// Run options for commands that read tens of millions of events on a loaded machine.
RunOptions Patient() {
  RunOptions options;
  options.timeout_seconds = 600;
  return options;
}

// A trace of three generations of 5 M events (about 21 MB each, 2.6 times the runtime's
// default generation size) from two threads.
const std::string& LargeGenerations() {
  static const std::string* path = [] {
    auto* trace = new std::string(NewTempDir("large") + "/large.twr");
    const CommandResult r =
        RunCommand({Runfile("tests/bench/make_bench_trace"), "--threads=2", "--events=15000000",
                    "--events_per_generation=5000000", *trace},
                   Patient());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return trace;
  }();
  return *path;
}

// Runs `args` with --jobs=N: its peak RSS in KiB; the output goes to /dev/null.
long PeakRssKib(const std::vector<std::string>& args, int jobs) {
  std::vector<std::string> argv = {Tracewire(), args[0], absl::StrCat("--jobs=", jobs)};
  argv.insert(argv.end(), args.begin() + 1, args.end());
  const CommandResult r = RunCommand(argv, Patient());
  EXPECT_EQ(r.exit_code, 0) << absl::StrJoin(argv, " ") << ": " << r.err;
  return r.max_rss_kib;
}

TEST(JobsMemoryTest, EachJobBeyondTheFirstAddsAtMost64MiB) {
  const std::string& trace = LargeGenerations();
  const std::vector<std::vector<std::string>> commands = {
      {"validate", trace},
      {"stats", trace},
      {"decode", "--format=event", trace, "-o", "/dev/null"},
      {"decode", "--format=chrome", trace, "-o", "/dev/null"},
  };
  for (const std::vector<std::string>& command : commands) {
    const long serial = PeakRssKib(command, 1);
    for (const int jobs : {2, 4}) {
      const long parallel = PeakRssKib(command, jobs);
      EXPECT_LE(parallel - serial, 64 * kMiB * (jobs - 1))
          << absl::StrJoin(command, " ") << ": --jobs=1 peaks at " << serial / kMiB
          << " MiB, --jobs=" << jobs << " at " << parallel / kMiB << " MiB";
    }
  }
}

// What `query` answers on the trace below, and its peak RSS.
CommandResult Query(const std::string& trace, const std::vector<std::string>& flags) {
  std::vector<std::string> argv = {Tracewire(), "query", "--format=csv"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(),
              {"-c",
               "SELECT count(*), sum(dur), max(depth) FROM slice; "
               "SELECT name, count(*), sum(dur) FROM slice GROUP BY name ORDER BY name; "
               "SELECT count(*) FROM data",
               trace});
  return RunCommand(argv, Patient());
}

TEST(JobsMemoryTest, QueryKeepsItsDatabaseOnDiskPastItsMemory) {
  // 2 M events: a database of about 70 MB.
  const std::string trace = NewTempDir("query") + "/query.twr";
  const CommandResult made =
      RunCommand({Runfile("tests/bench/make_bench_trace"), "--threads=1", "--events=2000000",
                  "--events_per_generation=500000", trace},
                 Patient());
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const CommandResult in_memory = Query(trace, {});
  ASSERT_EQ(in_memory.exit_code, 0) << in_memory.err;
  const CommandResult small = Query(trace, {"--memory=8M"});
  ASSERT_EQ(small.exit_code, 0) << small.err;
  EXPECT_EQ(small.out, in_memory.out);
  EXPECT_NE(in_memory.out.find('\n'), std::string::npos);
  // The default keeps the whole database (under 256 MiB) in memory; 8 MiB keeps the rest
  // on disk.
  EXPECT_LT(small.max_rss_kib + 32 * kMiB, in_memory.max_rss_kib)
      << "--memory=8M peaks at " << small.max_rss_kib / kMiB << " MiB, the default at "
      << in_memory.max_rss_kib / kMiB << " MiB";
  // A named input's own database too.
  const CommandResult named =
      RunCommand({Tracewire(), "query", "--format=csv", "--memory=8M", "-c",
                  "SELECT count(*), sum(dur), max(depth) FROM t.slice", absl::StrCat("t=", trace)},
                 Patient());
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(Lines(named.out)[1], Lines(in_memory.out)[1]);
  EXPECT_LT(named.max_rss_kib + 32 * kMiB, in_memory.max_rss_kib);
  // A size below 1 MiB is refused.
  EXPECT_EQ(Query(trace, {"--memory=1K"}).exit_code, 2);
}

}  // namespace
}  // namespace tracewire::cli_test
