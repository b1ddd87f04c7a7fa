// The track tables, as Perfetto's trace processor has them: `thread_track` (one per
// thread: its regions, execs and lifetime), `process_track` (a process's lanes of
// children, "children", "children 2", ...), and the views `track` (every track: thread,
// process and counter tracks share one numbering), `process_counter_track` and
// `thread_counter_track` (the counter tracks of a process's totals and gauges, and of a
// thread). A slice's `track_id` and a counter's `track_id` name these.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/query/table_writer.h"

namespace tracewire::tools::query {
namespace {

constexpr char kSchema[] = R"sql(
CREATE TABLE thread_track (
  id INTEGER PRIMARY KEY,
  type TEXT,
  name TEXT,
  utid INTEGER
);
CREATE TABLE process_track (
  id INTEGER PRIMARY KEY,
  type TEXT,
  name TEXT,
  upid INTEGER
);
CREATE VIEW process_counter_track AS
SELECT id, 'process_counter_track' AS type, name, upid FROM counter_track WHERE utid IS NULL;
CREATE VIEW thread_counter_track AS
SELECT id, 'thread_counter_track' AS type, name, utid FROM counter_track WHERE utid IS NOT NULL;
CREATE VIEW track AS
SELECT id, type, name FROM thread_track
UNION ALL SELECT id, type, name FROM process_track
UNION ALL SELECT id, type, name FROM process_counter_track
UNION ALL SELECT id, type, name FROM thread_counter_track;
)sql";

constexpr char kInsertThreadTrack[] =
    "INSERT INTO thread_track (id, type, name, utid) VALUES (?1, ?2, ?3, ?4)";
constexpr char kInsertProcessTrack[] =
    "INSERT INTO process_track (id, type, name, upid) VALUES (?1, ?2, ?3, ?4)";

class TrackTables : public TableWriter {
 public:
  using TableWriter::TableWriter;

  absl::string_view Schema() const override { return kSchema; }
  absl::Status Prepare() override {
    if (absl::Status s = PrepareInsert(kInsertThreadTrack, &insert_thread_); !s.ok()) return s;
    return PrepareInsert(kInsertProcessTrack, &insert_process_);
  }

  // Every thread has a track (its id allocated now if no slice asked for it); the children
  // lanes that hold a child.
  void Finish() override {
    const size_t threads = context().tracks().threads().size();
    for (uint32_t t = 0; t < threads; ++t) {
      insert_thread_.BindInt(1, context().ThreadTrackId(t));
      insert_thread_.BindText(2, "thread_track");
      insert_thread_.BindNull(3);  // named by its thread, as in the Perfetto export
      insert_thread_.BindInt(4, LoadContext::Utid(t));
      insert_thread_.Run();
    }
    std::vector<std::tuple<int64_t, uint32_t, uint32_t>> lanes;  // (id, process, lane)
    for (const auto& [key, id] : context().child_lane_tracks()) {
      lanes.emplace_back(id, key.first, key.second);
    }
    std::sort(lanes.begin(), lanes.end());
    for (const auto& [id, process, lane] : lanes) {
      insert_process_.BindInt(1, id);
      insert_process_.BindText(2, "process_track");
      insert_process_.BindText(
          3, lane == 0 ? std::string("children") : absl::StrCat("children ", lane + 1));
      insert_process_.BindInt(4, LoadContext::Upid(process));
      insert_process_.Run();
    }
  }

 private:
  RowInserter insert_thread_;
  RowInserter insert_process_;
};

}  // namespace

std::unique_ptr<TableWriter> MakeTrackTables(LoadContext* context) {
  return std::make_unique<TrackTables>(context);
}

}  // namespace tracewire::tools::query
