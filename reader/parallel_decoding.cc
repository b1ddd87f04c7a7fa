#include "reader/parallel_decoding.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "reader/generation_decoder.h"
#include "reader/worker_pool_internal.h"

namespace tracewire::reader {

using worker_pool_internal::Block;
using worker_pool_internal::Own;
using worker_pool_internal::OwnedGeneration;

struct ParallelDecoding::Framed {
  absl::Status status;  // a framing error
  bool end = false;     // the end of the input
  std::shared_ptr<const OwnedGeneration> gen;
  uint64_t payload_bytes = 0;            // of its event batches
  std::shared_ptr<WorkerPool::Job> job;  // nullptr: decoded by the reader
  // split_generations: the parts after `job`'s, in order.
  std::deque<std::shared_ptr<WorkerPool::Job>> later_parts;

  // Every part's job.
  std::vector<std::shared_ptr<WorkerPool::Job>> Jobs() const {
    std::vector<std::shared_ptr<WorkerPool::Job>> jobs;
    if (job != nullptr) jobs.push_back(job);
    jobs.insert(jobs.end(), later_parts.begin(), later_parts.end());
    return jobs;
  }
};

ParallelDecoding::ParallelDecoding(std::shared_ptr<WorkerPool> pool, bool salvage)
    : pool_(std::move(pool)),
      options_(pool_->options()),
      salvage_(salvage),
      depth_(static_cast<size_t>(std::max(1, options_.jobs)) + 1) {}

ParallelDecoding::~ParallelDecoding() {
  std::vector<std::shared_ptr<WorkerPool::Job>> jobs;
  if (current_ != nullptr) jobs = current_->Jobs();
  for (const std::unique_ptr<Framed>& f : window_) {
    for (std::shared_ptr<WorkerPool::Job>& job : f->Jobs()) jobs.push_back(std::move(job));
  }
  for (std::shared_ptr<WorkerPool::Job> job : jobs) Release(job);  // (Release resets its copy)
  // No worker may go on decoding what the reader's owner may free.
  WorkerPool::State& pool = *pool_->state_;
  std::unique_lock<std::mutex> lock(pool.mu);
  for (const std::shared_ptr<WorkerPool::Job>& job : jobs) {
    pool.cv.wait(lock, [&] { return !job->running; });
  }
}

void ParallelDecoding::Release(std::shared_ptr<WorkerPool::Job>& job) {
  if (job == nullptr) return;
  WorkerPool::State& pool = *pool_->state_;
  {
    std::lock_guard<std::mutex> lock(pool.mu);
    job->cancelled = true;
    auto it = std::find(pool.pending.begin(), pool.pending.end(), job);
    if (it != pool.pending.end()) pool.pending.erase(it);
    // Its queued tasks are not needed any more.
    for (const Block& block : job->blocks) {
      if (block.task == nullptr || block.task->started) continue;
      auto queued = std::find(pool.tasks.begin(), pool.tasks.end(), block.task);
      if (queued != pool.tasks.end()) pool.tasks.erase(queued);
    }
    --pool.outstanding;
    pool.cv.notify_all();
  }
  job = nullptr;
}

void ParallelDecoding::ReleaseAll() {
  if (current_ == nullptr) return;
  Release(current_->job);
  for (std::shared_ptr<WorkerPool::Job>& job : current_->later_parts) Release(job);
  current_->later_parts.clear();
}

size_t ParallelDecoding::Parts(uint64_t payload_bytes, uint64_t* part_events) const {
  *part_events = 0;
  if (!options_.split_generations || salvage_ || options_.count_only || options_.work_on_copies ||
      !options_.make_work || !options_.commit) {
    return 1;
  }
  // Events per byte of the generations taken so far (about four bytes per event before).
  const double per_byte = seen_payload_bytes_ > 0 ? static_cast<double>(seen_events_) /
                                                        static_cast<double>(seen_payload_bytes_)
                                                  : 0.25;
  const double events = static_cast<double>(payload_bytes) * per_byte;
  // Small generations are not worth cutting: each later part decodes what is before it.
  const size_t parts = static_cast<size_t>(std::max(1, options_.jobs));
  if (parts < 2 ||
      events < static_cast<double>(options_.min_part_events) * static_cast<double>(parts)) {
    return 1;
  }
  *part_events = static_cast<uint64_t>(events / static_cast<double>(parts)) + 1;
  return parts;
}

void ParallelDecoding::Count(uint64_t ParallelCounters::*counter) {
  std::lock_guard<std::mutex> lock(pool_->state_->mu);
  ++(pool_->state_->counters.*counter);
}

void ParallelDecoding::Resynchronized() { framing_done_ = false; }

absl::StatusOr<bool> ParallelDecoding::NextFramed(FrameReader* frames, RawGeneration* gen) {
  ReleaseAll();
  current_ = nullptr;
  replay_ = nullptr;
  replay_next_ = replay_end_ = nullptr;
  WorkerPool::State& pool = *pool_->state_;
  // A generation held uncopied is in the frame reader's buffer: no framing past it.
  while (!framing_done_ && !holding_uncopied_ && window_.size() < depth_) {
    auto f = std::make_unique<Framed>();
    absl::StatusOr<bool> more = frames->Next(&framed_);
    if (!more.ok()) {
      f->status = more.status();
      framing_done_ = true;
    } else if (!*more) {
      f->end = true;
      framing_done_ = true;
    } else if (f->gen = Own(framed_, pool.spares); f->gen == nullptr) {
      // Over the memory for copies: the reader decodes it from framed_ when it gets there.
      holding_uncopied_ = true;
    } else {
      for (const Frame& frame : framed_.frames) {
        if (frame.type == format::EventType::kEventBatch) f->payload_bytes += frame.payload.size();
      }
      uint64_t part_events = 0;
      const size_t parts = Parts(f->payload_bytes, &part_events);
      std::lock_guard<std::mutex> lock(pool.mu);
      if (pool.outstanding + parts <= pool.max_outstanding) {
        for (size_t part = 0; part < parts; ++part) {
          ++pool.outstanding;
          auto job = std::make_shared<WorkerPool::Job>(pool.spares);
          job->gen = f->gen;
          job->salvage = salvage_;
          job->last_part = part + 1 == parts;
          if (parts > 1) {
            job->skip = part * part_events;
            if (!job->last_part) job->limit = part_events;
          }
          pool.pending.push_back(job);
          if (part == 0) {
            f->job = std::move(job);
          } else {
            f->later_parts.push_back(std::move(job));
          }
        }
        pool.cv.notify_all();
      }
    }
    window_.push_back(std::move(f));
  }
  if (window_.empty()) return frames->Next(gen);  // after the end or an error
  current_ = std::move(window_.front());
  window_.pop_front();
  if (!current_->status.ok()) return current_->status;
  if (current_->end) return false;
  if (current_->gen == nullptr) {
    holding_uncopied_ = false;
    *gen = framed_;
    return true;
  }
  *gen = current_->gen->raw;
  return true;
}

bool ParallelDecoding::Begin(ProcessStates* states) {
  completed_ = false;
  delivered_ = committed_ = 0;
  checking_ = false;
  states_ = states;
  if (current_ == nullptr) return false;  // framed by the reader itself (after an error)
  std::shared_ptr<WorkerPool::Job>& job = current_->job;
  if (job == nullptr) return false;
  WorkerPool::State& pool = *pool_->state_;
  std::vector<SpeculationLog::Entry> entries;
  bool valid;
  {
    std::unique_lock<std::mutex> lock(pool.mu);
    const bool unstarted =
        std::find(pool.pending.begin(), pool.pending.end(), job) != pool.pending.end();
    if (unstarted && options_.reader_decodes_unstarted) {
      // Not started yet: decoding it here beats waiting (and the workers may all be blocked
      // on generations of other inputs that wait for this reader).
      ++pool.counters.unstarted;
      lock.unlock();
      ReleaseAll();
      return false;
    }
    if (!salvage_) return true;
    pool.HelpUntil(lock, [&] { return job->verdict; });
    valid = job->valid;
    entries = std::move(job->verdict_entries);
  }
  if (!valid || !check_.Begin(*states, job->sid, current_->gen->raw.gen) ||
      !check_.Check(entries)) {
    ReleaseAll();
    Count(&ParallelCounters::fell_back);
    return false;
  }
  checking_ = true;
  return true;
}

const Event* ParallelDecoding::FallBack() {
  Count(&ParallelCounters::fell_back);
  ReleaseAll();
  completed_ = false;
  return nullptr;
}

const Event* ParallelDecoding::Next() {
  if (replay_next_ != replay_end_) return replay_next_++;
  replay_ = nullptr;
  WorkerPool::State& pool = *pool_->state_;
  while (true) {
    WorkerPool::Job& job = *current_->job;
    Block block;
    {
      std::unique_lock<std::mutex> lock(pool.mu);
      pool.HelpUntil(lock, [&] { return !job.blocks.empty() || job.done; });
      if (job.blocks.empty()) {
        if (job.failed || current_->later_parts.empty()) break;
        // This part is over: the next one goes on from its last event.
        lock.unlock();
        Release(current_->job);
        current_->job = std::move(current_->later_parts.front());
        current_->later_parts.pop_front();
        continue;
      }
      block = std::move(job.blocks.front());
      job.blocks.pop_front();
      job.queued_bytes -= block.bytes;
      pool.cv.notify_all();
      if (block.task != nullptr) {
        // Run it here if no thread has started it, else wait for it (helping meanwhile).
        std::shared_ptr<WorkerPool::Task>& task = block.task;
        if (!task->started) {
          pool.tasks.erase(std::find(pool.tasks.begin(), pool.tasks.end(), task));
          pool.RunTask(task, lock);
        } else {
          pool.HelpUntil(lock, [&] { return task->done; });
        }
        block.payload = std::move(task->payload);
      }
    }
    if (!checking_) {
      if (!check_.Begin(*states_, job.sid, current_->gen->raw.gen)) return FallBack();
      checking_ = true;
    }
    if (!check_.Check(block.entries)) return FallBack();
    delivered_ += block.events;
    if (block.payload != nullptr || block.counted) {
      committed_ += block.events;
      options_.commit(CommittedBlock{job.sid, block.events, std::move(block.payload)});
      continue;
    }
    if (block.copies != nullptr && !block.copies->events.empty()) {
      replay_next_ = block.copies->events.data();
      replay_end_ = replay_next_ + block.copies->events.size();
      replay_ = std::move(block.copies);
      return replay_next_++;
    }
  }
  WorkerPool::Job& job = *current_->job;  // the last part
  bool failed;
  {
    std::lock_guard<std::mutex> lock(pool.mu);
    failed = job.failed;
  }
  if (failed) return FallBack();
  const ProcessState* decoded = job.states.Find(job.sid);
  check_.Apply(*decoded, states_);
  completed_ = true;
  seen_events_ += delivered_;
  seen_payload_bytes_ += current_->payload_bytes;
  Count(&ParallelCounters::taken);
  ReleaseAll();
  return nullptr;
}

}  // namespace tracewire::reader
