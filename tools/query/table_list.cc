#include "tools/query/table_list.h"

namespace tracewire::tools::query {

std::vector<std::unique_ptr<TableWriter>> MakeTableWriters(LoadContext* context) {
  using Factory = std::unique_ptr<TableWriter> (*)(LoadContext*);
  static constexpr Factory kFactories[] = {
      MakeProcessTable,  MakeThreadTable,   MakeSliceTable,  MakeDataTable, MakeErrorTable,
      MakeCounterTables, MakeDefParamTable, MakeChildTables, MakeViews,
  };
  std::vector<std::unique_ptr<TableWriter>> writers;
  for (Factory factory : kFactories) writers.push_back(factory(context));
  return writers;
}

}  // namespace tracewire::tools::query
