// The insides of WorkerPool, shared by the pool (worker_pool.cc) and the readers that take
// its results (parallel_decoding.cc): a generation copied out of the FrameReader, the
// blocks of events or payloads a worker hands over, a job (one generation or part of one)
// and the pool's state under its one lock. Not for use outside the reader.
#ifndef TRACEWIRE_READER_WORKER_POOL_INTERNAL_H_
#define TRACEWIRE_READER_WORKER_POOL_INTERNAL_H_

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "reader/event.h"
#include "reader/frame_reader.h"
#include "reader/generation_decoder.h"
#include "reader/process_state.h"
#include "reader/speculation_log.h"
#include "reader/worker_pool.h"

namespace tracewire::reader {
namespace worker_pool_internal {

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
//
// The generation buffers are held to a budget: `buffer_budget` bytes in use and kept for
// reuse together (a buffer given back past it is freed), and a generation is copied only
// if its copy fits (TryTakeBuffer).
class Spares {
 public:
  Spares(size_t keep, size_t buffer_budget) : keep_(keep), buffer_budget_(buffer_budget) {}

  struct Buffer {
    std::unique_ptr<char[]> data;
    size_t capacity = 0;
  };
  // A buffer of at least `size` bytes, or none (capacity 0) if the buffers in use would
  // then pass the budget.
  Buffer TryTakeBuffer(size_t size) {
    std::lock_guard<std::mutex> lock(mu_);
    // A kept buffer is reused (grown if too small); else a new one is made.
    Buffer buffer;
    if (!buffers_.empty()) {
      buffer = std::move(buffers_.back());
      buffers_.pop_back();
      kept_bytes_ -= buffer.capacity;
    }
    if (buffer.capacity >= size) {
      used_bytes_ += buffer.capacity;
      return buffer;
    }
    size_t capacity = std::max(size, buffer.capacity + buffer.capacity / 2);
    if (used_bytes_ + capacity > buffer_budget_) capacity = size;
    // What is allocated (in use, kept, and the new buffer) stays within the budget: kept
    // buffers go first.
    while (!buffers_.empty() && used_bytes_ + kept_bytes_ + capacity > buffer_budget_) {
      kept_bytes_ -= buffers_.back().capacity;
      buffers_.pop_back();
    }
    if (used_bytes_ + kept_bytes_ + capacity > buffer_budget_) {
      if (buffer.capacity > 0 && used_bytes_ + kept_bytes_ + buffer.capacity <= buffer_budget_) {
        kept_bytes_ += buffer.capacity;
        buffers_.push_back(std::move(buffer));
      }
      return Buffer();
    }
    buffer.data.reset();  // freed before the new one is made
    buffer.data.reset(new char[capacity]);
    buffer.capacity = capacity;
    used_bytes_ += capacity;
    return buffer;
  }
  void Put(Buffer buffer) {
    std::lock_guard<std::mutex> lock(mu_);
    used_bytes_ -= buffer.capacity;
    if (buffers_.size() < keep_ && used_bytes_ + kept_bytes_ + buffer.capacity <= buffer_budget_) {
      kept_bytes_ += buffer.capacity;
      buffers_.push_back(std::move(buffer));
    }
  }
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
  size_t buffer_budget_;
  size_t used_bytes_ = 0;  // buffers handed out
  size_t kept_bytes_ = 0;  // buffers_
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

// A copy of `framed`'s bytes (in a buffer from `spares`), with its frames viewing the copy;
// nullptr if the copy would pass the spares' budget.
std::shared_ptr<const OwnedGeneration> Own(const RawGeneration& framed,
                                           const std::shared_ptr<Spares>& spares);
}  // namespace worker_pool_internal

// A run of a job's event copies for make_work(), run by whichever thread gets to it first.
struct WorkerPool::Task {
  std::shared_ptr<Job> job;  // its decoder's tables and strings back the copies
  std::shared_ptr<worker_pool_internal::EventCopies> copies;
  std::unique_ptr<BlockPayload> payload;
  bool started = false;
  bool done = false;
};

namespace worker_pool_internal {

// A run of events of a generation, with the log entries recorded up to its end.
struct Block {
  std::vector<SpeculationLog::Entry> entries;
  uint64_t events = 0;
  std::unique_ptr<BlockPayload> payload;   // make_work() run by the decoding worker
  std::shared_ptr<WorkerPool::Task> task;  // or make_work() run as a task
  std::shared_ptr<worker_pool_internal::EventCopies> copies;  // or the events themselves
  bool counted = false;                                       // or only their number (count_only)
  size_t bytes = 0;
};

}  // namespace worker_pool_internal

// Everything under State::mu but the decoding state, which the worker owns while
// `running` and the reader afterwards.
struct WorkerPool::Job {
  explicit Job(std::shared_ptr<worker_pool_internal::Spares> from)
      : spares(std::move(from)), decoder_owner(spares->TakeDecoder()), decoder(*decoder_owner) {}
  ~Job() { spares->Put(std::move(decoder_owner)); }

  std::shared_ptr<worker_pool_internal::Spares> spares;
  std::shared_ptr<const worker_pool_internal::OwnedGeneration> gen;
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
  std::deque<worker_pool_internal::Block> blocks;
  size_t queued_bytes = 0;
  bool done = false;    // no block will follow
  bool failed = false;  // the decoding stopped on an error or was cancelled
};

struct WorkerPool::State {
  ParallelOptions options;
  size_t max_outstanding = 0;
  std::shared_ptr<worker_pool_internal::Spares> spares;
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

  // A worker thread: runs queued tasks first, then pending jobs, until `stop`.
  void Loop();
  // Runs the oldest queued task, if any (with `lock` held on entry and exit).
  bool RunQueuedTask(std::unique_lock<std::mutex>& lock);
  // Runs `task` (with `lock` held on entry and exit, released meanwhile).
  void RunTask(const std::shared_ptr<Task>& task, std::unique_lock<std::mutex>& lock);
  // Waits until `ready()` (called under mu), running queued tasks meanwhile.
  template <typename Ready>
  void HelpUntil(std::unique_lock<std::mutex>& lock, Ready ready) {
    while (!ready()) {
      if (!RunQueuedTask(lock)) cv.wait(lock);
    }
  }
  // Queues `block` of `job`, waiting (and helping) while too much is queued; false if the
  // job was cancelled.
  bool Push(Job& job, worker_pool_internal::Block block);
  // Marks `job` done (failed unless `ok`) and its verdict given; wakes the waiters.
  void Finish(Job& job, bool ok);
  // Decodes `job` (on a worker).
  void Run(const std::shared_ptr<Job>& job_ptr);
  // Whether the reader dropped `job`.
  bool Cancelled(Job& job);
};

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_WORKER_POOL_INTERNAL_H_
