// The CPU profile (TRACEWIRE_CPU_PROFILE): samples follow the CPU time each thread uses,
// fall inside the regions open when they were taken, on the right threads; an idle thread
// gets none; samples survive a flight-recorder dump, a fork and threads that exit while
// sampled; code without frame pointers does not crash the sampler. The traces are read with
// format/'s decoder; function names come from the runtime's dladdr names (-rdynamic).
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "format/event_spec.h"
#include "format/varint.h"
#include "gtest/gtest.h"
#include "tests/runtime/trace_file.h"
#include "tests/runtime/traced_child.h"
#include "tracewire/tracewire.h"

extern "C" void tw_test_spin_with_garbage_frame_pointer(uint64_t iterations);

namespace {

double ThreadCpuSeconds() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec + now.tv_nsec / 1e9;
}

std::atomic<uint64_t> g_sink{0};

// Pure computation: `rounds` steps of a linear congruential sequence, inlined, so that the
// burning functions below are the interrupted functions of their samples (a leaf function
// without a frame of its own would hide its caller from a frame-pointer walk).
inline __attribute__((always_inline)) uint64_t Spin(uint64_t rounds, uint64_t x) {
  for (uint64_t i = 0; i < rounds; ++i) x = x * 6364136223846793005u + 1442695040888963407u;
  return x;
}

}  // namespace

// Exported (-rdynamic), so the runtime names them in the trace's stack records.
extern "C" __attribute__((noinline)) void TwTestBurnHeavy(double cpu_seconds) {
  const double end = ThreadCpuSeconds() + cpu_seconds;
  uint64_t x = 1;
  while (ThreadCpuSeconds() < end) x = Spin(2000000, x);
  g_sink += x;
}

// Recurses `depth` frames deep, then burns `cpu_seconds` of CPU time: samples taken there
// are records of about `depth` words.
extern "C" __attribute__((noinline)) void TwTestDeep(int depth, double cpu_seconds) {
  if (depth <= 1) {
    TwTestBurnHeavy(cpu_seconds);
  } else {
    TwTestDeep(depth - 1, cpu_seconds);
  }
  g_sink += static_cast<uint64_t>(depth);  // not a tail call: every frame stays
}

extern "C" __attribute__((noinline)) void TwTestBurnLight(double cpu_seconds) {
  const double end = ThreadCpuSeconds() + cpu_seconds;
  uint64_t x = 2;
  while (ThreadCpuSeconds() < end) x = Spin(2000000, x);
  g_sink += x;
}

namespace tracewire::testing {
namespace {

using format::EventType;

// The kernel runs CPU-time timers at its scheduler tick (CONFIG_HZ, 250 on common
// kernels): a higher rate gives no more samples than ticks.
constexpr char kProfileHz[] = "250";

std::map<std::string, std::string> ProfileEnv(const std::string& dir,
                                              std::map<std::string, std::string> more = {}) {
  more["TRACEWIRE"] = dir;
  more["TRACEWIRE_CPU_PROFILE"] = kProfileHz;
  return ChildEnv(more);
}

bool StackHas(const DecodedEvent& e, absl::string_view function) {
  for (const std::string& name : e.stack_functions) {
    if (name == function) return true;
  }
  return false;
}

// A sample and the labels of the regions open on its thread when it was taken, outermost
// first, as the thread's events in the trace say (re-statements included).
struct AttributedSample {
  DecodedEvent sample;
  std::vector<std::string> regions;
};

struct ProfileView {
  std::vector<AttributedSample> samples;
  uint64_t lost = 0;
  std::map<uint64_t, std::string> thread_names;  // thread number -> name
  // Events after thread_exit on their thread in the same generation (must be none).
  int after_exit = 0;
  // The CPU time a thread reported with tw_data_intmax(.., "thread_cpu_ns", ..), by name.
  std::map<std::string, int64_t> reported_cpu_ns;
};

ProfileView ViewProfile(const DecodedTrace& trace) {
  ProfileView view;
  for (const DecodedGeneration& gen : trace.generations) {
    std::map<uint64_t, std::vector<std::string>> open;
    std::map<uint64_t, bool> exited;
    for (const DecodedEvent& e : gen.events) {
      std::vector<std::string>& regions = open[e.thread];
      if (exited[e.thread]) ++view.after_exit;
      switch (e.type) {
        case EventType::kThreadStatus:
          regions.clear();
          if (auto name = e.Str("name_string")) view.thread_names[e.thread] = *name;
          break;
        case EventType::kThreadStart:
          if (auto name = e.Str("name_string")) view.thread_names[e.thread] = *name;
          break;
        case EventType::kRegionActive:
        case EventType::kRegionEnter:
          regions.push_back(e.site.label.value_or(""));
          break;
        case EventType::kRegionLeave:
          if (!regions.empty()) regions.pop_back();
          break;
        case EventType::kThreadExit:
          exited[e.thread] = true;
          break;
        case EventType::kCpuSample:
          view.samples.push_back({e, regions});
          break;
        case EventType::kCpuSamplesLost:
          view.lost += e.Arg("count");
          break;
        case EventType::kDataInt:
          if (e.site.label == "thread_cpu_ns") {
            view.reported_cpu_ns[view.thread_names[e.thread]] =
                format::ZigzagDecode(e.Arg("value"));
          }
          break;
        default:
          break;
      }
    }
  }
  return view;
}

DecodedTrace ReadOnlyTrace(const std::string& dir) {
  const std::string file = OnlyFileIn(dir);
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(file);
  EXPECT_TRUE(trace.ok()) << trace.status();
  if (!trace.ok()) return {};
  EXPECT_TRUE(trace->tail_status.ok()) << trace->tail_status;
  return *std::move(trace);
}

// Two threads burn CPU 3:1 inside two regions while a third sleeps inside its own.
TEST(CpuProfileTest, SamplesFollowCpuTimeRegionsAndThreads) {
  const std::string dir = MakeTempDir("cpu_profile_ratio");
  const int status = RunInChild(ProfileEnv(dir), [] {
    tw_initialize();
    std::thread heavy([] {
      tw_thread_start("heavy");
      tw_region_enter("prof", "heavy", TW_NO_REPO);
      TwTestBurnHeavy(0.6);
      tw_region_leave("prof", "heavy", TW_NO_REPO);
      tw_thread_exit();
    });
    std::thread light([] {
      tw_thread_start("light");
      tw_region_enter("prof", "light", TW_NO_REPO);
      TwTestBurnLight(0.2);
      tw_region_leave("prof", "light", TW_NO_REPO);
      tw_thread_exit();
    });
    std::thread idle([] {
      tw_thread_start("idle");
      tw_region_enter("prof", "idle", TW_NO_REPO);
      usleep(300 * 1000);
      // What the thread used, start-up included (a loaded, sanitized run uses a few ms).
      tw_data_intmax("prof", TW_NO_REPO, "thread_cpu_ns",
                     static_cast<intmax_t>(ThreadCpuSeconds() * 1e9));
      tw_region_leave("prof", "idle", TW_NO_REPO);
      tw_thread_exit();
    });
    heavy.join();
    light.join();
    idle.join();
    return tw_cmd_exit(0);
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  ProfileView view = ViewProfile(ReadOnlyTrace(dir));
  EXPECT_EQ(view.lost, 0u);
  EXPECT_EQ(view.after_exit, 0);
  std::map<std::string, int> per_function;
  std::map<std::string, int> per_thread;
  for (const AttributedSample& s : view.samples) {
    const std::string thread = view.thread_names[s.sample.thread];
    const int weight = static_cast<int>(s.sample.Arg("weight"));
    EXPECT_GE(weight, 1);
    per_thread[thread] += weight;
    struct Burner {
      std::string function, region;
    };
    for (const Burner& b :
         {Burner{"TwTestBurnHeavy", "heavy"}, Burner{"TwTestBurnLight", "light"}}) {
      if (!StackHas(s.sample, b.function)) continue;
      per_function[b.function] += weight;
      // Every sample of the function lies inside its region, on its thread ("thNN:heavy").
      EXPECT_EQ(s.regions, std::vector<std::string>{b.region}) << b.function;
      EXPECT_TRUE(absl::EndsWith(thread, ":" + b.region)) << b.function << " on " << thread;
    }
  }
  const int heavy = per_function["TwTestBurnHeavy"];
  const int light = per_function["TwTestBurnLight"];
  // 0.6 s and 0.2 s of CPU at 250 Hz: about 150 and 50 samples.
  EXPECT_GT(light, 30);
  EXPECT_GT(heavy, 90);
  const double ratio = static_cast<double>(heavy) / std::max(light, 1);
  EXPECT_GE(ratio, 3 * 0.85) << heavy << " / " << light;
  EXPECT_LE(ratio, 3 * 1.15) << heavy << " / " << light;
  // The sleeping thread is sampled by the CPU it used, not by its 300 ms asleep (75
  // samples at 250 Hz): at most one sample per 4 ms it reported, and one more for what it
  // used after reporting (leaving its region and exiting).
  bool idle_seen = false;
  for (const auto& [thread, cpu_ns] : view.reported_cpu_ns) {
    if (!absl::EndsWith(thread, ":idle")) continue;
    idle_seen = true;
    const int64_t period_ns = 1'000'000'000 / 250;
    EXPECT_LE(per_thread[thread], cpu_ns / period_ns + 1)
        << per_thread[thread] << " samples on " << thread << ", which used " << cpu_ns << " ns";
  }
  EXPECT_TRUE(idle_seen) << "the idle thread's CPU time is in the trace";
}

// A thread that never records an event while it burns still has its samples written, by
// the background thread at each generation cut, inside the region it is in.
TEST(CpuProfileTest, SilentThreadIsDrainedAtGenerationCuts) {
  // The cuts are made by the background thread, which a busy machine can starve for a
  // whole burn: the program runs again, burning twice as long, until its samples span
  // several generations (at most 4 runs, a bound on hangs only).
  std::set<uint64_t> generations_with_samples;
  int burning = 0;
  for (double seconds = 0.3; seconds < 3; seconds *= 2) {
    const std::string dir = MakeTempDir("cpu_profile_silent");
    const int status = RunInChild(ProfileEnv(dir, {{"TRACEWIRE_GENERATION_MS", "50"}}), [seconds] {
      tw_initialize();
      tw_region_enter("prof", "silent", TW_NO_REPO);
      TwTestBurnHeavy(seconds);
      tw_region_leave("prof", "silent", TW_NO_REPO);
      return tw_cmd_exit(0);
    });
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    const DecodedTrace trace = ReadOnlyTrace(dir);
    const ProfileView view = ViewProfile(trace);
    generations_with_samples.clear();
    burning = 0;
    for (const AttributedSample& s : view.samples) {
      if (!StackHas(s.sample, "TwTestBurnHeavy")) continue;
      ++burning;
      generations_with_samples.insert(s.sample.gen);
      EXPECT_EQ(s.regions, std::vector<std::string>{"silent"});
    }
    if (generations_with_samples.size() >= 3) break;
  }
  EXPECT_GT(burning, 40);  // 0.3 s at 250 Hz: about 75
  // 0.3 s in 50 ms generations: the samples are spread over several.
  EXPECT_GE(generations_with_samples.size(), 3u);
}

// A silent thread's ring is filled by its handler and drained by the background thread at
// each generation cut: over 1.5 s of CPU time in a 60-frame stack (records of about 65
// words) the ring (4096 words at 250 Hz and 50 ms generations) is reused several times.
// Every sample keeps its whole stack (a record overwritten while it was read would not).
// Under ThreadSanitizer, the reuse of the words is ordered by the drain's release of the
// ring's tail to the handler's acquire.
TEST(CpuProfileTest, SilentThreadsRingIsReusedWhileAnotherThreadDrainsIt) {
  constexpr int kDepth = 60;
  // A busy machine can starve the background thread's cuts for much of the burn: the
  // program runs again, burning twice as long, until the samples span several generations
  // (at most 3 runs, a bound on hangs only).
  int samples = 0;
  uint64_t words = 0;  // what the samples took in the ring: 3 words and their frames
  std::set<uint64_t> generations;
  for (double seconds = 1.5; seconds < 7; seconds *= 2) {
    const std::string dir = MakeTempDir("cpu_profile_reuse");
    const int status = RunInChild(ProfileEnv(dir, {{"TRACEWIRE_GENERATION_MS", "50"}}), [seconds] {
      tw_initialize();
      std::thread deep([seconds] {
        tw_thread_start("deep");
        tw_region_enter("prof", "deep", TW_NO_REPO);
        TwTestDeep(kDepth, seconds);
        tw_region_leave("prof", "deep", TW_NO_REPO);
        tw_thread_exit();
      });
      deep.join();
      return tw_cmd_exit(0);
    });
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    const ProfileView view = ViewProfile(ReadOnlyTrace(dir));
    samples = 0;
    words = 0;
    generations.clear();
    for (const AttributedSample& s : view.samples) {
      const std::vector<std::string>& frames = s.sample.stack_functions;
      const int deep_frames =
          static_cast<int>(std::count(frames.begin(), frames.end(), "TwTestDeep"));
      if (deep_frames == 0) continue;
      ++samples;
      words += 3 + frames.size();
      generations.insert(s.sample.gen);
      EXPECT_GE(deep_frames, kDepth - 1) << "a sample lost part of its stack";
      EXPECT_EQ(s.regions, std::vector<std::string>{"deep"});
    }
    if (words > 4096 && generations.size() >= 3) break;
  }
  RecordProperty("samples", samples);
  EXPECT_GT(words, 4096u) << samples << " samples: the ring was not reused";
  EXPECT_GE(generations.size(), 3u);
}

// The samples are in a flight-recorder dump, inside their region.
TEST(CpuProfileTest, SamplesSurviveAFlightRecorderDump) {
  const std::string dir = MakeTempDir("cpu_profile_flight");
  const int status = RunInChild(ProfileEnv(dir, {{"TRACEWIRE_FLIGHT_RECORDER", "16M"}}), [] {
    tw_initialize();
    tw_region_enter("prof", "before_dump", TW_NO_REPO);
    TwTestBurnHeavy(0.2);
    const int dumped = tw_flight_recorder_dump();
    tw_region_leave("prof", "before_dump", TW_NO_REPO);
    return dumped == 0 ? 0 : 3;
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const ProfileView view = ViewProfile(ReadOnlyTrace(dir));
  int burning = 0;
  for (const AttributedSample& s : view.samples) {
    if (!StackHas(s.sample, "TwTestBurnHeavy")) continue;
    ++burning;
    EXPECT_EQ(s.regions, std::vector<std::string>{"before_dump"});
  }
  EXPECT_GT(burning, 25);  // 0.2 s at 250 Hz: about 50
}

// A forked child burns CPU: it takes no sample (timers are not inherited), is not killed by
// SIGPROF, and writes nothing; the parent's samples are its own.
TEST(CpuProfileTest, ForkedChildTakesNoSamples) {
  const std::string dir = MakeTempDir("cpu_profile_fork");
  const int status = RunInChild(ProfileEnv(dir), [] {
    tw_initialize();
    tw_region_enter("prof", "parent", TW_NO_REPO);
    TwTestBurnHeavy(0.1);
    const pid_t child = fork();
    if (child == 0) {
      TwTestBurnLight(0.2);
      tw_region_enter("prof", "child", TW_NO_REPO);
      exit(0);
    }
    int child_status = 0;
    waitpid(child, &child_status, 0);
    TwTestBurnHeavy(0.1);
    tw_region_leave("prof", "parent", TW_NO_REPO);
    if (!WIFEXITED(child_status) || WEXITSTATUS(child_status) != 0) return 4;
    return tw_cmd_exit(0);
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const ProfileView view = ViewProfile(ReadOnlyTrace(dir));  // one file: the parent's
  int heavy = 0;
  for (const AttributedSample& s : view.samples) {
    EXPECT_FALSE(StackHas(s.sample, "TwTestBurnLight"));
    if (!StackHas(s.sample, "TwTestBurnHeavy")) continue;  // e.g. inside tw_initialize
    ++heavy;
    EXPECT_EQ(s.regions, std::vector<std::string>{"parent"});
  }
  EXPECT_GT(heavy, 25);  // 0.2 s at 250 Hz: about 50
}

// Threads exit while their timers run, with tw_thread_exit and without: every sample is
// written before its thread's exit, and the process ends normally.
TEST(CpuProfileTest, ThreadsExitWhileSampled) {
  const std::string dir = MakeTempDir("cpu_profile_exit");
  const int status = RunInChild(ProfileEnv(dir, {{"TRACEWIRE_GENERATION_MS", "20"}}), [] {
    tw_initialize();
    for (int round = 0; round < 3; ++round) {
      std::vector<std::thread> threads;
      for (int i = 0; i < 6; ++i) {
        threads.emplace_back([i] {
          tw_thread_start("burner");
          tw_region_enter("prof", "burn", TW_NO_REPO);
          TwTestBurnLight(0.05);
          if (i % 2 == 0) tw_thread_exit();  // the others end without it
        });
      }
      for (std::thread& t : threads) t.join();
    }
    return tw_cmd_exit(0);
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const ProfileView view = ViewProfile(ReadOnlyTrace(dir));
  EXPECT_EQ(view.after_exit, 0);
  int burning = 0;
  for (const AttributedSample& s : view.samples) {
    if (!StackHas(s.sample, "TwTestBurnLight")) continue;
    burning += static_cast<int>(s.sample.Arg("weight"));
    EXPECT_EQ(s.regions, std::vector<std::string>{"burn"});
  }
  // 18 threads × 50 ms at 250 Hz: about 225 periods natively (where 20 ms per thread gave
  // 70-80 of 90); under qemu-user, a third as many were seen (33 of 90 with 20 ms per
  // thread). More than a fifth: samples are taken and kept while threads come and go.
  EXPECT_GT(burning, 45);
}

#if defined(__x86_64__) || defined(__aarch64__)
// Code that leaves garbage in the frame-pointer register is sampled without a crash; its
// samples name at least the interrupted function.
TEST(CpuProfileTest, CodeWithoutFramePointersDoesNotCrash) {
  const std::string dir = MakeTempDir("cpu_profile_no_fp");
  const int status = RunInChild(ProfileEnv(dir, {{"TRACEWIRE_CPU_PROFILE", "10000"}}), [] {
    tw_initialize();
    tw_region_enter("prof", "no_fp", TW_NO_REPO);
    const double end = ThreadCpuSeconds() + 0.3;
    while (ThreadCpuSeconds() < end) tw_test_spin_with_garbage_frame_pointer(2000);
    tw_region_leave("prof", "no_fp", TW_NO_REPO);
    return tw_cmd_exit(0);
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const ProfileView view = ViewProfile(ReadOnlyTrace(dir));
  int in_spin = 0;
  for (const AttributedSample& s : view.samples) {
    ASSERT_FALSE(s.sample.stack.empty());
    ASSERT_LE(s.sample.stack.size(), format::kMaxFramesPerStack);
    if (s.sample.stack_functions[0] == "tw_test_spin_with_garbage_frame_pointer") ++in_spin;
  }
  EXPECT_GT(in_spin, 40);  // 0.3 s at the tick rate (250 Hz): about 75
}
#endif

// A program's own SIGPROF handler wins: the profile is off, with a warning, and the
// program's handler keeps working.
TEST(CpuProfileTest, ProgramSigprofHandlerTurnsTheProfileOff) {
  const std::string dir = MakeTempDir("cpu_profile_own_handler");
  const std::string err = dir + "/../cpu_profile_own_handler.stderr";
  const int status = RunInChild(ProfileEnv(dir), [&] {
    StderrTo(err);
    signal(SIGPROF, [](int) {});
    tw_initialize();
    TwTestBurnHeavy(0.05);
    return tw_cmd_exit(0);
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_TRUE(ViewProfile(ReadOnlyTrace(dir)).samples.empty());
  EXPECT_TRUE(absl::StrContains(ReadFile(err), "SIGPROF has a handler already"));
}

}  // namespace
}  // namespace tracewire::testing
