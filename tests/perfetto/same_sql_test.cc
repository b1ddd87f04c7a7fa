// One SQL for both: the same query text, run by Perfetto's own trace processor on the
// Perfetto export of a trace (`tracewire decode --format=perfetto`) and by `tracewire
// query` on the trace itself, gives the same rows. The queries use the tables both have —
// process, thread, slice, thread_track, process_track, track, flow, counter, counter_track,
// process_counter_track, perf_sample, stack_profile_callsite, stack_profile_frame,
// stack_profile_mapping, args — and their common joins, and compare what does not depend on how
// each numbers its rows: names, pids, times, durations, depths, counts and joins' results.
// docs/cli.md's comparison with the trace processor says what this proves.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "tests/export/export_support.h"
#include "tests/perfetto/trace_processor.h"

namespace tracewire::testing {
namespace {

const std::string& Shell() { return TraceProcessorFor("tests/perfetto/same_sql_test.cc"); }

std::string PerfettoExport(const std::string& input) {
  static int runs = 0;
  const std::string out = absl::StrCat(TempDir("same_sql"), "/trace", ++runs, ".pftrace");
  EXPECT_EQ(RunTool({Tool("tools/tracewire"), "decode", "--format=perfetto", input, "-o", out}, {}),
            0);
  return out;
}

Rows Sorted(Rows rows) {
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::string Show(const Rows& rows) {
  std::string text;
  for (const auto& row : rows) absl::StrAppend(&text, absl::StrJoin(row, ","), "\n");
  return text;
}

// A query; `time_columns`: the columns (from 0) that hold a time or a duration, which may
// differ by a tolerance: the export moves an event 1 ns after the one before it on its
// track where their nanoseconds coincide (its times per track strictly increase), and a
// region's duration is the one the trace reports (see kRegions).
struct SharedQuery {
  SharedQuery(const char* text, std::vector<int> times = {})  // NOLINT: a query is its text
      : sql(text), time_columns(std::move(times)) {}
  std::string sql;
  std::vector<int> time_columns;
};

// Whether the rows are the same, the cells of `time_columns` as integers within `tolerance`.
bool SameRows(const Rows& a, const Rows& b, const std::vector<int>& time_columns,
              int64_t tolerance) {
  if (a.size() != b.size()) return false;
  for (size_t r = 0; r < a.size(); ++r) {
    if (a[r].size() != b[r].size() || a[r].empty()) return false;
    for (size_t c = 0; c < a[r].size(); ++c) {
      if (a[r][c] == b[r][c]) continue;
      const bool time = std::find(time_columns.begin(), time_columns.end(), static_cast<int>(c)) !=
                        time_columns.end();
      int64_t x = 0, y = 0;
      if (!time || !absl::SimpleAtoi(a[r][c], &x) || !absl::SimpleAtoi(b[r][c], &y) ||
          std::abs(x - y) > tolerance) {
        return false;
      }
    }
  }
  return true;
}

// Runs each query on both and expects the same rows (in any order), and at least one; a
// time or duration may differ by `time_tolerance` ns.
void ExpectSameRows(const std::string& input, const std::vector<SharedQuery>& queries,
                    int64_t time_tolerance = 1000) {
  ASSERT_FALSE(Shell().empty())
      << "Perfetto's trace_processor_shell not found: set TRACEWIRE_TRACE_PROCESSOR or put "
         "shared/tools/perfetto/ beside the repository";
  const std::string pftrace = PerfettoExport(input);
  for (const SharedQuery& query : queries) {
    const Rows perfetto = Sorted(TraceProcessorQuery(Shell(), pftrace, query.sql));
    const Rows tracewire = Sorted(TracewireQuery(input, query.sql));
    EXPECT_FALSE(perfetto.empty()) << query.sql;
    EXPECT_TRUE(SameRows(perfetto, tracewire, query.time_columns, time_tolerance))
        << query.sql << "\ntrace processor:\n"
        << Show(perfetto) << "tracewire query:\n"
        << Show(tracewire);
  }
}

// Processes and threads: pids, command lines, thread names, main threads and their tids.
// (The shell's CSV does not escape quotes: they are left out.)
const std::vector<SharedQuery> kProcessesAndThreads = {
    "select pid, replace(cmdline, '\"', '') as cmdline from process "
    "where pid > 0 and cmdline is not null",
    "select p.pid, t.name, t.is_main_thread from thread t join process p using (upid) "
    "where p.pid > 0",
    "select p.pid, t.tid from thread t join process p using (upid) "
    "where t.is_main_thread = 1 and p.pid > 0",
};

// Every thread's kernel id, which the runtime records (imported traces have none: their
// threads other than main have no tid in `tracewire query` and made-up ones in Perfetto).
const std::vector<SharedQuery> kThreadIds = {
    "select p.pid, t.name, t.tid from thread t join process p using (upid) where p.pid > 0",
};

// Regions: slice -> thread_track -> thread -> process, with times, depths and parents.
// `s.dur > 0` leaves out Perfetto's instants (slices of no duration); `s.category <>
// 'thread'` tracewire's thread lifetimes (no Perfetto slice has that category). (Not for
// traces with tasks: Perfetto's thread tracks also hold a task's segments, and its process
// tracks the tasks, which tracewire has in `task_segment` and `task`.)
const std::vector<SharedQuery> kRegions = {
    {"select p.pid, t.name, s.category, s.name, s.depth, count(*), min(s.ts) "
     "from slice s join thread_track tt on s.track_id = tt.id join thread t using (utid) "
     "join process p using (upid) where s.dur > 0 and s.category <> 'thread' "
     "group by 1, 2, 3, 4, 5",
     {6}},
    // A region's duration: tracewire's is the one the trace reports on its end (git's
    // t_rel), Perfetto's from its begin to its end: in a runtime trace they differ by the
    // rounding of the reported seconds (nanoseconds), in git's own traces by git's clock
    // reads (microseconds).
    {"select t.name, s.category, s.name, s.ts, s.dur from slice s join thread_track tt "
     "on s.track_id = tt.id join thread t using (utid) where s.dur > 0 and "
     "s.category <> 'thread'",
     {3, 4}},
    // The tracks the slices are on, by type.
    "select t.type, count(*) from slice s join track t on s.track_id = t.id "
    "where s.dur > 0 and s.category <> 'thread' group by 1",
};

// Arguments: slice -> args (a value between <>: tracewire's CSV writes an empty text as
// it writes NULL).
const std::vector<SharedQuery> kArgs = {
    {"select s.ts, a.key, a.value_type, '<' || a.display_value || '>' as value from slice s "
     "join args a using (arg_set_id) where s.dur > 0 and a.key in ('debug.msg', "
     "'debug.child_id', 'debug.class', 'debug.hook')",
     {0}},
};

// Nested regions: a slice's parent.
const std::vector<SharedQuery> kNesting = {
    "select c.category, c.name, p.category, p.name, c.depth - p.depth as levels, count(*) "
    "from slice c join slice p on c.parent_id = p.id where c.dur > 0 group by 1, 2, 3, 4, 5",
};

// Child processes: the children lanes (process tracks) and the flows to the children.
const std::vector<SharedQuery> kChildren = {
    "select p.pid, pt.name, s.depth, count(*) from slice s join process_track pt "
    "on s.track_id = pt.id join process p using (upid) where pt.name glob 'children*' "
    "group by 1, 2, 3",
    "select po.pid, pi.pid, ti.is_main_thread, count(*) from flow f "
    "join slice so on so.id = f.slice_out join process_track pt on so.track_id = pt.id "
    "join process po on po.upid = pt.upid join slice si on si.id = f.slice_in "
    "join thread_track tt on si.track_id = tt.id join thread ti on ti.utid = tt.utid "
    "join process pi on pi.upid = ti.upid where pt.name glob 'children*' group by 1, 2, 3",
};

// Gauges: counter -> counter_track / process_counter_track -> process.
const std::vector<SharedQuery> kCounters = {
    "select p.pid, count(distinct t.id), count(*), cast(sum(c.value) as int), "
    "cast(max(c.value) as int) from counter c join process_counter_track t "
    "on c.track_id = t.id join process p using (upid) group by 1",
    {"select count(distinct t.id), count(*), min(c.ts), max(c.ts) from counter c "
     "join counter_track t on c.track_id = t.id",
     {2, 3}},
    // (The value first: rows are paired in sorted order, and the time may have moved.)
    {"select cast(c.value as int), c.ts from counter c join counter_track t "
     "on c.track_id = t.id where t.name glob '*in-flight*'",
     {1}},
    "select t.type, count(distinct t.id), count(*) from counter c join track t "
    "on c.track_id = t.id group by 1",
};

// CPU samples: perf_sample -> stack_profile_callsite -> stack_profile_frame (->
// stack_profile_mapping), and the sampled threads.
const std::vector<SharedQuery> kSamples = {
    "select count(*) from perf_sample",
    {"select t.name, count(*), min(s.ts), max(s.ts) from perf_sample s join thread t "
     "using (utid) group by 1",
     {2, 3}},
    "select f.name, c.depth, count(*) from perf_sample s join stack_profile_callsite c "
    "on s.callsite_id = c.id join stack_profile_frame f on c.frame_id = f.id group by 1, 2",
    "select f.name, pf.name, count(*) from perf_sample s join stack_profile_callsite c "
    "on s.callsite_id = c.id join stack_profile_frame f on c.frame_id = f.id "
    "join stack_profile_callsite pc on c.parent_id = pc.id "
    "join stack_profile_frame pf on pc.frame_id = pf.id group by 1, 2",
    "select m.name, f.rel_pc, count(*) from perf_sample s join stack_profile_callsite c "
    "on s.callsite_id = c.id join stack_profile_frame f on c.frame_id = f.id "
    "join stack_profile_mapping m on f.mapping = m.id group by 1, 2",
};

std::vector<SharedQuery> Concat(std::initializer_list<std::vector<SharedQuery>> parts) {
  std::vector<SharedQuery> all;
  for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

TEST(SameSqlTest, DemoProcessTree) {
  const DemoAndTreeTraces traces = RecordDemoAndTree("same_sql");
  ExpectSameRows(traces.demo_file,
                 Concat({kProcessesAndThreads, kThreadIds, kRegions, kNesting, kChildren, kArgs}));
  // The tree: processes that start children (no regions), in a directory of traces.
  ExpectSameRows(traces.tree_dir, Concat({kProcessesAndThreads, kThreadIds, kChildren}));
}

TEST(SameSqlTest, ThreadPoolGauges) {
  const std::string trace = TempDir("same_sql_threadpool") + "/trace.twr";
  ASSERT_EQ(RunTool({Tool("examples/threadpool/threadpool"), "100"},
                    {{"TRACEWIRE", trace}, {"TRACEWIRE_CATEGORIES", "-debug"}}),
            0);
  ExpectSameRows(trace, Concat({kProcessesAndThreads, kThreadIds, kCounters}));
}

TEST(SameSqlTest, CpuSamples) {
  const std::string trace = TempDir("same_sql_cpu") + "/cpu.twr";
  ASSERT_EQ(RunTool({Tool("tests/viewers/cpu_workload"), "0.1"},
                    {{"TRACEWIRE", trace}, {"TRACEWIRE_CPU_PROFILE", "250"}}),
            0);
  ExpectSameRows(trace, Concat({kProcessesAndThreads, kThreadIds, kRegions, kSamples}));
  // perf_sample is a view of tracewire's own sample rows: a row per period of weight.
  EXPECT_EQ(TracewireQuery(trace,
                           "select (select count(*) from perf_sample) = (select sum(min(weight, "
                           "64)) from sample), (select count(*) from sample) > 0"),
            (Rows{{"1", "1"}}));
}

TEST(SameSqlTest, ImportedGitTrace) {
  const std::string dir = TempDir("same_sql_imported");
  ASSERT_EQ(RunTool({Tool("tools/tracewire"), "import", "--from=trace2-event",
                     Tool("tests/cli/testdata/git_event_stream.json"), "-o", dir + "/git.twr"},
                    {}),
            0);
  // git measures a region's t_rel apart from its events' times.
  ExpectSameRows(dir + "/git.twr", Concat({kProcessesAndThreads, kRegions, kNesting, kArgs}),
                 10000);
}

}  // namespace
}  // namespace tracewire::testing
