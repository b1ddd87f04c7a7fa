#include "tools/query/load_context.h"

#include <cmath>

namespace tracewire::tools::query {
namespace {

// Seconds as integer nanoseconds (0 beyond 290 years: invalid input), rounded as `stats`
// rounds them.
int64_t Nanoseconds(double seconds) {
  const double ns = seconds * 1e9;
  return std::fabs(ns) < 9.2e18 ? std::llround(ns) : 0;
}

}  // namespace

void LoadContext::BeginSlice(const reader::Slice& slice) {
  if (slice.slot >= open_.size()) open_.resize(slice.slot + 1);
  // Tasks and task segments are rows of their own tables, numbered apart from slices.
  int64_t* next_id = &next_slice_id_;
  if (slice.kind == reader::SliceKind::kTask) next_id = &next_task_id_;
  if (slice.kind == reader::SliceKind::kTaskSegment) next_id = &next_segment_id_;
  open_[slice.slot] = OpenSlice{(*next_id)++, 0};
  if (slice.kind == reader::SliceKind::kThread) {
    if (slice.thread >= thread_slices_.size()) thread_slices_.resize(slice.thread + 1);
    thread_slices_[slice.thread] = open_[slice.slot].id;
  }
}

EndedSlice LoadContext::EndSlice(const reader::Slice& slice, const reader::SliceEnding& end) {
  const OpenSlice& open = open_[slice.slot];
  EndedSlice ended;
  ended.id = open.id;
  ended.ts = Ns(slice.begin);
  // A region or child ended by its own event lasts what git reports on that event (t_rel,
  // as PERF prints it and `stats` sums it); anything else from its begin to its end.
  const bool reported =
      end.cause == reader::SliceEnd::kEndEvent && end.event != nullptr &&
      end.event->t_rel.has_value() &&
      (slice.kind == reader::SliceKind::kRegion || slice.kind == reader::SliceKind::kChild);
  ended.dur = reported ? Nanoseconds(*end.event->t_rel) : Ns(end.time) - ended.ts;
  ended.self_dur = ended.dur - open.child_dur;
  if (slice.kind == reader::SliceKind::kRegion) {
    uint32_t parent_slot = slice.parent;
    if (parent_slot != reader::kNoIndex) {
      ended.parent_id = open_[parent_slot].id;
    } else {
      // An outermost region is a child of its thread's lifetime.
      parent_slot = tracks_->thread(slice.thread).lifetime.slot;
    }
    if (parent_slot != reader::kNoIndex) open_[parent_slot].child_dur += ended.dur;
  }
  return ended;
}

}  // namespace tracewire::tools::query
