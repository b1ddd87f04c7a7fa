// The `sample` and `stack_frame` tables: CPU samples (cpu_sample, TRACEWIRE_CPU_PROFILE),
// each with its thread, weight, the innermost region open on its thread and the task the
// thread worked for; and their stacks as a tree of frames, each frame one row with its
// caller as parent (Perfetto's callsites), shared by every sample whose stack begins the
// same way, so that a stack is the id of its innermost frame. Perfetto's tables as views of
// them: `perf_sample` (a row per period of a sample's weight, at most 64, as the Perfetto
// export writes it), `stack_profile_callsite` (a stack_frame row is a callsite and its frame),
// `stack_profile_frame` and `stack_profile_mapping` (the modules).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "tools/query/table_writer.h"

namespace tracewire::tools::query {
namespace {

constexpr char kSchema[] = R"sql(
CREATE TABLE stack_frame (
  id INTEGER PRIMARY KEY,
  parent_id INTEGER,
  depth INTEGER,
  function TEXT,
  file TEXT,
  line INTEGER,
  module TEXT,
  module_offset INTEGER,
  pc INTEGER
);
CREATE TABLE sample (
  id INTEGER PRIMARY KEY,
  ts INTEGER,
  upid INTEGER,
  utid INTEGER,
  stack_id INTEGER,
  weight INTEGER,
  slice_id INTEGER,
  task_id INTEGER
);
CREATE VIEW perf_sample AS
WITH RECURSIVE period(i) AS (
  SELECT 1 UNION ALL SELECT i + 1 FROM period WHERE i < 64)
SELECT row_number() OVER (ORDER BY s.id, p.i) AS id, s.ts AS ts, s.utid AS utid, NULL AS cpu,
  s.stack_id AS callsite_id, s.id AS sample_id
FROM sample s JOIN period p ON p.i <= s.weight;
CREATE VIEW stack_profile_callsite AS
SELECT id, depth, parent_id, id AS frame_id FROM stack_frame;
CREATE VIEW stack_profile_mapping AS
SELECT row_number() OVER (ORDER BY module) AS id,
  CASE WHEN module GLOB '/*' THEN module ELSE '/' || module END AS name, module
FROM (SELECT DISTINCT module FROM stack_frame WHERE module IS NOT NULL);
CREATE VIEW stack_profile_frame AS
SELECT f.id AS id, coalesce(f.function, printf('0x%x', f.pc)) AS name, m.id AS mapping,
  coalesce(f.module_offset, f.pc) AS rel_pc, f.file AS file, f.line AS line
FROM stack_frame f LEFT JOIN stack_profile_mapping m ON m.module = f.module;
)sql";

constexpr char kInsertFrame[] =
    "INSERT INTO stack_frame (id, parent_id, depth, function, file, line, module, "
    "module_offset, pc) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
constexpr char kInsertSample[] =
    "INSERT INTO sample (ts, upid, utid, stack_id, weight, slice_id, task_id) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

// Binds `text`, or NULL when empty.
void BindTextOrNull(RowInserter& insert, int column, absl::string_view text) {
  if (text.empty()) {
    insert.BindNull(column);
  } else {
    insert.BindText(column, text);
  }
}

class SampleTables : public TableWriter {
 public:
  using TableWriter::TableWriter;

  absl::string_view Schema() const override { return kSchema; }
  absl::Status Prepare() override {
    if (absl::Status s = PrepareInsert(kInsertFrame, &insert_frame_); !s.ok()) return s;
    return PrepareInsert(kInsertSample, &insert_sample_);
  }
  std::vector<reader::EventKind> Kinds() const override { return {reader::EventKind::kCpuSample}; }

  void OnSample(const reader::Event& e, const reader::SampleContext& at) override {
    // The stack, outermost frame first (the event's is innermost first).
    std::optional<int64_t> stack;
    for (size_t i = e.stack.size(); i-- > 0;) {
      stack = Frame(stack, static_cast<int64_t>(e.stack.size() - 1 - i), e.stack[i]);
    }
    insert_sample_.BindInt(1, LoadContext::Ns(e.time));
    insert_sample_.BindInt(2, LoadContext::Upid(at.process));
    insert_sample_.BindInt(3, LoadContext::Utid(at.thread));
    insert_sample_.BindOptionalInt(4, stack);
    insert_sample_.BindInt(5, static_cast<int64_t>(e.count));
    insert_sample_.BindOptionalInt(
        6, at.regions.empty() ? std::nullopt
                              : std::optional<int64_t>(context().SliceId(at.regions.back().slot)));
    insert_sample_.BindOptionalInt(7, LoadContext::TaskId(at.task));
    insert_sample_.Run();
  }

 private:
  // The row of `frame` called from `parent` (NULL: outermost), written when new. A frame
  // is known by its module and offset in it when the module is known (the same code in
  // every process), else by its pc.
  int64_t Frame(std::optional<int64_t> parent, int64_t depth, const reader::SymbolFrame& frame) {
    key_.clear();
    absl::StrAppend(&key_, parent.value_or(0), "\n", frame.func, "\n", frame.file, "\n", frame.line,
                    "\n", frame.module, "\n",
                    frame.module.empty() ? frame.pc : frame.module_offset);
    auto [it, inserted] = frames_.try_emplace(key_, int64_t(frames_.size() + 1));
    if (inserted) {
      insert_frame_.BindInt(1, it->second);
      insert_frame_.BindOptionalInt(2, parent);
      insert_frame_.BindInt(3, depth);
      BindTextOrNull(insert_frame_, 4, frame.func);
      BindTextOrNull(insert_frame_, 5, frame.file);
      if (frame.line == 0) {
        insert_frame_.BindNull(6);
      } else {
        insert_frame_.BindInt(6, static_cast<int64_t>(frame.line));
      }
      BindTextOrNull(insert_frame_, 7, frame.module);
      if (frame.module.empty()) {
        insert_frame_.BindNull(8);
      } else {
        insert_frame_.BindInt(8, static_cast<int64_t>(frame.module_offset));
      }
      insert_frame_.BindInt(9, static_cast<int64_t>(frame.pc));
      insert_frame_.Run();
    }
    return it->second;
  }

  RowInserter insert_frame_;
  RowInserter insert_sample_;
  std::string key_;                                   // buffer of Frame()
  absl::flat_hash_map<std::string, int64_t> frames_;  // key -> row
};

}  // namespace

std::unique_ptr<TableWriter> MakeSampleTables(LoadContext* context) {
  return std::make_unique<SampleTables>(context);
}

}  // namespace tracewire::tools::query
