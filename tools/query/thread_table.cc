// The `thread` table: one row per thread of each process, written at the end of the load,
// with the times of its lifetime slice and its kernel thread id where known (Perfetto's
// `thread.tid`).
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "reader/sid_parts.h"
#include "tools/query/table_writer.h"

namespace tracewire::tools::query {
namespace {

constexpr char kSchema[] = R"sql(
CREATE TABLE thread (
  utid INTEGER PRIMARY KEY,
  upid INTEGER,
  name TEXT,
  start_ts INTEGER,
  end_ts INTEGER,
  is_main_thread INTEGER,
  tid INTEGER
);
)sql";

constexpr char kInsert[] =
    "INSERT INTO thread (utid, upid, name, start_ts, end_ts, is_main_thread, tid) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

class ThreadTable : public TableWriter {
 public:
  using TableWriter::TableWriter;

  absl::string_view Schema() const override { return kSchema; }
  absl::Status Prepare() override { return PrepareInsert(kInsert, &insert_); }
  bool wants_slices() const override { return true; }

  void OnSliceBegin(const reader::Slice& slice, const reader::Event& /*begin*/) override {
    if (slice.kind != reader::SliceKind::kThread) return;
    Times(slice.thread).start = LoadContext::Ns(slice.begin);
  }
  void OnSliceEnd(const reader::Slice& slice, const reader::SliceEnding& /*end*/,
                  const EndedSlice& row) override {
    if (slice.kind != reader::SliceKind::kThread) return;
    Times(slice.thread).end = row.ts + row.dur;
  }

  void Finish() override {
    const std::vector<reader::ThreadTrack>& threads = context().tracks().threads();
    for (uint32_t t = 0; t < threads.size(); ++t) {
      const ThreadTimes times = t < times_.size() ? times_[t] : ThreadTimes{};
      insert_.BindInt(1, LoadContext::Utid(t));
      insert_.BindInt(2, LoadContext::Upid(threads[t].process));
      insert_.BindText(3, threads[t].name);
      insert_.BindOptionalInt(4, times.start);
      insert_.BindOptionalInt(5, times.end);
      insert_.BindInt(6, threads[t].thread_id == 0 ? 1 : 0);
      // The kernel's thread id; for a trace that does not record it, the main thread's is
      // its process's pid and the others' unknown.
      std::optional<int64_t> tid;
      if (threads[t].tid != 0) {
        tid = static_cast<int64_t>(threads[t].tid);
      } else if (threads[t].thread_id == 0) {
        if (std::optional<uint32_t> pid = reader::PidFromSidComponent(
                reader::SidLastComponent(context().tracks().process(threads[t].process).sid))) {
          tid = *pid;
        }
      }
      insert_.BindOptionalInt(7, tid);
      insert_.Run();
    }
  }

 private:
  struct ThreadTimes {
    std::optional<int64_t> start;
    std::optional<int64_t> end;
  };
  ThreadTimes& Times(uint32_t thread) {
    if (thread >= times_.size()) times_.resize(thread + 1);
    return times_[thread];
  }
  RowInserter insert_;
  std::vector<ThreadTimes> times_;  // by thread index
};

}  // namespace

std::unique_ptr<TableWriter> MakeThreadTable(LoadContext* context) {
  return std::make_unique<ThreadTable>(context);
}

}  // namespace tracewire::tools::query
