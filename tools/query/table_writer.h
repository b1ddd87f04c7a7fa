// TableWriter: one table (or a few tables of one concept) of `tracewire query`'s schema, as
// one file: its CREATE statements, its prepared inserts, and the track-model callbacks
// (reader/track_model.h) it fills them from. The loader (loader.h) creates every writer of
// table_list.h, creates their schema, and passes each callback only to the writers that
// asked for it (Kinds(), wants_slices()), so a table costs nothing for events it ignores.
//
// Adding a table: a file with a TableWriter subclass and its factory, the factory's
// declaration and place in table_list.cc, and its columns in docs/cli.md (which
// //tests/query:query_fleet_test checks against the database).
#ifndef TRACEWIRE_TOOLS_QUERY_TABLE_WRITER_H_
#define TRACEWIRE_TOOLS_QUERY_TABLE_WRITER_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "reader/event.h"
#include "reader/track_model.h"
#include "tools/query/load_context.h"
#include "tools/query/row_inserter.h"

namespace tracewire::tools::query {

class TableWriter {
 public:
  explicit TableWriter(LoadContext* context) : context_(context) {}
  virtual ~TableWriter() = default;
  TableWriter(const TableWriter&) = delete;
  TableWriter& operator=(const TableWriter&) = delete;

  // Its CREATE TABLE (and CREATE VIEW) statements.
  virtual absl::string_view Schema() const = 0;
  // Statements run once the load is committed, for the session only (TEMP views that use
  // tracewire's SQL functions; a --db file does not keep them).
  virtual absl::string_view SessionSchema() const { return ""; }
  // Prepares its inserts (the schema of every writer exists by then).
  virtual absl::Status Prepare() { return absl::OkStatus(); }

  // The event kinds OnEvent is called for.
  virtual std::vector<reader::EventKind> Kinds() const { return {}; }
  // Whether OnSliceBegin and OnSliceEnd are called (for every slice kind).
  virtual bool wants_slices() const { return false; }

  // The track model's callbacks (see reader/track_model.h), after the context has seen
  // them: ids of new slices are known in OnSliceBegin.
  virtual void OnProcessBegin(const reader::ProcessTrack& /*process*/,
                              const reader::Event& /*first*/) {}
  virtual void OnSliceBegin(const reader::Slice& /*slice*/, const reader::Event& /*begin*/) {}
  virtual void OnSliceEnd(const reader::Slice& /*slice*/, const reader::SliceEnding& /*end*/,
                          const EndedSlice& /*row*/) {}
  virtual void OnEvent(const reader::Event& /*event*/, const reader::EventTracks& /*at*/) {}
  // A CPU sample, before its OnEvent (for writers whose Kinds() hold kCpuSample).
  virtual void OnSample(const reader::Event& /*sample*/, const reader::SampleContext& /*at*/) {}

  // After the last event, once every slice has ended: rows written at the end (processes,
  // threads, links). Errors go to context()->db()->FailLoad, as the inserts' do.
  virtual void Finish() {}

 protected:
  LoadContext& context() const { return *context_; }
  // Prepares the insert `sql` ("INSERT INTO t (...) VALUES (?1, ...)") into *inserter,
  // which the loader flushes before it commits (for Prepare()).
  absl::Status PrepareInsert(absl::string_view sql, RowInserter* inserter) const {
    absl::StatusOr<RowInserter> prepared = RowInserter::Prepare(context_->db(), sql);
    if (!prepared.ok()) return prepared.status();
    *inserter = std::move(*prepared);
    context_->AddInserter(inserter);
    return absl::OkStatus();
  }
  // Prepares any other statement `sql` into *statement (for Prepare()).
  absl::Status PrepareStatement(absl::string_view sql, Statement* statement) const {
    absl::StatusOr<Statement> prepared = Statement::Prepare(context_->db(), sql);
    if (!prepared.ok()) return prepared.status();
    *statement = std::move(*prepared);
    return absl::OkStatus();
  }

 private:
  LoadContext* context_;
};

}  // namespace tracewire::tools::query

#endif  // TRACEWIRE_TOOLS_QUERY_TABLE_WRITER_H_
