// The runtime under stress: killed and crashing processes, fork, failing writes,
// compression, very long strings, stacks and size-based generations.
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "format/constants.h"
#include "format/file_header.h"
#include "format/raw_decoder.h"
#include "format/varint.h"
#include "gtest/gtest.h"
#include "tests/runtime/test_scale.h"
#include "tests/runtime/trace_file.h"
#include "tests/runtime/traced_child.h"
#include "tracewire/tracewire.h"
#include "tracewire/tracewire.hpp"

// Named functions for the stack test: extern "C", non-static and never inlined so that
// dladdr (with -rdynamic) resolves them by these plain names.
extern "C" {
__attribute__((noinline)) void TracewireStackTestInner(int i) {
  tw_region_enter("stack", "inner", TW_NO_REPO);
  tw_region_leave("stack", "inner", TW_NO_REPO);
  if (i % 2 == 0) tw_cmd_error("error %d", i);
  asm volatile("" ::: "memory");  // no tail call
}
__attribute__((noinline)) void TracewireStackTestOuter(int i) {
  TracewireStackTestInner(i);
  asm volatile("" ::: "memory");
}
}

namespace tracewire::testing {
namespace {

// Values of the data_int events with key `key`, in file order.
std::vector<int64_t> IntValues(const DecodedTrace& trace, absl::string_view key) {
  std::vector<int64_t> values;
  for (const DecodedEvent& e : trace.Events("data_int")) {
    if (e.site.label == key) values.push_back(format::ZigzagDecode(e.Arg("value")));
  }
  return values;
}

// Expects `values` to be 0, 1, ..., n-1.
void ExpectContiguous(const std::vector<int64_t>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(values[i], static_cast<int64_t>(i)) << "at index " << i;
  }
}

double SecondsSince(const timespec& start) {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9;
}

// ---- Killed and crashing processes ----------------------------------------------------

TEST(RobustnessTest, SigkillLeavesCompleteGenerations) {
  const std::string dir = MakeTempDir("sigkill");
  const int pid =
      StartInChild(ChildEnv({{"TRACEWIRE", dir}, {"TRACEWIRE_GENERATION_MS", "20"}}), [] {
        tw_initialize();
        for (int64_t i = 0;; ++i) {  // until killed
          tw_region_enter("loop", "step", TW_NO_REPO);
          tw_data_intmax("loop", TW_NO_REPO, "seq", i);
          tw_region_leave("loop", "step", TW_NO_REPO);
          if (i % 16 == 0) usleep(100 * kVolumeDivisor);  // less to decode under TSan
        }
        return 3;
      });
  ASSERT_GT(pid, 0);
  // Kill once two generations are complete in the file, however slowly the child runs
  // (a sanitizer or a loaded machine); the deadline only bounds a hang.
  timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    DIR* d = opendir(dir.c_str());
    std::string file;
    while (dirent* entry = d != nullptr ? readdir(d) : nullptr) {
      if (entry->d_name[0] != '.') file = dir + "/" + entry->d_name;
    }
    if (d != nullptr) closedir(d);
    if (!file.empty()) {
      absl::StatusOr<DecodedTrace> so_far = DecodeTrace(ReadFile(file));
      // Two complete generations holding more than 100 steps (a loaded machine can
      // cut two short ones first).
      if (so_far.ok() && so_far->generations.size() >= 2 &&
          IntValues(*so_far, "seq").size() > 100) {
        break;
      }
    }
    if (SecondsSince(start) > 120) {
      kill(pid, SIGKILL);
      WaitForChild(pid);
      FAIL() << "the child wrote no two complete generations of 100 steps in 120 s";
    }
    usleep(50 * 1000);
  }
  kill(pid, SIGKILL);
  const int status = WaitForChild(pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  const std::string bytes = ReadFile(OnlyFileIn(dir));
  absl::StatusOr<DecodedTrace> trace = DecodeTrace(bytes);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_GE(trace->generations.size(), 2u);
  const std::vector<int64_t> seq = IntValues(*trace, "seq");
  EXPECT_GT(seq.size(), 100u);
  ExpectContiguous(seq);
  for (size_t i = 0; i < trace->generations.size(); ++i) {
    EXPECT_EQ(trace->generations[i].gen, i + 1);
    EXPECT_EQ(trace->generations[i].clock_syncs, 1);
  }
  // A cut-off last generation is reported, never decoded as if whole.
  EXPECT_LE(trace->complete_bytes, trace->total_bytes);
  EXPECT_EQ(trace->tail_status.ok(), trace->complete_bytes == trace->total_bytes)
      << trace->tail_status;
  EXPECT_TRUE(trace->Events("atexit").empty());

  // A kill in the middle of a generation's write leaves a partial generation: it is
  // reported in tail_status and the generations before it still decode.
  const std::string whole(bytes.substr(0, trace->complete_bytes));
  for (const size_t cut : {size_t{1}, size_t{7}, format::kFileHeaderSize + 3}) {
    absl::StatusOr<DecodedTrace> cut_trace = DecodeTrace(whole.substr(0, whole.size() - cut));
    ASSERT_TRUE(cut_trace.ok()) << cut_trace.status();
    EXPECT_FALSE(cut_trace->tail_status.ok()) << "cut " << cut;
    EXPECT_EQ(cut_trace->generations.size(), trace->generations.size() - 1) << "cut " << cut;
    EXPECT_LT(cut_trace->complete_bytes, cut_trace->total_bytes);
  }
}

struct CrashCase {
  const char* name;
  int signo;
  bool use_abort;
};

class FatalSignalTest : public ::testing::TestWithParam<CrashCase> {};

TEST_P(FatalSignalTest, EmergencyFlushRecordsEventsAndSignal) {
  const CrashCase c = GetParam();
  const std::string dir = MakeTempDir("crash");
  const int status = RunInChild(ChildEnv({{"TRACEWIRE", dir}}), [c] {
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    tw_initialize();
    tw_region_enter("crash", "before", TW_NO_REPO);
    for (int i = 0; i < 5; ++i) tw_data_intmax("crash", TW_NO_REPO, "seq", i);
    tw_data_string("crash", TW_NO_REPO, "note", "about to die");
    if (c.use_abort) abort();
    raise(c.signo);
    return 0;  // not reached
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), c.signo);
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(dir));
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->tail_status.ok()) << trace->tail_status;
  ASSERT_GE(trace->generations.size(), 1u);
  ExpectContiguous(IntValues(*trace, "seq"));
  EXPECT_EQ(IntValues(*trace, "seq").size(), 5u);
  const std::vector<DecodedEvent> data = trace->Events("data");
  ASSERT_EQ(data.size(), 1u);
  EXPECT_EQ(data[0].Str("value_string"), "about to die");
  const std::vector<DecodedEvent> signals = trace->Events("signal");
  ASSERT_EQ(signals.size(), 1u);
  EXPECT_EQ(signals[0].Arg("signo"), static_cast<uint64_t>(c.signo));
  EXPECT_EQ(signals[0].thread, 0u);
  // The signal is the last event of the main thread.
  const std::vector<DecodedEvent> all = trace->AllEvents();
  const DecodedEvent* last_main = nullptr;
  for (const DecodedEvent& e : all) {
    if (e.thread == 0) last_main = &e;
  }
  ASSERT_NE(last_main, nullptr);
  EXPECT_EQ(last_main->name, "signal");
  EXPECT_FALSE(trace->generations.back().sid.empty());
  EXPECT_TRUE(trace->Events("atexit").empty());
}

TEST(EmergencyProcessInfoTest, NamesTheCommand) {
  const std::string dir = MakeTempDir("crash_name");
  const int status = RunInChild(ChildEnv({{"TRACEWIRE", dir}}), [] {
    tw_initialize();
    tw_cmd_name("crashing");
    tw_data_intmax("crash", TW_NO_REPO, "seq", 1);
    raise(SIGTERM);
    return 0;  // not reached
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(dir));
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->tail_status.ok()) << trace->tail_status;
  ASSERT_GE(trace->generations.size(), 1u);
  // The generation the fatal-signal path wrote names the process like any other.
  EXPECT_EQ(trace->Events("signal").size(), 1u);
  EXPECT_EQ(trace->generations.back().cmd_name, std::optional<std::string>("crashing"));
}

INSTANTIATE_TEST_SUITE_P(Signals, FatalSignalTest,
                         ::testing::Values(CrashCase{"segv", SIGSEGV, false},
                                           CrashCase{"abort", SIGABRT, true},
                                           CrashCase{"term", SIGTERM, false}),
                         [](const ::testing::TestParamInfo<CrashCase>& info) {
                           return std::string(info.param.name);
                         });

// ---- fork --------------------------------------------------------------------------------

constexpr int kPreForkEvents = 20;

// `how` is how the fork child ends: 0 = exit(), 1 = a fatal signal.
int ForkWorkload(int how) {
  tw_initialize();
  for (int i = 0; i < kPreForkEvents; ++i) tw_data_intmax("fork", TW_NO_REPO, "seq", i);
  fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return 20;
  if (pid == 0) {
    const int enabled = tw_is_enabled();
    tw_data_intmax("fork", TW_NO_REPO, "child", 1);  // dropped: tracing is off
    tw_region_enter("fork", "child", TW_NO_REPO);
    tw_flush();
    if (how == 1) raise(SIGTERM);
    exit(enabled ? 7 : 0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (how == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) return 21;
  if (how == 1 && !(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM)) return 22;
  tw_data_intmax("fork", TW_NO_REPO, "after", 1);
  return 0;
}

class ForkTest : public ::testing::TestWithParam<int> {};

TEST_P(ForkTest, ForkChildNeverWritesParentBuffers) {
  const std::string dir = MakeTempDir("fork");
  const int how = GetParam();
  const int status =
      RunInChild(ChildEnv({{"TRACEWIRE", dir}}), [how] { return ForkWorkload(how); });
  ASSERT_TRUE(WIFEXITED(status)) << status;
  ASSERT_EQ(WEXITSTATUS(status), 0) << "21/22: the fork child did not end as expected "
                                       "(7: tracing was still enabled in it)";
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(dir));
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_TRUE(trace->tail_status.ok()) << trace->tail_status;
  const std::vector<int64_t> seq = IntValues(*trace, "seq");
  EXPECT_EQ(seq.size(), static_cast<size_t>(kPreForkEvents));
  ExpectContiguous(seq);
  EXPECT_TRUE(IntValues(*trace, "child").empty());
  EXPECT_EQ(IntValues(*trace, "after").size(), 1u);
  EXPECT_EQ(trace->Events("version").size(), 1u);
  EXPECT_EQ(trace->Events("atexit").size(), 1u);
  EXPECT_TRUE(trace->Events("signal").empty());
  std::set<uint64_t> pids;
  for (const DecodedGeneration& gen : trace->generations) pids.insert(gen.pid);
  EXPECT_EQ(pids.size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(ChildEnds, ForkTest, ::testing::Values(0, 1));

// ---- Failing writes ------------------------------------------------------------------------

// TRACEWIRE=6 is a pipe whose read end is closed: every write fails with EPIPE. `busy`
// also cuts generations from the advancer thread while the program runs.
int BrokenPipeWorkload(bool busy) {
  int fds[2];
  if (pipe(fds) != 0) return 20;
  close(fds[0]);
  if (dup2(fds[1], 6) != 6) return 21;
  close(fds[1]);
  setenv("TRACEWIRE", "6", 1);
  if (busy) setenv("TRACEWIRE_GENERATION_MS", "10", 1);
  tw_initialize();
  for (int i = 0; i < 200; ++i) {
    tw_region_enter("pipe", "step", TW_NO_REPO);
    tw_data_intmax("pipe", TW_NO_REPO, "seq", i);
    tw_region_leave("pipe", "step", TW_NO_REPO);
    if (busy && i % 20 == 0) usleep(5000);
  }
  tw_flush();
  tw_flush();
  return tw_cmd_exit(42);
}

TEST(RobustnessTest, WriteToClosedPipeDoesNotKillTheProgram) {
  const int status = RunInChild(ChildEnv({}), [] { return BrokenPipeWorkload(false); });
  ASSERT_FALSE(WIFSIGNALED(status)) << "killed by signal " << WTERMSIG(status);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 42);
}

TEST(RobustnessTest, WriteToClosedPipeFromAdvancerDoesNotKillTheProgram) {
  const int status = RunInChild(ChildEnv({}), [] { return BrokenPipeWorkload(true); });
  ASSERT_FALSE(WIFSIGNALED(status)) << "killed by signal " << WTERMSIG(status);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 42);
}

TEST(RobustnessTest, ProgramsOwnSigpipeStillDelivered) {
  // After the runtime swallowed its own EPIPE, the program's own write to a broken pipe
  // must still raise SIGPIPE as usual (the runtime must not leave it blocked or ignored).
  const int status = RunInChild(ChildEnv({}), [] {
    BrokenPipeWorkload(false);
    int fds[2];
    if (pipe(fds) != 0) return 20;
    close(fds[0]);
    const ssize_t ignored = write(fds[1], "x", 1);
    (void)ignored;
    return 30;  // not reached
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGPIPE);
}

// ---- Compression -----------------------------------------------------------------------------

int CompressibleWorkload() {
  tw_initialize();
  for (int i = 0; i < 2000; ++i) {
    tw_region_enter("compress", "step", TW_NO_REPO);
    tw_data_intmax("compress", TW_NO_REPO, "seq", i);
    tw_data_string("compress", TW_NO_REPO, "text", "the same text over and over again");
    tw_region_leave("compress", "step", TW_NO_REPO);
    if (i == 1000) tw_flush();
  }
  return 0;
}

TEST(RobustnessTest, CompressedGenerations) {
  const std::string plain_dir = MakeTempDir("plain");
  const std::string zstd_dir = MakeTempDir("zstd");
  int status = RunInChild(ChildEnv({{"TRACEWIRE", plain_dir}}), CompressibleWorkload);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  status = RunInChild(ChildEnv({{"TRACEWIRE", zstd_dir}, {"TRACEWIRE_COMPRESS", "1"}}),
                      CompressibleWorkload);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const std::string plain = ReadFile(OnlyFileIn(plain_dir));
  const std::string zstd = ReadFile(OnlyFileIn(zstd_dir));

  // TRACEWIRE_COMPRESS's promise: every generation is compressed unless compression falls a
  // generation behind the size cuts (this workload never reaches generation_bytes),
  // whatever the machine's load and however many generations the cuts on time make. A tw_flush()
  // waiting for the compression of the generation before does not make it give up. The
  // raw frames: a header before each generation, then one compressed_generation, smaller
  // than the frames it holds.
  size_t pos = 0;
  int compressed_frames = 0;
  while (pos < zstd.size()) {
    ASSERT_TRUE(format::ParseFileHeader(absl::string_view(zstd).substr(pos)).ok()) << "at " << pos;
    pos += format::kFileHeaderSize;
    format::RecordDecoder decoder(absl::string_view(zstd).substr(pos), pos, format::Scope::kFrame);
    format::RawEvent frame;
    absl::StatusOr<bool> got = decoder.Next(&frame);
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_TRUE(*got);
    EXPECT_EQ(frame.type, static_cast<uint8_t>(format::EventType::kCompressedGeneration))
        << "generation at byte " << pos << " written uncompressed";
    if (frame.type == static_cast<uint8_t>(format::EventType::kCompressedGeneration)) {
      EXPECT_LT(frame.data.size(), frame.Arg("raw_length")) << "at " << pos;
    }
    pos += frame.size;
    ++compressed_frames;
  }
  EXPECT_GE(compressed_frames, 2);

  absl::StatusOr<DecodedTrace> plain_trace = DecodeTrace(plain);
  absl::StatusOr<DecodedTrace> zstd_trace = DecodeTrace(zstd);
  ASSERT_TRUE(plain_trace.ok() && zstd_trace.ok());
  ASSERT_TRUE(zstd_trace->tail_status.ok()) << zstd_trace->tail_status;
  EXPECT_EQ(zstd_trace->complete_bytes, zstd_trace->total_bytes);
  EXPECT_EQ(zstd_trace->generations.size(), static_cast<size_t>(compressed_frames));
  for (const DecodedGeneration& gen : zstd_trace->generations) EXPECT_TRUE(gen.compressed);
  for (const DecodedGeneration& gen : plain_trace->generations) EXPECT_FALSE(gen.compressed);
  const std::vector<int64_t> seq = IntValues(*zstd_trace, "seq");
  EXPECT_EQ(seq.size(), 2000u);
  ExpectContiguous(seq);
  EXPECT_EQ(zstd_trace->Events("data").size(), 2000u);
  // Nothing was written uncompressed: no uncompressed_generations counter.
  EXPECT_TRUE(zstd_trace->Events("counter").empty());
  // The same events but the re-statements, whose number follows the cuts on time.
  auto recorded = [](const DecodedTrace& trace) {
    return trace.AllEvents().size() - trace.Events("thread_status").size() -
           trace.Events("region_active").size();
  };
  EXPECT_EQ(recorded(*zstd_trace), recorded(*plain_trace));
}

// Four threads entering and leaving regions at full speed, with generations cut every
// 20 ms or 64 KiB: the size cuts come while earlier generations are being compressed.
// `rounds` multiplies the work.
int FourThreadRegionWorkload(int rounds) {
  tw_initialize();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([rounds] {
      for (int i = 0; i < rounds * 200000 / kVolumeDivisor; ++i) {
        tw_region_enter("compress", "busy", TW_NO_REPO);
        tw_region_leave("compress", "busy", TW_NO_REPO);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  return 0;
}

// Runs `body(attempt)` (attempt 0, 1, ...) in a traced child with `settings` and TRACEWIRE
// set to a fresh directory, at most `attempts` times, until its trace has at least
// `generations` generations, and returns the last trace: generation cuts are made by a
// background thread that a busy machine can starve for a whole run. A child that does not
// exit 0, or a trace that does not decode, ends the attempts with an error.
absl::StatusOr<DecodedTrace> RecordUntilGenerations(std::map<std::string, std::string> settings,
                                                    size_t generations, int attempts,
                                                    const std::function<int(int)>& body) {
  absl::StatusOr<DecodedTrace> trace = absl::InternalError("no attempt");
  for (int attempt = 0; attempt < attempts; ++attempt) {
    const std::string dir = MakeTempDir("until_generations");
    settings["TRACEWIRE"] = dir;
    const int status = RunInChild(ChildEnv(settings), [&] { return body(attempt); });
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      return absl::InternalError(absl::StrCat("the traced child ended with status ", status));
    }
    trace = DecodeTraceFile(OnlyFileIn(dir));
    if (!trace.ok() || trace->generations.size() >= generations) break;
  }
  return trace;
}

TEST(RobustnessTest, CompressionSkippedIsCounted) {
  // The workload runs again, with twice the work each time, until its trace has several
  // generations.
  const absl::StatusOr<DecodedTrace> trace = RecordUntilGenerations(
      {{"TRACEWIRE_COMPRESS", "1"},
       {"TRACEWIRE_GENERATION_MS", "20"},
       {"TRACEWIRE_GENERATION_BYTES", "65536"}},
      3, 7, [](int attempt) { return FourThreadRegionWorkload(1 << attempt); });
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_TRUE(trace->tail_status.ok()) << trace->tail_status;
  ASSERT_GE(trace->generations.size(), 3u);
  // Every generation but the last is compressed, or counted by the runtime's
  // uncompressed_generations counter (recorded at exit when not zero): the count of
  // generations left uncompressed is exact, whatever the load.
  uint64_t uncompressed = 0;
  uint64_t compressed = 0;
  for (size_t i = 0; i + 1 < trace->generations.size(); ++i) {
    (trace->generations[i].compressed ? compressed : uncompressed) += 1;
  }
  const std::vector<DecodedEvent> counters = trace->Events("counter");
  ASSERT_LE(counters.size(), 1u);
  uint64_t counted = 0;
  if (!counters.empty()) {
    EXPECT_EQ(counters[0].site.category.value_or(""), format::kRuntimeCategory);
    EXPECT_EQ(counters[0].site.label.value_or(""), format::kUncompressedGenerationsLabel);
    counted = counters[0].Arg("value");
    EXPECT_NE(counted, 0u);
  }
  EXPECT_EQ(uncompressed, counted) << compressed << " generations compressed";
  std::fprintf(stderr, "generations: %zu, %llu compressed before the last, %llu not\n",
               trace->generations.size(), static_cast<unsigned long long>(compressed),
               static_cast<unsigned long long>(uncompressed));
}

// ---- Long strings ---------------------------------------------------------------------------

std::string LongText() {
  std::string text;
  for (int i = 0; text.size() < 100 * 1024; ++i) {
    text.push_back(static_cast<char>('!' + (i * 7 + i / 91) % 90));
  }
  return text;
}

std::string LongJson() {
  std::string json = "[";
  for (int i = 0; json.size() < 100 * 1024; ++i) absl::StrAppend(&json, i == 0 ? "" : ",", i);
  json += "]";
  return json;
}

TEST(RobustnessTest, HundredKiBStringsSurviveWhole) {
  const std::string dir = MakeTempDir("long");
  const std::string text = LongText();
  const std::string json = LongJson();
  ASSERT_GE(text.size(), 100u * 1024);
  ASSERT_GE(json.size(), 100u * 1024);
  const int status = RunInChild(ChildEnv({{"TRACEWIRE", dir}}), [&] {
    tw_initialize();
    tw_data_string("long", TW_NO_REPO, "text", text.c_str());
    tw_data_json("long", TW_NO_REPO, "json", json.c_str());
    tw_printf("%s", text.c_str());
    tw_region_enter_printf("long", "region", TW_NO_REPO, "%s", text.c_str());
    tw_region_leave("long", "region", TW_NO_REPO);
    return 0;
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(dir));
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_TRUE(trace->tail_status.ok()) << trace->tail_status;
  const std::vector<DecodedEvent> data = trace->Events("data");
  ASSERT_EQ(data.size(), 1u);
  EXPECT_TRUE(data[0].Str("value_string") == text) << "data value differs";
  const std::vector<DecodedEvent> json_events = trace->Events("data_json");
  ASSERT_EQ(json_events.size(), 1u);
  EXPECT_TRUE(json_events[0].Str("json_string") == json) << "data_json differs";
  const std::vector<DecodedEvent> printfs = trace->Events("printf");
  ASSERT_EQ(printfs.size(), 1u);
  EXPECT_TRUE(printfs[0].Str("msg_string") == text) << "printf message differs";
  const std::vector<DecodedEvent> enters = trace->Events("region_enter");
  ASSERT_EQ(enters.size(), 1u);
  EXPECT_TRUE(enters[0].Str("msg_string") == text) << "region message differs";
}

// ---- Stacks -----------------------------------------------------------------------------------

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  for (const std::string& n : names) {
    if (n == name) return true;
  }
  return false;
}

TEST(RobustnessTest, StacksPrecedeSelectedEvents) {
  const std::string dir = MakeTempDir("stacks");
  const int status =
      RunInChild(ChildEnv({{"TRACEWIRE", dir}, {"TRACEWIRE_STACKS", "region_enter,error"}}), [] {
        tw_initialize();
        for (int i = 0; i < 4; ++i) TracewireStackTestOuter(i);
        std::thread worker([] {
          tracewire::ThreadScope scope("stacky");
          TracewireStackTestOuter(0);
        });
        worker.join();
        tw_data_intmax("stack", TW_NO_REPO, "plain", 1);
        return 0;
      });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(dir));
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_TRUE(trace->tail_status.ok()) << trace->tail_status;
  std::map<uint64_t, std::vector<DecodedEvent>> by_thread;
  for (const DecodedEvent& e : trace->AllEvents()) by_thread[e.thread].push_back(e);
  ASSERT_EQ(by_thread.size(), 2u);
  int stacked = 0;
  for (const auto& [thread, events] : by_thread) {
    for (size_t i = 0; i < events.size(); ++i) {
      const DecodedEvent& e = events[i];
      const bool wants = e.name == "region_enter" || e.name == "error";
      const bool after_ref = i > 0 && events[i - 1].name == "stack_ref";
      if (e.name == "stack_ref") {
        ASSERT_LT(i + 1, events.size());
        EXPECT_TRUE(events[i + 1].name == "region_enter" || events[i + 1].name == "error")
            << "stack_ref before " << events[i + 1].name;
        EXPECT_TRUE(Contains(e.stack_functions, "TracewireStackTestInner"));
        EXPECT_TRUE(Contains(e.stack_functions, "TracewireStackTestOuter"));
        EXPECT_EQ(e.stack.size(), e.stack_functions.size());
        continue;
      }
      EXPECT_EQ(wants, after_ref) << e.name << " on thread " << thread;
      if (wants) ++stacked;
    }
  }
  // Main: 4 region_enter + 2 errors; worker: 1 region_enter + 1 error.
  EXPECT_EQ(stacked, 8);
  EXPECT_EQ(trace->Events("region_leave").size(), 5u);
}

// ---- Size-based generations ---------------------------------------------------------------------

TEST(RobustnessTest, GenerationsCutBySize) {
  // Enough events for several full batches, each of which can cut a generation.
  constexpr int kEvents = 200000 / (kVolumeDivisor > 1 ? 3 : 1);
  // The cuts a full generation requests are made by the advancer thread: the run is
  // repeated (at most 8 times) until its trace has several generations.
  const absl::StatusOr<DecodedTrace> trace = RecordUntilGenerations(
      {{"TRACEWIRE_GENERATION_BYTES", "65536"}, {"TRACEWIRE_GENERATION_MS", "100000"}}, 4, 8,
      [](int) {
        tw_initialize();
        for (int i = 0; i < kEvents; ++i) {
          tw_data_intmax("size", TW_NO_REPO, "seq", i);
          if (i % (kEvents / 40) == 0) usleep(2000);  // let the advancer catch up now and then
        }
        return 0;
      });
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_TRUE(trace->tail_status.ok()) << trace->tail_status;
  EXPECT_EQ(trace->complete_bytes, trace->total_bytes);
  EXPECT_GE(trace->generations.size(), 4u);
  for (size_t i = 0; i < trace->generations.size(); ++i) {
    const DecodedGeneration& gen = trace->generations[i];
    EXPECT_EQ(gen.gen, i + 1);
    EXPECT_EQ(gen.clock_syncs, 1) << "generation " << gen.gen;
    EXPECT_GT(gen.sync.freq, 0u);
  }
  const std::vector<int64_t> seq = IntValues(*trace, "seq");
  EXPECT_EQ(seq.size(), static_cast<size_t>(kEvents));
  ExpectContiguous(seq);
}

}  // namespace
}  // namespace tracewire::testing
