// Tasks (tw_task_*): work that crosses threads. A task's ID comes from its beginning
// thread's block of IDs; the thread keeps the task in its begun_tasks until a thread ends
// it (its own end removes it at once when it is among its latest; an end on another thread
// is noted in that thread's ended_tasks and reconciled at the generation switch, which
// re-states the tasks still active). Everything happens inside an event: no lock.
#include <algorithm>

#include "runtime/category_filter.h"
#include "runtime/emit.h"
#include "runtime/recorder.h"
#include "runtime/session.h"
#include "tracewire/tracewire.h"

namespace tracewire::runtime {
namespace {

// Task IDs a thread takes from the process at a time.
constexpr uint64_t kTaskIdBlock = 4096;
// How many of its latest tasks a thread searches when it ends one itself.
constexpr size_t kOwnEndSearch = 8;

// The site of task_end, task_adopt and task_release: no file, no category (pre-registered).
inline uint64_t BareSiteId(ThreadState* ts) {
  return GenSiteId(ts, GetSession().signal_site_index);
}

}  // namespace
}  // namespace tracewire::runtime

using namespace tracewire::runtime;  // NOLINT: C entry points below
using tracewire::format::EventType;

extern "C" {

uint64_t tw_task_begin_fl(const char* file, int line, uint64_t parent, const char* category,
                          const char* name) {
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return 0;
  const uint32_t index = SiteIndexForContent(ts, file, line, category, name, TW_NO_REPO);
  if (SiteFiltered(index)) {
    EndEvent(ts);
    return 0;
  }
  if (ts->next_task_id == ts->task_id_limit) {
    // relaxed: a unique-ID counter; the IDs publish no data.
    ts->next_task_id =
        GetSession().next_task_block.fetch_add(kTaskIdBlock, std::memory_order_relaxed);
    ts->task_id_limit = ts->next_task_id + kTaskIdBlock;
  }
  const uint64_t id = ts->next_task_id++;
  MaybeRecordStack(ts, EventType::kTaskBegin);
  const uint64_t site = GenSiteId(ts, index);
  uint64_t now;
  const uint64_t dt = StampEvent(ts, &now);
  WriteEvent(ts, EventType::kTaskBegin, {dt, site, id, parent});
  ts->begun_tasks.push_back(TaskRecord{id, parent, index, now});
  EndEvent(ts);
  return id;
}

void tw_task_end(uint64_t task) {
  if (!TW_ENABLED() || task == 0) return;
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  WriteTimed(ts, EventType::kTaskEnd, BareSiteId(ts), {task});
  std::vector<TaskRecord>& begun = ts->begun_tasks;
  const size_t searched = std::min(begun.size(), kOwnEndSearch);
  bool found = false;
  for (size_t i = begun.size(); i > begun.size() - searched; --i) {
    if (begun[i - 1].id == task) {
      begun.erase(begun.begin() + static_cast<ptrdiff_t>(i - 1));
      found = true;
      break;
    }
  }
  if (!found) ts->ended_tasks.push_back(task);
  EndEvent(ts);
}

void tw_task_adopt(uint64_t task) {
  if (!TW_ENABLED()) return;
  if (task == 0) {
    tw_task_release();
    return;
  }
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  if (ts->adopted_task != task) {
    WriteTimed(ts, EventType::kTaskAdopt, BareSiteId(ts), {task});
    ts->adopted_task = task;
  }
  EndEvent(ts);
}

void tw_task_release(void) {
  if (!TW_ENABLED()) return;
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  if (ts->adopted_task != 0) {
    WriteTimed(ts, EventType::kTaskRelease, BareSiteId(ts), {ts->adopted_task});
    ts->adopted_task = 0;
  }
  EndEvent(ts);
}

int tw_category_enabled(const char* category) {
  if (!TW_ENABLED()) return 0;
  return CategoryRecorded(category == nullptr ? "" : category) ? 1 : 0;
}

}  // extern "C"
