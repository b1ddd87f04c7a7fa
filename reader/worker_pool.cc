#include "reader/worker_pool.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <utility>

#include "reader/worker_pool_internal.h"

namespace tracewire::reader {
namespace worker_pool_internal {

std::shared_ptr<const OwnedGeneration> Own(const RawGeneration& framed,
                                           const std::shared_ptr<Spares>& spares) {
  auto owned = std::make_shared<OwnedGeneration>();
  owned->spares = spares;
  owned->raw = framed;
  const char* low = nullptr;
  const char* high = nullptr;
  for (const Frame& f : framed.frames) {
    if (f.payload.data() == nullptr) continue;
    if (low == nullptr || f.payload.data() < low) low = f.payload.data();
    if (high == nullptr || f.payload.data() + f.payload.size() > high) {
      high = f.payload.data() + f.payload.size();
    }
  }
  if (low == nullptr) return owned;
  const size_t size = high - low;
  owned->bytes = spares->TryTakeBuffer(std::max<size_t>(size, 1));
  if (owned->bytes.capacity == 0) return nullptr;  // over the budget
  char* const copy = owned->bytes.data.get();
  // Only empty payloads: a fresh zero-size buffer has no data (a recycled one has, so
  // whether this happens depends on which buffers the workers gave back first).
  if (size != 0) std::memcpy(copy, low, size);
  for (Frame& f : owned->raw.frames) {
    if (f.payload.data() == nullptr) continue;
    f.payload = absl::string_view(copy + (f.payload.data() - low), f.payload.size());
  }
  return owned;
}

}  // namespace worker_pool_internal

using worker_pool_internal::Block;
using worker_pool_internal::EventCopies;
using worker_pool_internal::kCopyBlockEvents;
using worker_pool_internal::Spares;

void WorkerPool::State::Loop() {
  std::unique_lock<std::mutex> lock(mu);
  while (true) {
    cv.wait(lock, [&] { return stop || !tasks.empty() || !pending.empty(); });
    if (stop) return;
    if (RunQueuedTask(lock)) continue;  // tasks first: the reader waits on them
    std::shared_ptr<Job> job = std::move(pending.front());
    pending.pop_front();
    if (job->cancelled) {
      job->done = job->failed = job->verdict = true;
      cv.notify_all();
      continue;
    }
    job->running = true;
    lock.unlock();
    Run(job);
    lock.lock();
    job->running = false;
    cv.notify_all();
  }
}

// Runs the oldest queued task, if any (with `lock` held on entry and exit).
bool WorkerPool::State::RunQueuedTask(std::unique_lock<std::mutex>& lock) {
  if (tasks.empty()) return false;
  std::shared_ptr<Task> task = std::move(tasks.front());
  tasks.pop_front();
  RunTask(task, lock);
  return true;
}

void WorkerPool::State::RunTask(const std::shared_ptr<Task>& task,
                                std::unique_lock<std::mutex>& lock) {
  task->started = true;
  lock.unlock();
  std::unique_ptr<GenerationWork> work = options.make_work();
  for (const Event& event : task->copies->events) work->Add(event);
  std::unique_ptr<BlockPayload> payload = work->TakeBlock();
  task->copies = nullptr;  // back to the spares
  lock.lock();
  task->payload = std::move(payload);
  task->done = true;
  task->job = nullptr;
  cv.notify_all();
}

// Queues `block` of `job`, waiting (and helping) while too much is queued; false if the
// job was cancelled.
bool WorkerPool::State::Push(Job& job, Block block) {
  std::unique_lock<std::mutex> lock(mu);
  HelpUntil(lock, [&] {
    return job.cancelled || job.blocks.empty() || job.queued_bytes < options.max_block_bytes;
  });
  if (job.cancelled) return false;
  if (block.task != nullptr) tasks.push_back(block.task);
  job.queued_bytes += block.bytes;
  job.blocks.push_back(std::move(block));
  cv.notify_all();
  return true;
}

void WorkerPool::State::Finish(Job& job, bool ok) {
  std::lock_guard<std::mutex> lock(mu);
  job.done = true;
  job.failed = !ok;
  job.verdict = true;
  cv.notify_all();
}

// Decodes `job` (on a worker).
void WorkerPool::State::Run(const std::shared_ptr<Job>& job_ptr) {
  Job& job = *job_ptr;
  GenerationDecoder& decoder = job.decoder;
  decoder.set_speculation_log(&job.log);
  const bool count_only = options.count_only && options.commit;
  decoder.set_fill_events(!job.salvage && !count_only);
  absl::Status status = decoder.Start(job.gen->raw, &job.states);
  if (job.salvage) {
    // Validate all of it first: a generation that fails is not delivered at all.
    if (status.ok()) {
      for (uint64_t n = 1; decoder.Next() != nullptr; ++n) {
        if ((n & 0xffff) == 0 && Cancelled(job)) return Finish(job, false);
      }
      status = decoder.status();
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      job.verdict = true;
      job.valid = status.ok();
      job.verdict_entries = job.log.TakeEntries();
      if (status.ok()) job.sid = decoder.info().sid;
      cv.notify_all();
    }
    if (!status.ok()) return Finish(job, false);
    decoder.set_speculation_log(nullptr);
    decoder.set_fill_events(!count_only);
    status = decoder.Start(job.gen->raw, &job.replay_states);
    if (!status.ok()) return Finish(job, false);
  } else {
    if (!status.ok()) return Finish(job, false);
    std::lock_guard<std::mutex> lock(mu);
    job.sid = decoder.info().sid;
  }

  if (job.skip > 0) {
    // A later part: decode the events before it without filling them. What they logged
    // is checked with the earlier parts' blocks.
    decoder.set_fill_events(false);
    uint64_t n = 0;
    while (n < job.skip) {
      if (decoder.Next() == nullptr) break;
      job.log.Clear();
      if ((++n & 0xffff) == 0 && Cancelled(job)) return Finish(job, false);
    }
    decoder.set_fill_events(true);
    if (n < job.skip) {
      // The generation ends before the part (or fails, which an earlier part then
      // reports): only the last part hands over what the end logged.
      if (!decoder.status().ok()) return Finish(job, false);
      if (!job.last_part) return Finish(job, true);
      Block block;
      block.entries = job.log.TakeEntries();
      if (!Push(job, std::move(block))) return Finish(job, false);
      return Finish(job, true);
    }
  }
  if (count_only) {
    // One block per generation: nothing waits for the events themselves.
    uint64_t events = 0;
    while (decoder.Next() != nullptr) {
      if ((++events & 0xffff) == 0 && Cancelled(job)) return Finish(job, false);
    }
    const bool ok = decoder.status().ok();
    if (ok) {
      Block block;
      block.entries = job.log.TakeEntries();
      block.events = events;
      block.counted = true;
      if (!Push(job, std::move(block))) return Finish(job, false);
    }
    return Finish(job, ok);
  }
  const bool with_work = options.make_work && options.commit;
  std::unique_ptr<GenerationWork> work;
  if (with_work && !options.work_on_copies) work = options.make_work();
  std::shared_ptr<EventCopies> copies;
  uint64_t events = 0;
  size_t logged = 0;  // log entries up to the last event
  auto push = [&]() {
    Block block;
    block.entries = job.log.TakeEntries();
    logged = 0;
    block.events = events;
    if (work != nullptr) {
      block.payload = work->TakeBlock();
      block.bytes = block.payload->bytes();
    } else if (copies != nullptr) {
      block.bytes = copies->events.size() * sizeof(Event);
      if (with_work) {
        block.task = std::make_shared<Task>();
        block.task->job = job_ptr;
        block.task->copies = std::move(copies);
      } else {
        block.copies = std::move(copies);
      }
      copies = nullptr;
    } else if (with_work) {
      block.task = std::make_shared<Task>();  // no events: an empty payload
      block.task->job = job_ptr;
      block.task->copies = Spares::TakeCopies(spares);
    }
    events = 0;
    return Push(job, std::move(block));
  };
  uint64_t part_events = 0;
  while (part_events < job.limit) {
    const Event* event = decoder.Next();
    if (event == nullptr) break;
    ++part_events;
    ++events;
    logged = job.log.size();
    if (work != nullptr) {
      work->Add(*event);
      if (!work->BlockFull()) continue;
    } else {
      if (copies == nullptr) copies = Spares::TakeCopies(spares);
      copies->Add(*event);
      if (copies->events.size() < kCopyBlockEvents) continue;
    }
    if (!push()) return Finish(job, false);
  }
  // The last block also carries what the end of the generation logged (and exists even
  // for a generation without events); of the parts, only the last one does.
  const bool ok = decoder.status().ok();
  if (!job.last_part && part_events < job.limit) job.log.Truncate(logged);
  if (ok && !push()) return Finish(job, false);
  Finish(job, ok);
}

bool WorkerPool::State::Cancelled(Job& job) {
  std::lock_guard<std::mutex> lock(mu);
  return job.cancelled;
}

WorkerPool::WorkerPool(ParallelOptions options) : state_(std::make_shared<State>()) {
  state_->options = std::move(options);
  const int jobs = std::max(1, state_->options.jobs);
  // Jobs handed out: a generation has one per part.
  state_->max_outstanding = (2 * static_cast<size_t>(jobs) + 2) *
                            (state_->options.split_generations ? static_cast<size_t>(jobs) : 1);
  state_->spares = std::make_shared<Spares>(
      4 * state_->max_outstanding,
      state_->options.max_framed_bytes_per_job * static_cast<size_t>(std::max(1, jobs - 1)));
  for (int i = 0; i < jobs; ++i) {
    state_->threads.emplace_back([state = state_.get()] { state->Loop(); });
  }
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->stop = true;
    for (const std::shared_ptr<Job>& job : state_->pending) job->cancelled = true;
    state_->cv.notify_all();
  }
  for (std::thread& thread : state_->threads) thread.join();
}

const ParallelOptions& WorkerPool::options() const { return state_->options; }

ParallelCounters WorkerPool::counters() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->counters;
}

}  // namespace tracewire::reader
