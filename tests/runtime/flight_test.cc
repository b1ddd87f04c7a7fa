// The flight recorder: generations kept in memory and written only by dumps (on request,
// on a signal, on the first error, on a fatal signal), each dump a complete trace.
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "format/constants.h"
#include "format/file_header.h"
#include "format/varint.h"
#include "gtest/gtest.h"
#include "tests/runtime/test_scale.h"
#include "tests/runtime/trace_file.h"
#include "tests/runtime/traced_child.h"
#include "tracewire/tracewire.h"
#include "tracewire/tracewire.hpp"

namespace tracewire::testing {
namespace {

// The regular files of `dir`, sorted by name.
std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* entry = readdir(d)) {
      if (entry->d_type == DT_REG) names.push_back(entry->d_name);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Waits until `dir` holds `count` files (a bound on hangs, not a timing assertion).
bool WaitForFiles(const std::string& dir, size_t count) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (FilesIn(dir).size() < count) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    usleep(10 * 1000);
  }
  return true;
}

// The data_int values named `key` in `trace`, in file order.
std::vector<int64_t> Values(const DecodedTrace& trace, const std::string& key = "seq") {
  std::vector<int64_t> values;
  for (const DecodedEvent& e : trace.Events("data_int")) {
    if (e.site.label == key) values.push_back(format::ZigzagDecode(e.Arg("value")));
  }
  return values;
}

// Decodes a dump and checks what every dump must be: a complete trace whose headers all
// carry the flight-recorder flag.
DecodedTrace ReadDump(const std::string& path) {
  const std::string bytes = ReadFile(path);
  EXPECT_GE(bytes.size(), format::kFileHeaderSize) << path;
  EXPECT_TRUE(format::ParseFileHeader(bytes).ok()) << path;
  EXPECT_EQ(format::FileHeaderFlags(bytes), format::kFileFlagFlightRecorderDump) << path;
  absl::StatusOr<DecodedTrace> trace = DecodeTrace(bytes);
  EXPECT_TRUE(trace.ok()) << path << ": " << trace.status();
  if (!trace.ok()) return {};
  EXPECT_TRUE(trace->tail_status.ok()) << path << ": " << trace->tail_status;
  EXPECT_FALSE(trace->generations.empty()) << path;
  return *trace;
}

std::map<std::string, std::string> FlightEnv(const std::string& target, const std::string& size,
                                             std::map<std::string, std::string> more = {}) {
  more["TRACEWIRE"] = target;
  more["TRACEWIRE_FLIGHT_RECORDER"] = size;
  return more;
}

constexpr int64_t kManyEvents = 400000 / kVolumeDivisor;

// Records data_int "seq" values [from, to), cutting a generation every 10000 events (the
// background cut on size may lag behind a loop this fast on a loaded machine).
void RecordSeq(int64_t from, int64_t to) {
  for (int64_t i = from; i < to; ++i) {
    tw_data_intmax("test", TW_NO_REPO, "seq", i);
    if (i % 10000 == 9999) tw_flush();
  }
}

TEST(FlightRecorderTest, DumpHoldsTheMostRecentEventsNotTheOldest) {
  const std::string dir = MakeTempDir("flight_recent");
  const int status = RunInChild(FlightEnv(dir, "256K"), [&] {
    tw_initialize();
    RecordSeq(0, kManyEvents);
    if (!FilesIn(dir).empty()) return 10;  // nothing reaches the target before a dump
    if (tw_flight_recorder_dump() != 0) return 11;
    return 0;
  });
  ASSERT_TRUE(WIFEXITED(status)) << status;
  ASSERT_EQ(WEXITSTATUS(status), 0);
  const std::vector<std::string> files = FilesIn(dir);
  ASSERT_EQ(files.size(), 1u);  // the exit writes nothing
  EXPECT_TRUE(absl::EndsWith(files[0], ".flight-1")) << files[0];
  const DecodedTrace trace = ReadDump(dir + "/" + files[0]);
  const std::vector<int64_t> values = Values(trace);
  ASSERT_FALSE(values.empty());
  // The last value recorded before the dump is there; the oldest were dropped with their
  // generations, and what is kept is a contiguous run up to the end.
  EXPECT_EQ(values.back(), kManyEvents - 1);
  EXPECT_GT(values.front(), 0);
  for (size_t i = 1; i < values.size(); ++i) ASSERT_EQ(values[i], values[i - 1] + 1) << i;
  EXPECT_GT(trace.generations.front().gen, 1u);
  // About the ring's size, not the whole run (4 bytes or more per event).
  EXPECT_LT(values.size(), static_cast<size_t>(kManyEvents));
}

// Three phases of 1000 values (phase * 10000 + i), each followed by a dump.
int ThreePhasesThreeDumps() {
  tw_initialize();
  for (int64_t phase = 1; phase <= 3; ++phase) {
    for (int64_t i = 0; i < 1000; ++i) tw_data_intmax("test", TW_NO_REPO, "seq", phase * 10000 + i);
    if (tw_flight_recorder_dump() != 0) return 10 + static_cast<int>(phase);
  }
  return 0;
}

TEST(FlightRecorderTest, SeveralDumpsToADirectoryEachHoldTheirLatest) {
  const std::string dir = MakeTempDir("flight_several");
  const int status = RunInChild(FlightEnv(dir, "1M"), ThreePhasesThreeDumps);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const std::vector<std::string> files = FilesIn(dir);
  ASSERT_EQ(files.size(), 3u);
  for (int64_t phase = 1; phase <= 3; ++phase) {
    const std::string& name = files[phase - 1];
    EXPECT_TRUE(absl::EndsWith(name, ".flight-" + std::to_string(phase))) << name;
    const std::vector<int64_t> values = Values(ReadDump(dir + "/" + name));
    ASSERT_FALSE(values.empty());
    EXPECT_EQ(values.back(), phase * 10000 + 999) << name;
    // The ring is large enough to still hold the earlier phases.
    EXPECT_EQ(values.front(), 10000) << name;
  }
}

TEST(FlightRecorderTest, DumpsAppendedToOneFileReadAsOneTrace) {
  const std::string path = MakeTempDir("flight_stream") + "/trace.tw";
  const int status = RunInChild(FlightEnv(path, "1M"), ThreePhasesThreeDumps);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const DecodedTrace trace = ReadDump(path);
  // Each generation was written once: strictly increasing, every value exactly once.
  for (size_t i = 1; i < trace.generations.size(); ++i) {
    EXPECT_GT(trace.generations[i].gen, trace.generations[i - 1].gen);
  }
  const std::vector<int64_t> values = Values(trace);
  ASSERT_EQ(values.size(), 3000u);
  EXPECT_EQ(values.back(), 30999);
}

TEST(FlightRecorderTest, DumpsWhileEightThreadsRecord) {
  constexpr int kThreads = 8;
  constexpr int kDumps = 5;
  const std::string dir = MakeTempDir("flight_threads");
  const int status = RunInChild(FlightEnv(dir, "32M", {{"TRACEWIRE_GENERATION_MS", "20"}}), [] {
    tw_initialize();
    std::atomic<bool> stop{false};
    std::atomic<int> started{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        const std::string name = "w" + std::to_string(t);
        tracewire::ThreadScope scope(name.c_str());
        started.fetch_add(1);
        for (int64_t i = 0; !stop.load(std::memory_order_relaxed); ++i) {
          tracewire::RegionScope region("load", "chunk");
          tw_data_intmax("test", TW_NO_REPO, "seq", (int64_t{t} << 32) | i);
          if (i % 256 == 0) std::this_thread::yield();  // 8 threads, 2 cores: let the cuts run
        }
      });
    }
    while (started.load() < kThreads) std::this_thread::yield();
    int failures = 0;
    for (int d = 0; d < kDumps; ++d) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (tw_flight_recorder_dump() != 0) ++failures;
    }
    stop.store(true);
    for (std::thread& t : threads) t.join();
    return failures;
  });
  ASSERT_TRUE(WIFEXITED(status)) << status;
  ASSERT_EQ(WEXITSTATUS(status), 0);
  const std::vector<std::string> files = FilesIn(dir);
  ASSERT_EQ(files.size(), static_cast<size_t>(kDumps));
  for (const std::string& name : files) {
    const DecodedTrace trace = ReadDump(dir + "/" + name);
    // Per thread, the values kept are increasing (nothing reordered or duplicated).
    std::map<int64_t, int64_t> last;
    for (int64_t value : Values(trace)) {
      const int64_t thread = value >> 32;
      auto it = last.find(thread);
      if (it != last.end()) {
        EXPECT_GT(value, it->second) << name;
      }
      last[thread] = value;
    }
    EXPECT_FALSE(last.empty()) << name;
  }
}

TEST(FlightRecorderTest, SignalTriggersADump) {
  const std::string dir = MakeTempDir("flight_signal");
  const int status = RunInChild(FlightEnv(dir, "1M", {{"TRACEWIRE_FLIGHT_SIGNAL", "USR2"}}), [&] {
    tw_initialize();
    for (int64_t i = 0; i < 5000; ++i) tw_data_intmax("test", TW_NO_REPO, "seq", i);
    kill(getpid(), SIGUSR2);  // as `kill -USR2 PID` would
    if (!WaitForFiles(dir, 1)) return 10;
    tw_data_intmax("test", TW_NO_REPO, "seq", 999999);  // still recording afterwards
    return tw_flight_recorder_dump() == 0 ? 0 : 11;
  });
  ASSERT_TRUE(WIFEXITED(status)) << status;
  ASSERT_EQ(WEXITSTATUS(status), 0);
  const std::vector<std::string> files = FilesIn(dir);
  ASSERT_EQ(files.size(), 2u);
  const std::vector<int64_t> first = Values(ReadDump(dir + "/" + files[0]));
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first.back(), 4999);
  EXPECT_EQ(Values(ReadDump(dir + "/" + files[1])).back(), 999999);
}

TEST(FlightRecorderTest, SignalIsNotHandledUnlessAsked) {
  const std::string dir = MakeTempDir("flight_no_signal");
  const int status = RunInChild(FlightEnv(dir, "1M"), [] {
    tw_initialize();
    raise(SIGUSR2);  // default action: terminate
    return 0;
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGUSR2);
  EXPECT_TRUE(FilesIn(dir).empty());
}

TEST(FlightRecorderTest, FatalSignalDumps) {
  const std::string dir = MakeTempDir("flight_fatal");
  const int status = RunInChild(FlightEnv(dir, "256K"), [] {
    tw_initialize();
    tw_region_enter("work", "outer", TW_NO_REPO);
    RecordSeq(0, kManyEvents);
    abort();
    return 0;
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGABRT);
  const std::vector<std::string> files = FilesIn(dir);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_TRUE(absl::EndsWith(files[0], ".flight-1")) << files[0];
  const DecodedTrace trace = ReadDump(dir + "/" + files[0]);
  const std::vector<int64_t> values = Values(trace);
  ASSERT_FALSE(values.empty());
  EXPECT_EQ(values.back(), kManyEvents - 1);
  EXPECT_GT(values.front(), 0);
  ASSERT_EQ(trace.Events("signal").size(), 1u);
  EXPECT_EQ(trace.Events("signal")[0].Arg("signo"), static_cast<uint64_t>(SIGABRT));
  // The open region is re-stated in the first generation kept.
  bool restated = false;
  for (const DecodedEvent& e : trace.generations.front().events) {
    if (e.name == "region_active" && e.site.label == "outer") restated = true;
  }
  EXPECT_TRUE(restated);
}

TEST(FlightRecorderTest, FirstErrorDumpsWhenAsked) {
  const std::string dir = MakeTempDir("flight_error");
  const int status = RunInChild(FlightEnv(dir, "1M", {{"TRACEWIRE_FLIGHT_ON_ERROR", "1"}}), [&] {
    tw_initialize();
    tw_data_intmax("test", TW_NO_REPO, "seq", 1);
    tw_cmd_error("first failure %d", 1);
    if (!WaitForFiles(dir, 1)) return 10;
    tw_cmd_error("second failure");  // no second dump
    tw_data_intmax("test", TW_NO_REPO, "seq", 2);
    return tw_flight_recorder_dump() == 0 ? 0 : 11;
  });
  ASSERT_TRUE(WIFEXITED(status)) << status;
  ASSERT_EQ(WEXITSTATUS(status), 0);
  const std::vector<std::string> files = FilesIn(dir);
  ASSERT_EQ(files.size(), 2u);
  const DecodedTrace first = ReadDump(dir + "/" + files[0]);
  ASSERT_EQ(first.Events("error").size(), 1u);
  EXPECT_EQ(*first.Events("error")[0].Str("msg_string"), "first failure 1");
  EXPECT_EQ(Values(ReadDump(dir + "/" + files[1])).back(), 2);
}

TEST(FlightRecorderTest, ForkedChildDoesNotDumpTheParentsRing) {
  const std::string dir = MakeTempDir("flight_fork");
  const int status = RunInChild(FlightEnv(dir, "1M", {{"TRACEWIRE_FLIGHT_SIGNAL", "USR1"}}), [&] {
    tw_initialize();
    tw_data_intmax("test", TW_NO_REPO, "seq", 7);
    const pid_t pid = fork();
    if (pid == 0) {
      if (tw_flight_recorder_dump() != -1) _exit(20);
      raise(SIGUSR1);  // handled, and ignored in the child
      abort();         // no emergency dump either
    }
    int child_status = 0;
    waitpid(pid, &child_status, 0);
    if (!WIFSIGNALED(child_status) || WTERMSIG(child_status) != SIGABRT) return 21;
    if (!FilesIn(dir).empty()) return 22;
    return tw_flight_recorder_dump() == 0 ? 0 : 23;
  });
  ASSERT_TRUE(WIFEXITED(status)) << status;
  ASSERT_EQ(WEXITSTATUS(status), 0);
  const std::vector<std::string> files = FilesIn(dir);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_TRUE(absl::EndsWith(files[0], ".flight-1")) << files[0];
  EXPECT_EQ(Values(ReadDump(dir + "/" + files[0])).back(), 7);
}

TEST(FlightRecorderTest, RingSmallerThanOneGenerationKeepsWhatFits) {
  const std::string dir = MakeTempDir("flight_tiny");
  const int status = RunInChild(FlightEnv(dir, "16K"), [] {
    tw_initialize();
    // Far more than 16 KiB between cuts: no finished generation fits the ring.
    for (int64_t i = 0; i < kManyEvents; ++i) tw_data_intmax("test", TW_NO_REPO, "seq", i);
    tw_flush();
    for (int64_t i = 0; i < 100; ++i) tw_data_intmax("test", TW_NO_REPO, "seq", kManyEvents + i);
    return tw_flight_recorder_dump() == 0 ? 0 : 10;
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const std::vector<std::string> files = FilesIn(dir);
  ASSERT_EQ(files.size(), 1u);
  const DecodedTrace trace = ReadDump(dir + "/" + files[0]);
  const std::vector<int64_t> values = Values(trace);
  // The dump's own cut (it fits: a few hundred bytes); the big generations were not kept.
  ASSERT_GE(values.size(), 100u);
  EXPECT_LT(values.size(), static_cast<size_t>(kManyEvents));
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(values[values.size() - 100 + i], kManyEvents + i);
}

// Records values 0..99 into a generation the ring keeps (generation 1), then 100..5999
// (over 16 KiB: more than the ring, less than one thread batch, so nothing is cut on size),
// cut by tw_flush first if `flush_before_dump`, then dumps. Generation 2 is dropped; the
// dump must end with one more generation after it (3, the threads' re-statements), so that
// the loss shows as a gap in the generation numbers rather than the dump looking complete
// with generation 1 alone.
void ExpectDroppedNewestGenerationShowsAsAGap(const std::string& name, bool flush_before_dump) {
  const std::string dir = MakeTempDir(name);
  // One cut a minute: only tw_flush and the dump cut.
  const auto env = FlightEnv(dir, "16K", {{"TRACEWIRE_GENERATION_MS", "60000"}});
  const int status = RunInChild(env, [flush_before_dump] {
    tw_initialize();
    for (int64_t i = 0; i < 100; ++i) tw_data_intmax("test", TW_NO_REPO, "seq", i);
    tw_flush();
    for (int64_t i = 100; i < 6000; ++i) tw_data_intmax("test", TW_NO_REPO, "seq", i);
    if (flush_before_dump) tw_flush();
    return tw_flight_recorder_dump() == 0 ? 0 : 10;
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const std::vector<std::string> files = FilesIn(dir);
  ASSERT_EQ(files.size(), 1u);
  const DecodedTrace trace = ReadDump(dir + "/" + files[0]);
  std::vector<uint64_t> gens;
  for (const DecodedGeneration& generation : trace.generations) gens.push_back(generation.gen);
  EXPECT_EQ(gens, (std::vector<uint64_t>{1, 3}));
  const std::vector<int64_t> values = Values(trace);
  ASSERT_EQ(values.size(), 100u);
  EXPECT_EQ(values.back(), 99);
}

// Generation 2 is the dump's own cut.
TEST(FlightRecorderTest, DumpWhoseNewestGenerationIsDroppedShowsTheGap) {
  ExpectDroppedNewestGenerationShowsAsAGap("flight_newest_dropped", false);
}

// Generation 2 was cut before the dump (by tw_flush here, as by the background thread's
// cuts) and nothing was recorded since: the dump's own cut has nothing new.
TEST(FlightRecorderTest, DumpAfterADroppedCutWithNothingNewShowsTheGap) {
  ExpectDroppedNewestGenerationShowsAsAGap("flight_dropped_before", true);
}

TEST(FlightRecorderTest, DumpFailsOutsideFlightMode) {
  const std::string dir = MakeTempDir("flight_off");
  const int status = RunInChild({{"TRACEWIRE", dir}}, [] {
    tw_initialize();
    return tw_flight_recorder_dump() == -1 ? 0 : 10;
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST(FlightRecorderTest, MisspeltSizeLeavesTracingOff) {
  const std::string dir = MakeTempDir("flight_bad_size");
  const int status = RunInChild(FlightEnv(dir, "12X"), [] {
    tw_initialize();
    tw_data_intmax("test", TW_NO_REPO, "seq", 1);
    return tw_is_enabled() ? 10 : 0;
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_TRUE(FilesIn(dir).empty());
}

}  // namespace
}  // namespace tracewire::testing
