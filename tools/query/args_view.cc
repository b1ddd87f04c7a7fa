// The `args` view, as Perfetto's trace processor has the table: the arguments of slices
// (Perfetto's debug annotations, `debug.<name>`) by their slice's `arg_set_id`, from the
// columns the other tables hold: a region's message (`debug.msg`), a child's id, class and
// hook (`debug.child_id`, `debug.class`, `debug.hook`). A slice's arg_set_id is its id
// (slice_table.cc), NULL for a slice without arguments.
#include <memory>

#include "tools/query/table_writer.h"

namespace tracewire::tools::query {
namespace {

constexpr char kSchema[] = R"sql(
CREATE VIEW args AS
SELECT id AS arg_set_id, 'debug.msg' AS flat_key, 'debug.msg' AS key, NULL AS int_value,
  message AS string_value, NULL AS real_value, 'string' AS value_type,
  message AS display_value
FROM slice WHERE message IS NOT NULL
UNION ALL
SELECT slice_id, 'debug.child_id', 'debug.child_id', child_id, NULL, NULL, 'uint',
  CAST(child_id AS TEXT)
FROM child
UNION ALL
SELECT slice_id, 'debug.class', 'debug.class', NULL, class, NULL, 'string', class FROM child
UNION ALL
SELECT slice_id, 'debug.hook', 'debug.hook', NULL, hook_name, NULL, 'string', hook_name
FROM child WHERE hook_name IS NOT NULL;
)sql";

class ArgsView : public TableWriter {
 public:
  using TableWriter::TableWriter;
  absl::string_view Schema() const override { return kSchema; }
};

}  // namespace

std::unique_ptr<TableWriter> MakeArgsView(LoadContext* context) {
  return std::make_unique<ArgsView>(context);
}

}  // namespace tracewire::tools::query
