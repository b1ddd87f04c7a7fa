// The `task` and `task_segment` tables: tasks (task_begin -> task_end, a job handed from
// thread to thread) and the stretches in which a thread worked for one (task_adopt ->
// task_release, the thread's next adopt, or its end), each written when it ends, with the
// id the load context gave it when it began.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tools/query/table_writer.h"

namespace tracewire::tools::query {
namespace {

constexpr char kSchema[] = R"sql(
CREATE TABLE task (
  id INTEGER PRIMARY KEY,
  upid INTEGER,
  task_id INTEGER,
  parent_id INTEGER,
  parent_task_id INTEGER,
  category TEXT,
  name TEXT,
  ts INTEGER,
  dur INTEGER,
  begin_utid INTEGER,
  end_utid INTEGER,
  threads INTEGER,
  segments INTEGER,
  end_cause TEXT
);
CREATE TABLE task_segment (
  id INTEGER PRIMARY KEY,
  task INTEGER,
  upid INTEGER,
  utid INTEGER,
  task_id INTEGER,
  ts INTEGER,
  dur INTEGER,
  end_cause TEXT
);
)sql";

constexpr char kInsertTask[] =
    "INSERT INTO task (id, upid, task_id, parent_id, parent_task_id, category, name, ts, dur, "
    "begin_utid, end_utid, threads, segments, end_cause) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
    "?8, ?9, ?10, ?11, ?12, ?13, ?14)";
constexpr char kInsertSegment[] =
    "INSERT INTO task_segment (id, task, upid, utid, task_id, ts, dur, end_cause) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";

// The end_cause column, by reader::SliceEnd (as the slice table's).
constexpr absl::string_view kEndNames[] = {"end", "unwound", "process_end", "trace_end"};

class TaskTables : public TableWriter {
 public:
  using TableWriter::TableWriter;

  absl::string_view Schema() const override { return kSchema; }
  absl::Status Prepare() override {
    if (absl::Status s = PrepareInsert(kInsertTask, &insert_task_); !s.ok()) return s;
    return PrepareInsert(kInsertSegment, &insert_segment_);
  }
  bool wants_slices() const override { return true; }

  void OnSliceBegin(const reader::Slice& slice, const reader::Event& e) override {
    if (slice.kind == reader::SliceKind::kTask) {
      if (slice.slot >= open_.size()) open_.resize(slice.slot + 1);
      OpenTask& task = open_[slice.slot];
      task.category.assign(e.category.data(), e.category.size());
      task.name.assign(e.label.data(), e.label.size());
      task.threads.clear();
      task.segments = 0;
      task.parent_id = slice.parent == reader::kNoIndex
                           ? std::nullopt
                           : std::optional<int64_t>(context().SliceId(slice.parent));
    } else if (slice.kind == reader::SliceKind::kTaskSegment) {
      // The task it works for, if that task is open (its begin may precede the trace).
      if (slice.slot >= segment_task_.size()) segment_task_.resize(slice.slot + 1);
      segment_task_[slice.slot] = context().OpenTask(slice.process, slice.id);
      const reader::ProcessTrack& process = context().tracks().process(slice.process);
      if (auto it = process.task_lane_of.find(slice.id); it != process.task_lane_of.end()) {
        OpenTask& task = open_[process.task_lanes[it->second].slot];
        ++task.segments;
        if (std::find(task.threads.begin(), task.threads.end(), slice.thread) ==
            task.threads.end()) {
          task.threads.push_back(slice.thread);
        }
      }
    }
  }

  void OnSliceEnd(const reader::Slice& slice, const reader::SliceEnding& end,
                  const EndedSlice& row) override {
    if (slice.kind == reader::SliceKind::kTask) {
      WriteTask(slice, end, row);
    } else if (slice.kind == reader::SliceKind::kTaskSegment) {
      insert_segment_.BindInt(1, row.id);
      insert_segment_.BindOptionalInt(2, segment_task_[slice.slot]);
      insert_segment_.BindInt(3, LoadContext::Upid(slice.process));
      insert_segment_.BindInt(4, LoadContext::Utid(slice.thread));
      insert_segment_.BindInt(5, static_cast<int64_t>(slice.id));
      insert_segment_.BindInt(6, row.ts);
      insert_segment_.BindInt(7, row.dur);
      insert_segment_.BindText(8, kEndNames[static_cast<size_t>(end.cause)]);
      insert_segment_.Run();
    }
  }

 private:
  // What is known of an open task (kept by slot, so its buffers are reused).
  struct OpenTask {
    std::string category;
    std::string name;
    std::optional<int64_t> parent_id;
    std::vector<uint32_t> threads;  // thread indices that adopted it, in order
    int64_t segments = 0;
  };

  void WriteTask(const reader::Slice& slice, const reader::SliceEnding& end,
                 const EndedSlice& row) {
    const OpenTask& task = open_[slice.slot];
    insert_task_.BindInt(1, row.id);
    insert_task_.BindInt(2, LoadContext::Upid(slice.process));
    insert_task_.BindInt(3, static_cast<int64_t>(slice.id));
    insert_task_.BindOptionalInt(4, task.parent_id);
    if (slice.task != 0) {
      insert_task_.BindInt(5, static_cast<int64_t>(slice.task));
    } else {
      insert_task_.BindNull(5);
    }
    insert_task_.BindText(6, task.category);
    insert_task_.BindText(7, task.name);
    insert_task_.BindInt(8, row.ts);
    insert_task_.BindInt(9, row.dur);
    insert_task_.BindInt(10, LoadContext::Utid(slice.thread));
    // The thread of the task_end, when its own event ended it.
    std::optional<int64_t> end_utid;
    if (end.cause == reader::SliceEnd::kEndEvent && end.event != nullptr) {
      const reader::ProcessTrack& process = context().tracks().process(slice.process);
      if (auto it = process.threads.find(end.event->thread_id); it != process.threads.end()) {
        end_utid = LoadContext::Utid(it->second);
      }
    }
    insert_task_.BindOptionalInt(11, end_utid);
    insert_task_.BindInt(12, static_cast<int64_t>(task.threads.size()));
    insert_task_.BindInt(13, task.segments);
    insert_task_.BindText(14, kEndNames[static_cast<size_t>(end.cause)]);
    insert_task_.Run();
  }

  RowInserter insert_task_;
  RowInserter insert_segment_;
  std::vector<OpenTask> open_;                        // by slot
  std::vector<std::optional<int64_t>> segment_task_;  // by slot: the segment's task row
};

}  // namespace

std::unique_ptr<TableWriter> MakeTaskTables(LoadContext* context) {
  return std::make_unique<TaskTables>(context);
}

}  // namespace tracewire::tools::query
