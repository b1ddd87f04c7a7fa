#include "reader/speculation_log.h"

#include <memory>
#include <utility>

namespace tracewire::reader {

bool SpeculationCheck::Begin(const ProcessStates& states, absl::string_view sid, uint64_t gen) {
  real_ = states.Find(sid);
  sid_ = std::string(sid);
  gen_ = gen;
  threads_.clear();
  pairs_ = ProcessState();
  if (real_ == nullptr) return true;
  if (real_->last_gen.has_value() && gen <= *real_->last_gen) return false;
  pairs_.saw_process_start = real_->saw_process_start;
  pairs_.open_children = real_->open_children;
  pairs_.open_execs = real_->open_execs;
  pairs_.open_tasks = real_->open_tasks;
  return true;
}

bool SpeculationCheck::Check(const std::vector<SpeculationLog::Entry>& entries) {
  using Op = SpeculationLog::Op;
  for (const SpeculationLog::Entry& entry : entries) {
    const ThreadState* thread = nullptr;
    if (real_ != nullptr &&
        (entry.op == Op::kThread || entry.op == Op::kRestated || entry.op == Op::kThreadStart)) {
      auto it = real_->threads.find(entry.id);
      if (it != real_->threads.end()) thread = it->second.get();
    }
    switch (entry.op) {
      case Op::kThread:
        if (thread != nullptr) {
          if (entry.default_name && thread->name != entry.name) return false;
          if (entry.default_tid && thread->tid != 0) return false;
          if (entry.default_times && (thread->start_time != entry.start_time ||
                                      !thread->regions.empty() || thread->adopted_task != 0)) {
            return false;
          }
        }
        threads_.emplace_back(Op::kThread, entry.id);
        threads_.back().has_records = entry.has_records;
        break;
      case Op::kRestated:
        if (thread != nullptr && thread->carried.has_value() && *thread->carried != entry.regions) {
          return false;
        }
        if (thread != nullptr && thread->carried_adopted.has_value() &&
            *thread->carried_adopted != entry.adopted_task) {
          return false;
        }
        break;
      case Op::kThreadStart:
        if (thread != nullptr && thread->started) return false;
        break;
      case Op::kProcessStart:
        pairs_.saw_process_start = true;
        break;
      case Op::kChildStart:
        if (!pairs_.StartChild(entry.id)) return false;
        break;
      case Op::kChildEnd:
        if (!pairs_.EndChild(entry.id)) return false;
        break;
      case Op::kChildReady:
        if (!pairs_.ChildReady(entry.id)) return false;
        break;
      case Op::kExecStart:
        if (!pairs_.StartExec(entry.id)) return false;
        break;
      case Op::kExecEnd:
        if (!pairs_.EndExec(entry.id)) return false;
        break;
      case Op::kTaskBegin:
        if (!pairs_.StartTask(entry.id)) return false;
        break;
      case Op::kTaskEnd:
        pairs_.EndTask(entry.id);
        break;
      case Op::kTaskActive:
        if (!pairs_.RestateTask(entry.id)) return false;
        break;
    }
  }
  return true;
}

void SpeculationCheck::Apply(const ProcessState& decoded, ProcessStates* states) {
  ProcessState* real = states->FindOrCreate(sid_);
  real->pid = decoded.pid;
  real->start_time = decoded.start_time;
  real->last_gen = gen_;
  real->saw_process_start = pairs_.saw_process_start;
  real->open_children = std::move(pairs_.open_children);
  real->open_execs = std::move(pairs_.open_execs);
  real->open_tasks = std::move(pairs_.open_tasks);
  for (const SpeculationLog::Entry& entry : threads_) {
    auto real_thread = real->threads.find(entry.id);
    auto thread = decoded.threads.find(entry.id);
    if (!entry.has_records) {
      // Unchanged if known; a thread first met with an empty stream starts as new.
      if (real_thread == real->threads.end() && thread != decoded.threads.end()) {
        real->threads.emplace(entry.id, std::make_unique<ThreadState>(*thread->second));
      }
      continue;
    }
    if (thread == decoded.threads.end()) {  // thread_exit: dropped at the generation's end
      if (real_thread != real->threads.end()) real->threads.erase(real_thread);
      continue;
    }
    if (real_thread == real->threads.end()) {
      real->threads.emplace(entry.id, std::make_unique<ThreadState>(*thread->second));
    } else {
      const bool started = real_thread->second->started;
      *real_thread->second = *thread->second;
      real_thread->second->started |= started;
    }
  }
}

}  // namespace tracewire::reader
