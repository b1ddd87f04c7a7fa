#include "reader/parallel_decoding.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "reader/generation_decoder.h"

namespace tracewire::reader {
namespace {

// Events per block of copies.
constexpr size_t kCopyBlockEvents = 1024;

// Copies of a run of events. Thread names are copied too: a thread's name may change
// within the generation.
struct EventCopies {
  std::vector<Event> events;
  std::deque<std::string> names;

  void Clear() {
    events.clear();
    names.clear();
  }

  void Add(const Event& e) {
    Event& copy = events.emplace_back(e);
    const char* buffer = e.int_buffer;
    if (e.value_string.data() >= buffer && e.value_string.data() < buffer + sizeof(e.int_buffer)) {
      copy.value_string = absl::string_view(copy.int_buffer + (e.value_string.data() - buffer),
                                            e.value_string.size());
    }
    if (names.empty() || names.back() != e.thread_name) names.emplace_back(e.thread_name);
    copy.thread_name = names.back();
  }
};

// Memory reused from one generation to the next: fresh pages cost a page fault each, which
// on a VM is as much as decoding hundreds of events.
class Spares {
 public:
  explicit Spares(size_t keep) : keep_(keep) {}

  struct Buffer {
    std::unique_ptr<char[]> data;
    size_t capacity = 0;
  };
  Buffer TakeBuffer(size_t size) {
    Buffer buffer = Take(&buffers_);
    if (buffer.capacity < size) {
      buffer.capacity = std::max(size, buffer.capacity + buffer.capacity / 2);
      buffer.data.reset(new char[buffer.capacity]);
    }
    return buffer;
  }
  void Put(Buffer buffer) { Give(&buffers_, std::move(buffer)); }
  std::unique_ptr<GenerationDecoder> TakeDecoder() {
    std::unique_ptr<GenerationDecoder> decoder = Take(&decoders_);
    return decoder != nullptr ? std::move(decoder) : std::make_unique<GenerationDecoder>();
  }
  void Put(std::unique_ptr<GenerationDecoder> decoder) { Give(&decoders_, std::move(decoder)); }
  // Copies handed out as shared_ptrs that come back here when released.
  static std::shared_ptr<EventCopies> TakeCopies(const std::shared_ptr<Spares>& spares) {
    std::unique_ptr<EventCopies> copies = spares->Take(&spares->copies_);
    if (copies == nullptr) {
      copies = std::make_unique<EventCopies>();
      copies->events.reserve(kCopyBlockEvents);
    }
    return std::shared_ptr<EventCopies>(copies.release(), [spares](EventCopies* released) {
      released->Clear();
      spares->Give(&spares->copies_, std::unique_ptr<EventCopies>(released));
    });
  }

 private:
  template <typename T>
  T Take(std::vector<T>* list) {
    std::lock_guard<std::mutex> lock(mu_);
    if (list->empty()) return T();
    T item = std::move(list->back());
    list->pop_back();
    return item;
  }
  template <typename T>
  void Give(std::vector<T>* list, T item) {
    std::lock_guard<std::mutex> lock(mu_);
    if (list->size() < keep_) list->push_back(std::move(item));
  }

  size_t keep_;
  std::mutex mu_;
  std::vector<Buffer> buffers_;
  std::vector<std::unique_ptr<GenerationDecoder>> decoders_;
  std::vector<std::unique_ptr<EventCopies>> copies_;
};

// A generation's bytes, copied out of the FrameReader, with the frames viewing them.
struct OwnedGeneration {
  std::shared_ptr<Spares> spares;
  Spares::Buffer bytes;
  RawGeneration raw;

  ~OwnedGeneration() {
    if (bytes.data != nullptr) spares->Put(std::move(bytes));
  }
};

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
  owned->bytes = spares->TakeBuffer(high - low);
  char* const copy = owned->bytes.data.get();
  std::memcpy(copy, low, high - low);
  for (Frame& f : owned->raw.frames) {
    if (f.payload.data() == nullptr) continue;
    f.payload = absl::string_view(copy + (f.payload.data() - low), f.payload.size());
  }
  return owned;
}

}  // namespace

// A run of a job's event copies for make_work(), run by whichever thread gets to it first.
struct WorkerPool::Task {
  std::shared_ptr<Job> job;  // its decoder's tables and strings back the copies
  std::shared_ptr<EventCopies> copies;
  std::unique_ptr<BlockPayload> payload;
  bool started = false;
  bool done = false;
};

namespace {

// A run of events of a generation, with the log entries recorded up to its end.
struct Block {
  std::vector<SpeculationLog::Entry> entries;
  uint64_t events = 0;
  std::unique_ptr<BlockPayload> payload;   // make_work() run by the decoding worker
  std::shared_ptr<WorkerPool::Task> task;  // or make_work() run as a task
  std::shared_ptr<EventCopies> copies;     // or the events themselves
  bool counted = false;                    // or only their number (count_only)
  size_t bytes = 0;
};

}  // namespace

// Everything under State::mu but the decoding state, which the worker owns while
// `running` and the reader afterwards.
struct WorkerPool::Job {
  explicit Job(std::shared_ptr<Spares> from)
      : spares(std::move(from)), decoder_owner(spares->TakeDecoder()), decoder(*decoder_owner) {}
  ~Job() { spares->Put(std::move(decoder_owner)); }

  std::shared_ptr<Spares> spares;
  std::shared_ptr<const OwnedGeneration> gen;
  bool salvage = false;
  // A part of the generation (split_generations): the events after the first `skip`, at
  // most `limit` of them.
  uint64_t skip = 0;
  uint64_t limit = ~uint64_t{0};
  bool last_part = true;  // hands over what the end of the generation logs

  // Decoding state. The events handed over view the decoder's tables and `states`.
  ProcessStates states;         // the speculative decoding (its end state is applied)
  ProcessStates replay_states;  // salvage mode: the second pass, which delivers the events
  std::unique_ptr<GenerationDecoder> decoder_owner;
  GenerationDecoder& decoder;
  SpeculationLog log;
  absl::string_view sid;  // the generation's process, set before the first block

  bool cancelled = false;
  bool running = false;
  bool verdict = false;  // salvage mode: the validation pass is over...
  bool valid = false;    // ... and found no error
  std::vector<SpeculationLog::Entry> verdict_entries;
  std::deque<Block> blocks;
  size_t queued_bytes = 0;
  bool done = false;    // no block will follow
  bool failed = false;  // the decoding stopped on an error or was cancelled
};

struct WorkerPool::State {
  ParallelOptions options;
  size_t max_outstanding = 0;
  std::shared_ptr<Spares> spares;
  // One lock for the queues and every job and task: a block is a thousand events or more,
  // so it is taken a few times per thousand events.
  std::mutex mu;
  std::condition_variable cv;  // any change under mu
  std::deque<std::shared_ptr<Job>> pending;
  std::deque<std::shared_ptr<Task>> tasks;
  size_t outstanding = 0;  // jobs handed out and not released
  bool stop = false;
  ParallelCounters counters;
  std::vector<std::thread> threads;

  void Loop() {
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
  bool RunQueuedTask(std::unique_lock<std::mutex>& lock) {
    if (tasks.empty()) return false;
    std::shared_ptr<Task> task = std::move(tasks.front());
    tasks.pop_front();
    RunTask(task, lock);
    return true;
  }

  void RunTask(const std::shared_ptr<Task>& task, std::unique_lock<std::mutex>& lock) {
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

  // Waits until `ready()` (called under mu), running queued tasks meanwhile.
  template <typename Ready>
  void HelpUntil(std::unique_lock<std::mutex>& lock, Ready ready) {
    while (!ready()) {
      if (!RunQueuedTask(lock)) cv.wait(lock);
    }
  }

  // Queues `block` of `job`, waiting (and helping) while too much is queued; false if the
  // job was cancelled.
  bool Push(Job& job, Block block) {
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

  void Finish(Job& job, bool ok) {
    std::lock_guard<std::mutex> lock(mu);
    job.done = true;
    job.failed = !ok;
    job.verdict = true;
    cv.notify_all();
  }

  // Decodes `job` (on a worker).
  void Run(const std::shared_ptr<Job>& job_ptr) {
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

  bool Cancelled(Job& job) {
    std::lock_guard<std::mutex> lock(mu);
    return job.cancelled;
  }
};

WorkerPool::WorkerPool(ParallelOptions options) : state_(std::make_shared<State>()) {
  state_->options = std::move(options);
  const int jobs = std::max(1, state_->options.jobs);
  // Jobs handed out: a generation has one per part.
  state_->max_outstanding = (2 * static_cast<size_t>(jobs) + 2) *
                            (state_->options.split_generations ? static_cast<size_t>(jobs) : 1);
  state_->spares = std::make_shared<Spares>(4 * state_->max_outstanding);
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
  while (!framing_done_ && window_.size() < depth_) {
    auto f = std::make_unique<Framed>();
    absl::StatusOr<bool> more = frames->Next(&framed_);
    if (!more.ok()) {
      f->status = more.status();
      framing_done_ = true;
    } else if (!*more) {
      f->end = true;
      framing_done_ = true;
    } else {
      f->gen = Own(framed_, pool.spares);
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
