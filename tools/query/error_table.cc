// The `error` table: Trace2 error events, with the region they were recorded in and the
// task its thread worked for.
#include <memory>
#include <vector>

#include "tools/query/table_writer.h"

namespace tracewire::tools::query {
namespace {

constexpr char kSchema[] = R"sql(
CREATE TABLE error (
  id INTEGER PRIMARY KEY,
  ts INTEGER,
  upid INTEGER,
  utid INTEGER,
  slice_id INTEGER,
  message TEXT,
  format TEXT,
  task_id INTEGER
);
)sql";

constexpr char kInsert[] =
    "INSERT INTO error (ts, upid, utid, slice_id, message, format, task_id) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

class ErrorTable : public TableWriter {
 public:
  using TableWriter::TableWriter;

  absl::string_view Schema() const override { return kSchema; }
  absl::Status Prepare() override { return PrepareInsert(kInsert, &insert_); }
  std::vector<reader::EventKind> Kinds() const override { return {reader::EventKind::kError}; }

  void OnEvent(const reader::Event& e, const reader::EventTracks& at) override {
    insert_.BindInt(1, LoadContext::Ns(e.time));
    insert_.BindInt(2, LoadContext::Upid(at.process));
    insert_.BindInt(3, LoadContext::Utid(at.thread));
    insert_.BindOptionalInt(4, context().EnclosingRegion(at.thread));
    insert_.BindOptionalText(5, e.msg);
    insert_.BindOptionalText(6, e.fmt);
    insert_.BindOptionalInt(7, LoadContext::TaskId(e.adopted_task));
    insert_.Run();
  }

 private:
  RowInserter insert_;
};

}  // namespace

std::unique_ptr<TableWriter> MakeErrorTable(LoadContext* context) {
  return std::make_unique<ErrorTable>(context);
}

}  // namespace tracewire::tools::query
