// The `data` table: Trace2 data and data_json events, with the region they were recorded
// in and the task its thread worked for.
#include <cstdint>
#include <memory>
#include <vector>

#include "tools/query/table_writer.h"

namespace tracewire::tools::query {
namespace {

constexpr char kSchema[] = R"sql(
CREATE TABLE data (
  id INTEGER PRIMARY KEY,
  ts INTEGER,
  upid INTEGER,
  utid INTEGER,
  slice_id INTEGER,
  category TEXT,
  key TEXT,
  int_value INTEGER,
  string_value TEXT,
  json_value TEXT,
  task_id INTEGER
);
)sql";

constexpr char kInsert[] =
    "INSERT INTO data (ts, upid, utid, slice_id, category, key, int_value, string_value, "
    "json_value, task_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";

class DataTable : public TableWriter {
 public:
  using TableWriter::TableWriter;

  absl::string_view Schema() const override { return kSchema; }
  absl::Status Prepare() override { return PrepareInsert(kInsert, &insert_); }
  std::vector<reader::EventKind> Kinds() const override {
    return {reader::EventKind::kData, reader::EventKind::kDataJson};
  }

  void OnEvent(const reader::Event& e, const reader::EventTracks& at) override {
    insert_.BindInt(1, LoadContext::Ns(e.time));
    insert_.BindInt(2, LoadContext::Upid(at.process));
    insert_.BindInt(3, LoadContext::Utid(at.thread));
    insert_.BindOptionalInt(4, context().EnclosingRegion(at.thread));
    insert_.BindText(5, e.category);
    insert_.BindText(6, e.label);
    insert_.BindOptionalInt(7, e.value_kind == reader::ValueKind::kInt
                                   ? std::optional<int64_t>(e.value_int)
                                   : std::nullopt);
    insert_.BindOptionalText(8, e.value_kind == reader::ValueKind::kString
                                    ? std::optional<absl::string_view>(e.value_string)
                                    : std::nullopt);
    insert_.BindOptionalText(9, e.value_kind == reader::ValueKind::kJson
                                    ? std::optional<absl::string_view>(e.value_string)
                                    : std::nullopt);
    insert_.BindOptionalInt(10, LoadContext::TaskId(e.adopted_task));
    insert_.Run();
  }

 private:
  RowInserter insert_;
};

}  // namespace

std::unique_ptr<TableWriter> MakeDataTable(LoadContext* context) {
  return std::make_unique<DataTable>(context);
}

}  // namespace tracewire::tools::query
