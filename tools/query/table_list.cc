#include "tools/query/table_list.h"

namespace tracewire::tools::query {

// The factories, one per table file (each defines its own).
std::unique_ptr<TableWriter> MakeProcessTable(LoadContext* context);
std::unique_ptr<TableWriter> MakeThreadTable(LoadContext* context);
std::unique_ptr<TableWriter> MakeSliceTable(LoadContext* context);
std::unique_ptr<TableWriter> MakeDataTable(LoadContext* context);
std::unique_ptr<TableWriter> MakeErrorTable(LoadContext* context);
std::unique_ptr<TableWriter> MakeCounterTables(LoadContext* context);
std::unique_ptr<TableWriter> MakeDefParamTable(LoadContext* context);
std::unique_ptr<TableWriter> MakeChildTables(LoadContext* context);
std::unique_ptr<TableWriter> MakeTaskTables(LoadContext* context);
std::unique_ptr<TableWriter> MakeSampleTables(LoadContext* context);
std::unique_ptr<TableWriter> MakeTrackTables(LoadContext* context);
std::unique_ptr<TableWriter> MakeArgsView(LoadContext* context);
std::unique_ptr<TableWriter> MakeViews(LoadContext* context);

std::vector<std::unique_ptr<TableWriter>> MakeTableWriters(LoadContext* context) {
  using Factory = std::unique_ptr<TableWriter> (*)(LoadContext*);
  static constexpr Factory kFactories[] = {
      MakeProcessTable,  MakeThreadTable,   MakeSliceTable,  MakeDataTable,  MakeErrorTable,
      MakeCounterTables, MakeDefParamTable, MakeChildTables, MakeTaskTables, MakeSampleTables,
      MakeTrackTables,   MakeArgsView,      MakeViews,
  };
  std::vector<std::unique_ptr<TableWriter>> writers;
  for (Factory factory : kFactories) writers.push_back(factory(context));
  return writers;
}

}  // namespace tracewire::tools::query
