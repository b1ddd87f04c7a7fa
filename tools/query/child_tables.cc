// The `child` and `flow` tables: the child processes a process started (child_start to
// child_exit or child_ready), and the links from a child's slice to the child process's
// main thread when the input holds both (the track model's child links).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/query/row_text.h"
#include "tools/query/table_writer.h"

namespace tracewire::tools::query {
namespace {

constexpr char kSchema[] = R"sql(
CREATE TABLE child (
  slice_id INTEGER PRIMARY KEY,
  upid INTEGER,
  child_id INTEGER,
  pid INTEGER,
  child_upid INTEGER,
  class TEXT,
  hook_name TEXT,
  argv TEXT,
  exit_code INTEGER,
  ready TEXT,
  ts INTEGER,
  dur INTEGER
);
CREATE TABLE flow (
  id INTEGER PRIMARY KEY,
  slice_out INTEGER,
  slice_in INTEGER
);
)sql";

constexpr char kInsertChild[] =
    "INSERT INTO child (slice_id, upid, child_id, pid, child_upid, class, hook_name, argv, "
    "exit_code, ready, ts, dur) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";
constexpr char kUpdateChild[] = "UPDATE child SET child_upid = ?1 WHERE slice_id = ?2";
constexpr char kInsertFlow[] = "INSERT INTO flow (slice_out, slice_in) VALUES (?1, ?2)";

class ChildTables : public TableWriter {
 public:
  using TableWriter::TableWriter;

  absl::string_view Schema() const override { return kSchema; }
  absl::Status Prepare() override {
    if (absl::Status s = PrepareInsert(kInsertChild, &insert_child_); !s.ok()) return s;
    if (absl::Status s = PrepareStatement(kUpdateChild, &update_child_); !s.ok()) return s;
    return PrepareInsert(kInsertFlow, &insert_flow_);
  }
  bool wants_slices() const override { return true; }

  void OnSliceBegin(const reader::Slice& slice, const reader::Event& e) override {
    if (slice.kind != reader::SliceKind::kChild) return;
    if (slice.slot >= open_.size()) open_.resize(slice.slot + 1);
    OpenChild& child = open_[slice.slot];
    child.child_class.assign(e.child_class.data(), e.child_class.size());
    child.hook_name.reset();
    if (e.hook_name.has_value()) child.hook_name = std::string(*e.hook_name);
    child.argv = CommandLineOf(e);
  }

  void OnSliceEnd(const reader::Slice& slice, const reader::SliceEnding& end,
                  const EndedSlice& row) override {
    if (slice.kind != reader::SliceKind::kChild) return;
    const OpenChild& child = open_[slice.slot];
    const reader::Event* e = end.event;
    const bool exited = e != nullptr && e->kind == reader::EventKind::kChildExit;
    const bool ready = e != nullptr && e->kind == reader::EventKind::kChildReady;
    std::optional<int64_t> child_upid;
    if (slice.link != reader::kNoIndex) {
      const uint32_t process = context().tracks().link(slice.link).child_process;
      if (process != reader::kNoIndex) child_upid = LoadContext::Upid(process);
      links_.push_back({slice.link, row.id, child_upid.has_value()});
    }
    insert_child_.BindInt(1, row.id);
    insert_child_.BindInt(2, LoadContext::Upid(slice.process));
    insert_child_.BindInt(3, static_cast<int64_t>(slice.id));
    if (exited || ready) {
      insert_child_.BindInt(4, e->pid);
    } else {
      insert_child_.BindNull(4);
    }
    insert_child_.BindOptionalInt(5, child_upid);
    insert_child_.BindText(6, child.child_class);
    insert_child_.BindOptionalText(7, child.hook_name);
    insert_child_.BindText(8, child.argv);
    if (exited) {
      insert_child_.BindInt(9, e->code);
    } else {
      insert_child_.BindNull(9);
    }
    if (ready) {
      insert_child_.BindText(10, e->ready);
    } else {
      insert_child_.BindNull(10);
    }
    insert_child_.BindInt(11, row.ts);
    insert_child_.BindInt(12, row.dur);
    insert_child_.Run();
  }

  void Finish() override {
    const reader::TrackModel& tracks = context().tracks();
    for (const ChildLink& link : links_) {
      const uint32_t process = tracks.link(link.link).child_process;
      if (process == reader::kNoIndex) continue;
      if (!link.child_upid_written) {
        update_child_.BindInt(1, LoadContext::Upid(process));
        update_child_.BindInt(2, link.slice_id);
        update_child_.Run();
      }
      // The child process's main thread (thread number 0), else its first thread.
      const std::map<uint64_t, uint32_t>& threads = tracks.process(process).threads;
      if (threads.empty()) continue;
      const int64_t main_slice = context().ThreadSliceId(threads.begin()->second);
      if (main_slice == 0) continue;
      insert_flow_.BindInt(1, link.slice_id);
      insert_flow_.BindInt(2, main_slice);
      insert_flow_.Run();
    }
  }

 private:
  struct OpenChild {
    std::string child_class;
    std::optional<std::string> hook_name;
    std::string argv;
  };
  // A child slice with a link: the flow written at the end.
  struct ChildLink {
    uint32_t link;
    int64_t slice_id;
    bool child_upid_written;
  };
  RowInserter insert_child_;
  Statement update_child_;
  RowInserter insert_flow_;
  std::vector<OpenChild> open_;  // by slot
  std::vector<ChildLink> links_;
};

}  // namespace

std::unique_ptr<TableWriter> MakeChildTables(LoadContext* context) {
  return std::make_unique<ChildTables>(context);
}

}  // namespace tracewire::tools::query
