// The `slice` table: every slice of the track model (regions, child processes, execs,
// thread lifetimes), written when it ends, with the id it got when it began, on a track as
// Perfetto's trace processor puts it (track_tables.cc). Tasks and task segments have their
// own tables (task_tables.cc).
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "tools/query/row_text.h"
#include "tools/query/table_writer.h"

namespace tracewire::tools::query {
namespace {

constexpr char kSchema[] = R"sql(
CREATE TABLE slice (
  id INTEGER PRIMARY KEY,
  ts INTEGER,
  dur INTEGER,
  upid INTEGER,
  utid INTEGER,
  kind TEXT,
  category TEXT,
  name TEXT,
  depth INTEGER,
  parent_id INTEGER,
  message TEXT,
  self_dur INTEGER,
  end_cause TEXT,
  task_id INTEGER,
  track_id INTEGER,
  arg_set_id INTEGER
);
)sql";

constexpr char kInsert[] =
    "INSERT INTO slice (id, ts, dur, upid, utid, kind, category, name, depth, parent_id, "
    "message, self_dur, end_cause, task_id, track_id, arg_set_id) VALUES (?1, ?2, ?3, ?4, ?5, "
    "?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)";

// The kind column, by reader::SliceKind (tasks and task segments are not slices here).
constexpr absl::string_view kKindNames[] = {"thread", "region", "child", "exec"};

// Whether the slice table holds slices of this kind.
bool IsSliceRow(reader::SliceKind kind) {
  return static_cast<size_t>(kind) < std::size(kKindNames);
}
// The end_cause column, by reader::SliceEnd.
constexpr absl::string_view kEndNames[] = {"end", "unwound", "process_end", "trace_end"};

class SliceTable : public TableWriter {
 public:
  using TableWriter::TableWriter;

  absl::string_view Schema() const override { return kSchema; }
  absl::Status Prepare() override { return PrepareInsert(kInsert, &insert_); }
  bool wants_slices() const override { return true; }

  void OnSliceBegin(const reader::Slice& slice, const reader::Event& e) override {
    if (!IsSliceRow(slice.kind)) return;
    if (slice.slot >= open_.size()) open_.resize(slice.slot + 1);
    OpenText& text = open_[slice.slot];
    text.has_message = false;
    switch (slice.kind) {
      case reader::SliceKind::kRegion:
        text.category.assign(e.category.data(), e.category.size());
        text.name.assign(e.label.data(), e.label.size());
        if (e.msg.has_value()) {
          text.has_message = true;
          text.message.assign(e.msg->data(), e.msg->size());
        }
        break;
      case reader::SliceKind::kChild:
        text.category.assign(e.child_class.data(), e.child_class.size());
        if (e.hook_name.has_value()) {
          text.name.assign(e.hook_name->data(), e.hook_name->size());
        } else {
          text.name = CommandLineOf(e);
        }
        break;
      case reader::SliceKind::kExec:
        text.category = "exec";
        text.name = e.exec_exe.has_value() ? std::string(*e.exec_exe) : CommandLineOf(e);
        break;
      case reader::SliceKind::kThread:
        text.category = "thread";
        text.name.assign(e.thread_name.data(), e.thread_name.size());
        break;
      case reader::SliceKind::kTask:
      case reader::SliceKind::kTaskSegment:
        break;
    }
  }

  void OnSliceEnd(const reader::Slice& slice, const reader::SliceEnding& end,
                  const EndedSlice& row) override {
    if (!IsSliceRow(slice.kind)) return;
    const OpenText& text = open_[slice.slot];
    insert_.BindInt(1, row.id);
    insert_.BindInt(2, row.ts);
    insert_.BindInt(3, row.dur);
    insert_.BindInt(4, LoadContext::Upid(slice.process));
    insert_.BindInt(5, LoadContext::Utid(slice.thread));
    insert_.BindText(6, kKindNames[static_cast<size_t>(slice.kind)]);
    insert_.BindText(7, text.category);
    insert_.BindText(8, text.name);
    // A child is on its lane's track of the process's children (as in Perfetto), at depth 0
    // there; every other slice on its thread's track, at its depth.
    const bool child = slice.kind == reader::SliceKind::kChild;
    insert_.BindInt(9, child ? 0 : slice.depth);
    insert_.BindOptionalInt(10, row.parent_id);
    if (text.has_message) {
      insert_.BindText(11, text.message);
    } else {
      insert_.BindNull(11);
    }
    insert_.BindInt(12, row.self_dur);
    insert_.BindText(13, kEndNames[static_cast<size_t>(end.cause)]);
    if (slice.kind == reader::SliceKind::kRegion && slice.task != 0) {
      insert_.BindInt(14, static_cast<int64_t>(slice.task));
    } else {
      insert_.BindNull(14);
    }
    insert_.BindInt(15, child ? context().ChildLaneTrackId(slice.process, slice.depth)
                              : context().ThreadTrackId(slice.thread));
    // Its arguments (args_view.cc), under its own id: a region's message, a child's.
    if (text.has_message || child) {
      insert_.BindInt(16, row.id);
    } else {
      insert_.BindNull(16);
    }
    insert_.Run();
  }

 private:
  // The texts of an open slice (kept by slot, so their buffers are reused).
  struct OpenText {
    std::string category;
    std::string name;
    std::string message;
    bool has_message = false;
  };
  RowInserter insert_;
  std::vector<OpenText> open_;
};

}  // namespace

std::unique_ptr<TableWriter> MakeSliceTable(LoadContext* context) {
  return std::make_unique<SliceTable>(context);
}

}  // namespace tracewire::tools::query
