// LoadContext: what the tables of `tracewire query` share while a trace is loaded: the ids
// of processes (upid), threads (utid), slices, tasks and task segments (each numbered apart), the
// open slices' ids and child time, and the conversions of times to the schema's nanoseconds since
// the Unix epoch. The loader (loader.h) keeps it up to date before any table sees a callback.
#ifndef TRACEWIRE_TOOLS_QUERY_LOAD_CONTEXT_H_
#define TRACEWIRE_TOOLS_QUERY_LOAD_CONTEXT_H_

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "reader/track_model.h"
#include "tools/query/row_inserter.h"
#include "tools/query/sqlite_database.h"

namespace tracewire::tools::query {

// A slice as it ended: what the slice tables write.
struct EndedSlice {
  int64_t id = 0;
  int64_t ts = 0;                    // begin, ns since the Unix epoch
  int64_t dur = 0;                   // ns
  int64_t self_dur = 0;              // dur minus the durations of its direct children
  std::optional<int64_t> parent_id;  // regions: the enclosing region's slice
};

class LoadContext {
 public:
  LoadContext(SqliteDatabase* db, const reader::TrackModel* tracks) : db_(db), tracks_(tracks) {}

  SqliteDatabase* db() const { return db_; }
  const reader::TrackModel& tracks() const { return *tracks_; }

  // The schema's ids of a track model process and thread index (from 1).
  static int64_t Upid(uint32_t process) { return int64_t{process} + 1; }
  static int64_t Utid(uint32_t thread) { return int64_t{thread} + 1; }
  // A time as the schema stores it: ns since the Unix epoch.
  static int64_t Ns(absl::Time time) { return absl::ToUnixNanos(time); }
  // A `task_id` column: the program's task ID, NULL for 0 (no task).
  static std::optional<int64_t> TaskId(uint64_t task) {
    if (task == 0) return std::nullopt;
    return static_cast<int64_t>(task);
  }

  // The id of the open slice in `slot`.
  int64_t SliceId(uint32_t slot) const { return open_[slot].id; }
  // The `task` row of task ID `task_id` of process `process`, while that task is open.
  std::optional<int64_t> OpenTask(uint32_t process, uint64_t task_id) const {
    const reader::ProcessTrack& p = tracks_->process(process);
    auto it = p.task_lane_of.find(task_id);
    if (it == p.task_lane_of.end()) return std::nullopt;
    return open_[p.task_lanes[it->second].slot].id;
  }
  // The id of the innermost region open on thread `thread`, if any.
  std::optional<int64_t> EnclosingRegion(uint32_t thread) const {
    const absl::Span<const reader::Slice> regions = tracks_->OpenRegions(thread);
    if (regions.empty()) return std::nullopt;
    return open_[regions.back().slot].id;
  }
  // The id of thread `thread`'s lifetime slice (0 before it began).
  int64_t ThreadSliceId(uint32_t thread) const {
    return thread < thread_slices_.size() ? thread_slices_[thread] : 0;
  }

  // Tracks (Perfetto's track ids: one numbering for thread, process and counter tracks).
  // A new track's id.
  int64_t NewTrackId() { return next_track_id_++; }
  // The id of thread `thread`'s track (the `thread_track` row), allocated when first asked.
  int64_t ThreadTrackId(uint32_t thread) {
    if (thread >= thread_tracks_.size()) thread_tracks_.resize(thread + 1, 0);
    if (thread_tracks_[thread] == 0) thread_tracks_[thread] = NewTrackId();
    return thread_tracks_[thread];
  }
  // The id of lane `lane` of process `process`'s children track (a `process_track` row named
  // "children", "children 2", ..., as the Perfetto export names them), allocated when first
  // asked.
  int64_t ChildLaneTrackId(uint32_t process, uint32_t lane) {
    auto [it, inserted] = child_lane_tracks_.try_emplace(std::make_pair(process, lane), 0);
    if (inserted) it->second = NewTrackId();
    return it->second;
  }
  // The children lane tracks allocated: (process, lane) -> id.
  const absl::flat_hash_map<std::pair<uint32_t, uint32_t>, int64_t>& child_lane_tracks() const {
    return child_lane_tracks_;
  }

  // Inserters are flushed by FlushInserters() (the loader's, before every commit).
  void AddInserter(RowInserter* inserter) { inserters_.push_back(inserter); }
  void FlushInserters() {
    for (RowInserter* inserter : inserters_) inserter->Flush();
  }

  // For the loader: a slice began (its id is the next one) / ends (its row's numbers; the
  // slot stays valid until the tables have seen the end).
  void BeginSlice(const reader::Slice& slice);
  EndedSlice EndSlice(const reader::Slice& slice, const reader::SliceEnding& end);

 private:
  struct OpenSlice {
    int64_t id = 0;
    int64_t child_dur = 0;  // sum of the durations of its direct children so far
  };
  SqliteDatabase* db_;
  const reader::TrackModel* tracks_;
  int64_t next_slice_id_ = 1;
  int64_t next_task_id_ = 1;            // `task` rows
  int64_t next_segment_id_ = 1;         // `task_segment` rows
  std::vector<OpenSlice> open_;         // by slot
  std::vector<int64_t> thread_slices_;  // by thread index
  int64_t next_track_id_ = 1;
  std::vector<int64_t> thread_tracks_;  // by thread index, 0: not yet allocated
  absl::flat_hash_map<std::pair<uint32_t, uint32_t>, int64_t> child_lane_tracks_;
  std::vector<RowInserter*> inserters_;
};

}  // namespace tracewire::tools::query

#endif  // TRACEWIRE_TOOLS_QUERY_LOAD_CONTEXT_H_
