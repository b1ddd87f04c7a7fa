// The `def_param` table: Trace2 def_param events (config and environment settings a
// process reported).
#include <memory>
#include <vector>

#include "tools/query/table_writer.h"

namespace tracewire::tools::query {
namespace {

constexpr char kSchema[] = R"sql(
CREATE TABLE def_param (
  id INTEGER PRIMARY KEY,
  ts INTEGER,
  upid INTEGER,
  scope TEXT,
  param TEXT,
  value TEXT
);
)sql";

constexpr char kInsert[] =
    "INSERT INTO def_param (ts, upid, scope, param, value) VALUES (?1, ?2, ?3, ?4, ?5)";

class DefParamTable : public TableWriter {
 public:
  using TableWriter::TableWriter;

  absl::string_view Schema() const override { return kSchema; }
  absl::Status Prepare() override { return PrepareInsert(kInsert, &insert_); }
  std::vector<reader::EventKind> Kinds() const override { return {reader::EventKind::kDefParam}; }

  void OnEvent(const reader::Event& e, const reader::EventTracks& at) override {
    insert_.BindInt(1, LoadContext::Ns(e.time));
    insert_.BindInt(2, LoadContext::Upid(at.process));
    insert_.BindText(3, e.param_scope);
    insert_.BindText(4, e.param);
    insert_.BindOptionalText(5, e.param_value);
    insert_.Run();
  }

 private:
  RowInserter insert_;
};

}  // namespace

std::unique_ptr<TableWriter> MakeDefParamTable(LoadContext* context) {
  return std::make_unique<DefParamTable>(context);
}

}  // namespace tracewire::tools::query
