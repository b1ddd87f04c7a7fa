// BuildTimeline against synthetic Trace2 streams whose wall-clock "time" values disagree
// with their monotonic times by up to ±100 µs (as git's, read late by each target under
// load, do): every time the stream states (t_abs, and the t_rel of region_leave, data and
// thread_exit) must come out exact, whatever the skew.
#include "tools/trace2_import/import_timeline.h"

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace tracewire::tools {
namespace {

using format::EventType;

constexpr int64_t kWallOrigin = 1'700'000'000'000'000;  // Unix µs of the process start

// A synthetic stream: the events as the importer sees them, plus the truth to check.
struct Stream {
  std::vector<TimelineEvent> events;
  std::vector<int64_t> truth;  // per event: its real monotonic time (µs)
  // Per event: for a region_leave its region_enter; for a data event its region_enter, or
  // kThreadStartAnchor (the start of its thread); for a thread_exit its thread_start.
  std::vector<int> anchor;
  std::vector<std::string> thread_names = {"main"};
};

constexpr int kNoAnchor = -1;
constexpr int kThreadStartAnchor = -2;

// Builds a stream event by event, tracking each thread's open regions.
class StreamBuilder {
 public:
  explicit StreamBuilder(Stream* stream) : stream_(*stream) { stacks_.resize(1); }

  uint32_t AddThread(const std::string& name) {
    stream_.thread_names.push_back(name);
    stacks_.emplace_back();
    thread_start_.push_back(-1);
    return static_cast<uint32_t>(stream_.thread_names.size() - 1);
  }

  // Events at real time `t` whose "time" is `t + skew` on the wall clock.
  void Exact(uint32_t thread, EventType type, int64_t t, int64_t skew) {
    Add(thread, type, t, skew, t, std::nullopt, std::nullopt, kNoAnchor);
  }
  void Floating(uint32_t thread, EventType type, int64_t t, int64_t skew) {
    Add(thread, type, t, skew, std::nullopt, std::nullopt, std::nullopt, kNoAnchor);
  }
  void Enter(uint32_t thread, int64_t t, int64_t skew) {
    const int nesting = 1 + static_cast<int>(stacks_[thread].size());
    stacks_[thread].push_back(static_cast<int>(stream_.events.size()));
    Add(thread, EventType::kRegionEnter, t, skew, std::nullopt, std::nullopt, nesting, kNoAnchor);
  }
  void Leave(uint32_t thread, int64_t t, int64_t skew) {
    const int enter = stacks_[thread].back();
    stacks_[thread].pop_back();
    const int nesting = 1 + static_cast<int>(stacks_[thread].size());
    Add(thread, EventType::kRegionLeave, t, skew, std::nullopt, t - stream_.truth[enter], nesting,
        enter);
  }
  void Data(uint32_t thread, int64_t t, int64_t skew) {
    const std::vector<int>& stack = stacks_[thread];
    const int nesting = 1 + static_cast<int>(stack.size());
    const int64_t begin = stack.empty() ? ThreadStart(thread) : stream_.truth[stack.back()];
    Add(thread, EventType::kData, t, skew, t, t - begin, nesting,
        stack.empty() ? kThreadStartAnchor : stack.back());
  }
  void ThreadStart(uint32_t thread, int64_t t, int64_t skew) {
    thread_start_[thread - 1] = static_cast<int>(stream_.events.size());
    Floating(thread, EventType::kThreadStart, t, skew);
  }
  void ThreadExit(uint32_t thread, int64_t t, int64_t skew) {
    stacks_[thread].clear();
    Add(thread, EventType::kThreadExit, t, skew, std::nullopt, t - ThreadStart(thread),
        std::nullopt, thread_start_[thread - 1]);
  }
  size_t Depth(uint32_t thread) const { return stacks_[thread].size(); }

 private:
  int64_t ThreadStart(uint32_t thread) const {
    return thread == 0 ? 0 : stream_.truth[thread_start_[thread - 1]];
  }
  void Add(uint32_t thread, EventType type, int64_t t, int64_t skew, std::optional<int64_t> t_abs,
           std::optional<int64_t> t_rel, std::optional<int> nesting, int anchor) {
    const int line = static_cast<int>(stream_.events.size()) + 1;
    stream_.events.push_back(
        TimelineEvent{line, type, thread, kWallOrigin + t + skew, t_abs, t_rel, nesting});
    stream_.truth.push_back(t);
    stream_.anchor.push_back(anchor);
  }

  Stream& stream_;
  std::vector<std::vector<int>> stacks_;
  std::vector<int> thread_start_;
};

// Checks every time the stream states, and that each thread's times never go backwards.
void ExpectStatedTimesExact(const Stream& stream, const Timeline& timeline) {
  ASSERT_EQ(timeline.micros.size(), stream.events.size());
  std::vector<int64_t> last(stream.thread_names.size(), 0);
  for (size_t i = 0; i < stream.events.size(); ++i) {
    const TimelineEvent& e = stream.events[i];
    const std::string where = absl::StrCat("line ", e.line_number);
    const int64_t at = timeline.micros[i];
    EXPECT_GE(at, last[e.thread]) << where << ": the thread's time goes backwards";
    last[e.thread] = at;
    if (e.t_abs_us.has_value()) EXPECT_EQ(at, *e.t_abs_us) << where << ": t_abs";
    if (!e.t_rel_us.has_value()) continue;
    const int anchor = stream.anchor[i];
    int64_t begin = 0;
    if (anchor >= 0) {
      begin = timeline.micros[anchor];
    } else if (anchor == kThreadStartAnchor) {
      begin = timeline.thread_start[e.thread];
    }
    EXPECT_EQ(at - begin, *e.t_rel_us) << where << ": t_rel";
  }
}

// Builds the timeline of `stream` and checks it with ExpectStatedTimesExact.
void ExpectTimelineKeepsStatedTimes(const Stream& stream) {
  absl::StatusOr<Timeline> timeline = BuildTimeline(stream.events, stream.thread_names);
  ASSERT_TRUE(timeline.ok()) << timeline.status();
  ExpectStatedTimesExact(stream, *timeline);
}

// The case seen with `git status` under load: two floating regions in a row between two
// exact events with no slack, all read late on the wall clock. Placing the first region
// by its late wall time alone leaves no room for the second, which then stretched the
// enclosing region.
TEST(ImportTimelineTest, SiblingFloatingRegionsInsideAFloatingRegionKeepTheirDurations) {
  Stream stream;
  StreamBuilder b(&stream);
  b.Exact(0, EventType::kStart, 100, 0);
  b.Data(0, 200, 0);
  b.Enter(0, 290, 100);  // outer, 48 µs
  b.Enter(0, 300, 100);  // first, 30 µs
  b.Leave(0, 330, 100);
  b.Enter(0, 332, 100);  // second, 5 µs
  b.Leave(0, 337, 100);
  b.Leave(0, 338, 100);
  b.Data(0, 340, 0);
  b.Exact(0, EventType::kExit, 400, 0);
  ExpectTimelineKeepsStatedTimes(stream);
}

// The same without the enclosing region: the second region must not push the exact event
// after it.
TEST(ImportTimelineTest, FloatingRegionsBetweenExactEventsKeepTheExactTimes) {
  Stream stream;
  StreamBuilder b(&stream);
  b.Data(0, 200, 0);
  b.Enter(0, 300, 100);
  b.Leave(0, 330, 100);
  b.Enter(0, 332, -100);
  b.Leave(0, 337, 100);
  b.Data(0, 340, 0);
  ExpectTimelineKeepsStatedTimes(stream);
}

// A worker thread whose floating regions are read early: they must not start before the
// thread, and the thread's t_rel must hold.
TEST(ImportTimelineTest, EarlyWallTimesInAThreadKeepItsDuration) {
  Stream stream;
  StreamBuilder b(&stream);
  b.Exact(0, EventType::kStart, 10, 0);
  const uint32_t worker = b.AddThread("th01:worker");
  b.ThreadStart(worker, 50, 0);
  b.Enter(worker, 51, -100);
  b.Enter(worker, 52, -100);
  b.Leave(worker, 60, -100);
  b.Leave(worker, 61, -100);
  b.Data(worker, 62, 0);
  b.ThreadExit(worker, 70, 100);
  b.Exact(0, EventType::kExit, 80, 0);
  ExpectTimelineKeepsStatedTimes(stream);
}

// Random nested regions, data, floating events and a worker thread, with each wall time
// skewed independently by up to ±100 µs (and, in half the seeds, all late or all early in
// runs, the pattern that defeats placing events by wall time).
TEST(ImportTimelineTest, RandomStreamsWithSkewedWallTimesKeepEveryStatedTime) {
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    std::mt19937 random(seed);
    auto uniform = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(random);
    };
    int64_t run_skew = 100;
    auto skew = [&]() {
      if (seed % 2 == 0) return uniform(-100, 100);
      if (uniform(0, 7) == 0) run_skew = -run_skew;
      return run_skew;
    };
    Stream stream;
    StreamBuilder b(&stream);
    const uint32_t worker = b.AddThread("th01:worker");
    int64_t now = 0;
    b.Exact(0, EventType::kStart, now += uniform(0, 50), 0);
    bool worker_started = false, worker_done = false;
    for (int step = 0; step < 120; ++step) {
      now += uniform(0, 12);
      uint32_t t = 0;
      if (!worker_done && uniform(0, 2) == 0) {
        t = worker;
        if (!worker_started) {
          worker_started = true;
          b.ThreadStart(worker, now, skew());
          continue;
        }
        if (step > 100) {
          worker_done = true;
          b.ThreadExit(worker, now, skew());
          continue;
        }
      }
      switch (uniform(0, 5)) {
        case 0:
        case 1:
          if (b.Depth(t) < 6) b.Enter(t, now, skew());
          break;
        case 2:
        case 3:
          if (b.Depth(t) > 0) b.Leave(t, now, skew());
          break;
        case 4:
          b.Data(t, now, skew() / 4);
          break;
        default:
          b.Floating(t, EventType::kDefParam, now, skew());
          break;
      }
    }
    while (b.Depth(0) > 0) b.Leave(0, now += uniform(0, 5), skew());
    if (worker_started && !worker_done) b.ThreadExit(worker, now += uniform(0, 5), skew());
    b.Exact(0, EventType::kExit, now += uniform(0, 5), 0);
    ExpectTimelineKeepsStatedTimes(stream);
    if (::testing::Test::HasFailure()) break;
  }
}

}  // namespace
}  // namespace tracewire::tools
