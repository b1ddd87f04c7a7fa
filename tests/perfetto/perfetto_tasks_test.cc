// Tasks and gauges in the Perfetto export, from hand-built events: each task is a slice on
// one of its process's lanes of tasks of its name (named as the tasks), its segments are slices on
// a track under each thread that worked for it, one flow per task joins the segments begun while it
// was open (started at the first, a step at each later one, terminated at the last, whichever of
// the task's end and its last segment's end comes first), and a gauge is a counter track with the
// unit in its name and CounterDescriptor's unit where Perfetto has one.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "reader/event.h"
#include "reader/targets/formatter.h"
#include "reader/targets/perfetto/perfetto_trace.pb.h"
#include "tests/perfetto/perfetto_checker.h"

namespace tracewire::testing {
namespace {

using reader::Event;
using reader::EventKind;

// An event of `kind` on the main thread of one process, at a fixed time.
Event Ev(EventKind kind) {
  Event e;
  e.kind = kind;
  e.sid = "20261122T020005.811933Z-H0a7c9cdf-P00001c73";
  e.thread_name = "main";
  e.time = absl::FromUnixSeconds(1795312805);
  e.nesting = 1;
  return e;
}

// Events of one process, on threads 0 (main), 1 and 2, one microsecond apart.
class TaskTrace {
 public:
  TaskTrace() : formatter_(*targets::MakeFormatter("perfetto", {})) {}

  void Add(EventKind kind, uint64_t thread, uint64_t task, uint64_t parent = 0) {
    Event e = Ev(kind);
    e.time += absl::Microseconds(++ticks_);
    e.thread_id = thread;
    e.thread_name = thread == 0 ? "main" : thread == 1 ? "th01:worker" : "th02:writer";
    e.task_id = task;
    e.parent_task = parent;
    if (kind == EventKind::kTaskBegin) {
      e.category = "server";
      e.label = "request";
    }
    formatter_->Write(e, &out_);
  }
  void Gauge(const char* unit, int64_t value) {
    Event e = Ev(EventKind::kGauge);
    e.time += absl::Microseconds(++ticks_);
    e.category = "mem";
    e.label = "in use";
    e.unit = unit;
    e.value_int = value;
    formatter_->Write(e, &out_);
  }
  CheckedTrace Check() {
    formatter_->Finish(&out_);
    CheckedTrace t = CheckPerfettoTrace(out_);
    EXPECT_TRUE(t.problems.empty()) << absl::StrJoin(t.problems, "\n");
    return t;
  }
  const std::string& bytes() const { return out_; }

 private:
  std::unique_ptr<targets::Formatter> formatter_;
  std::string out_;
  int ticks_ = 0;
};

// The slices of `t` whose track name ends with `suffix`.
std::vector<CheckedSlice> On(const CheckedTrace& t, const std::string& suffix) {
  std::vector<CheckedSlice> slices;
  for (const CheckedSlice& s : t.slices) {
    if (s.track.size() >= suffix.size() &&
        s.track.compare(s.track.size() - suffix.size(), suffix.size(), suffix) == 0) {
      slices.push_back(s);
    }
  }
  return slices;
}

TEST(PerfettoTasksTest, FlowEndsAtTheLastSegmentWhenTheTaskEndsAfterIt) {
  TaskTrace trace;
  trace.Add(EventKind::kTaskBegin, 0, 7);
  trace.Add(EventKind::kTaskAdopt, 0, 7);
  trace.Add(EventKind::kTaskRelease, 0, 0);
  trace.Add(EventKind::kTaskAdopt, 1, 7);
  trace.Add(EventKind::kTaskRelease, 1, 0);
  trace.Add(EventKind::kTaskAdopt, 2, 7);
  trace.Add(EventKind::kTaskRelease, 2, 0);
  trace.Add(EventKind::kTaskEnd, 0, 7);  // after every segment has ended
  const CheckedTrace t = trace.Check();
  const std::vector<CheckedSlice> tasks = On(t, "/request");
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].name, "request");
  EXPECT_EQ(tasks[0].category, "server");
  EXPECT_EQ(tasks[0].args.at("task"), "7");
  EXPECT_EQ(On(t, "main tasks").size(), 1u);
  EXPECT_EQ(On(t, "th01:worker tasks").size(), 1u);
  EXPECT_EQ(On(t, "th02:writer tasks").size(), 1u);
  ASSERT_EQ(t.flow_events.size(), 1u);
  EXPECT_EQ(t.flow_events.begin()->second, 3u);  // start, step, end
}

TEST(PerfettoTasksTest, FlowEndsAtTheLastSegmentWhenTheTaskEndsInIt) {
  TaskTrace trace;
  trace.Add(EventKind::kTaskBegin, 0, 7);
  trace.Add(EventKind::kTaskAdopt, 1, 7);
  trace.Add(EventKind::kTaskAdopt, 2, 7);  // thread 1 still works for it
  trace.Add(EventKind::kTaskEnd, 2, 7);
  trace.Add(EventKind::kTaskRelease, 2, 0);
  trace.Add(EventKind::kTaskRelease, 1, 0);
  const CheckedTrace t = trace.Check();
  ASSERT_EQ(t.flow_events.size(), 1u);
  EXPECT_EQ(t.flow_events.begin()->second, 2u);
}

TEST(PerfettoTasksTest, OneSegmentHasNoFlowAndALateSegmentIsNamedByItsId) {
  TaskTrace trace;
  trace.Add(EventKind::kTaskBegin, 0, 7, 3);
  trace.Add(EventKind::kTaskAdopt, 1, 7);
  trace.Add(EventKind::kTaskRelease, 1, 0);
  trace.Add(EventKind::kTaskEnd, 0, 7);
  trace.Add(EventKind::kTaskAdopt, 2, 7);  // after its end
  trace.Add(EventKind::kTaskRelease, 2, 0);
  trace.Add(EventKind::kTaskAdopt, 2, 9);  // never began in the trace; open at the end
  const CheckedTrace t = trace.Check();
  EXPECT_TRUE(t.flow_events.empty());
  EXPECT_EQ(On(t, "/request")[0].args.at("parent"), "3");
  const std::vector<CheckedSlice> late = On(t, "th02:writer tasks");
  ASSERT_EQ(late.size(), 2u);
  EXPECT_EQ(late[0].name, "task 7");
  EXPECT_EQ(late[1].name, "task 9");
}

TEST(PerfettoTasksTest, AnIdBegunAgainKeepsTheOldRunsFlow) {
  TaskTrace trace;
  trace.Add(EventKind::kTaskBegin, 0, 7);
  trace.Add(EventKind::kTaskAdopt, 1, 7);
  trace.Add(EventKind::kTaskAdopt, 2, 7);
  trace.Add(EventKind::kTaskEnd, 0, 7);
  trace.Add(EventKind::kTaskBegin, 0, 7);    // while both stops of the first run are open
  trace.Add(EventKind::kTaskRelease, 1, 0);  // the first run's step
  trace.Add(EventKind::kTaskRelease, 2, 0);  // and its end
  trace.Add(EventKind::kTaskAdopt, 1, 7);    // the second run's only stop
  trace.Add(EventKind::kTaskRelease, 1, 0);
  trace.Add(EventKind::kTaskEnd, 0, 7);
  const CheckedTrace t = trace.Check();
  EXPECT_EQ(On(t, "/request").size(), 2u);
  ASSERT_EQ(t.flow_events.size(), 1u);
  EXPECT_EQ(t.flow_events.begin()->second, 2u);
}

TEST(PerfettoTasksTest, OverlappingTasksTakeLanes) {
  TaskTrace trace;
  trace.Add(EventKind::kTaskBegin, 0, 1);
  trace.Add(EventKind::kTaskBegin, 0, 2);
  trace.Add(EventKind::kTaskEnd, 0, 1);
  trace.Add(EventKind::kTaskBegin, 0, 3);  // lane 1 is free again
  trace.Add(EventKind::kTaskEnd, 0, 2);
  trace.Add(EventKind::kTaskEnd, 0, 3);
  const CheckedTrace t = trace.Check();
  // Two lanes (the tasks' real concurrency), both named as the tasks: 1 and 3 on one.
  const std::vector<CheckedSlice> tasks = On(t, "/request");
  ASSERT_EQ(tasks.size(), 3u);
  std::map<uint64_t, std::vector<std::string>> lanes;
  for (const CheckedSlice& s : tasks) lanes[s.track_uuid].push_back(s.args.at("task"));
  ASSERT_EQ(lanes.size(), 2u);
  std::set<std::vector<std::string>> by_lane;
  for (auto& [uuid, ids] : lanes) {
    std::sort(ids.begin(), ids.end());
    by_lane.insert(ids);
  }
  EXPECT_EQ(by_lane, (std::set<std::vector<std::string>>{{"1", "3"}, {"2"}}));
}

TEST(PerfettoTasksTest, GaugeIsACounterTrackWithItsUnit) {
  TaskTrace trace;
  trace.Gauge("bytes", 4096);
  trace.Gauge("bytes", -1);
  const CheckedTrace t = trace.Check();
  ASSERT_EQ(t.counters.size(), 2u);
  EXPECT_EQ(t.counters[0].value, 4096);
  EXPECT_EQ(t.counters[1].value, -1);
  EXPECT_EQ(t.counters[0].track.substr(t.counters[0].track.find('/')), "/mem/in use (bytes)");
  perfetto::Trace parsed;
  ASSERT_TRUE(parsed.ParseFromString(trace.bytes()));
  int counter_tracks = 0;
  for (const perfetto::TracePacket& p : parsed.packet()) {
    if (!p.has_track_descriptor() || !p.track_descriptor().has_counter()) continue;
    ++counter_tracks;
    EXPECT_EQ(p.track_descriptor().counter().unit(), perfetto::CounterDescriptor::UNIT_SIZE_BYTES);
    ASSERT_EQ(p.track_descriptor().counter().categories_size(), 1);
    EXPECT_EQ(p.track_descriptor().counter().categories(0), "mem");
  }
  EXPECT_EQ(counter_tracks, 1);
}

}  // namespace
}  // namespace tracewire::testing
