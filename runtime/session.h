// Session: the process-wide state of the recorder (internal to the runtime).
#ifndef TRACEWIRE_RUNTIME_SESSION_H_
#define TRACEWIRE_RUNTIME_SESSION_H_

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "format/event_spec.h"
#include "format/varint.h"
#include "runtime/recorder.h"
#include "runtime/site_registry.h"
#include "runtime/target.h"

namespace tracewire::runtime {

using format::EventType;

// A table kind's records: the open batch body and the finished batches.
struct TableBuffer {
  EventType batch_type;
  std::string body;
  std::vector<std::string> batches;

  explicit TableBuffer(EventType type) : batch_type(type) {}

  // Appends a record (already encoded), closing the open batch first if it would overflow.
  void Append(absl::string_view record, uint64_t gen) {
    const size_t header =
        1 + format::UvarintSize(gen) + format::UvarintSize(body.size() + record.size());
    if (!body.empty() && header + body.size() + record.size() > format::kMaxBatchSize) Close(gen);
    body.append(record.data(), record.size());
  }
  void Close(uint64_t gen) {
    if (body.empty()) return;
    std::string batch;
    batch.push_back(static_cast<char>(batch_type));
    format::AppendUvarint(&batch, gen);
    format::AppendUvarint(&batch, body.size());
    batch.append(body);
    batches.push_back(std::move(batch));
    body.clear();
  }
  void MoveTo(std::string* out, uint64_t gen) {
    Close(gen);
    for (const std::string& b : batches) out->append(b);
    batches.clear();
  }
};

struct TimerDefinition {
  std::string category;
  std::string name;
  bool per_thread = false;
};

struct Session {
  // Threads.
  std::mutex registry_mu;
  std::vector<ThreadState*> threads;
  int next_thread_number = 1;

  // The generation being filled.
  std::mutex output_mu;
  std::string gen_frames;

  // Per-generation tables.
  std::mutex tables_mu;
  absl::flat_hash_map<std::string, uint64_t> interned;
  TableBuffer strings{EventType::kStringBatch};
  TableBuffer sites{EventType::kSiteBatch};
  TableBuffer stacks{EventType::kStackBatch};
  std::map<std::vector<uintptr_t>, uint64_t> stack_ids;
  uint64_t next_site_id = 0;
  std::atomic<uint64_t> next_string_id{1};
  std::string cmd_name;
  std::string hierarchy;
  bool has_cmd_name = false;

  SiteRegistry site_registry;
  uint32_t signal_site_index = 0;  // pre-registered: the signal handler cannot allocate

  // Output.
  std::mutex advance_mu;
  Destination destination;
  bool compress = false;
  uint64_t generation_ms = 1000;
  uint64_t generation_bytes = 8u << 20;
  std::thread advancer;
  std::mutex advancer_mu;
  std::condition_variable advancer_cv;
  bool advancer_stop = false;
  std::atomic<bool> advance_requested{false};

  // Identity.
  std::string sid;
  uint64_t pid = 0;
  uint64_t start_time = 0;
  std::atomic<int> next_child_id{0};
  std::atomic<int> next_exec_id{0};
  std::atomic<int> next_repo_id{1};
  int exit_code = 0;
  bool redact = true;
  bool forked_child = false;
  std::atomic<bool> emergency{false};

  // Timers and counters.
  std::mutex timers_mu;
  TimerDefinition timer_defs[kMaxTimers];
  int num_timers = 0;
  TimerState timer_totals[kMaxTimers];
  TimerDefinition counter_defs[kMaxCounters];
  int num_counters = 0;
  uint64_t counter_totals[kMaxCounters] = {};
  bool counter_used[kMaxCounters] = {};
};

// Moves the thread's event batch and string records into the generation. Requires
// output_mu and either exclusive ownership of `ts` or being its thread.
void MoveThreadBuffersLocked(Session& s, ThreadState* ts);

// Moves the thread's event batch into the generation. Requires output_mu.
void AppendBatchLocked(Session& s, ThreadState* ts);

// Moves the thread's string records into the generation. Requires output_mu.
void AppendStringsLocked(Session& s, ThreadState* ts);

// Wakes the advancer once the generation has reached its size limit. Requires output_mu.
void MaybeRequestAdvance(Session& s);

// Records `value` as a new string of the thread's generation; `output_locked` tells whether
// the caller already holds output_mu (the advancer).
uint64_t UniqueStringImpl(ThreadState* ts, absl::string_view value, bool output_locked);

// Interns `value` in generation `gen`'s shared string table. Requires tables_mu.
uint64_t InternLocked(Session& s, uint64_t gen, absl::string_view value);

// Site ID of registry entry `index` in generation `gen`. Requires tables_mu.
uint64_t GenSiteIdLocked(Session& s, uint64_t gen, uint32_t index);

// Writes thread_status and one region_active per open region of `ts`. Requires being in an
// event on ts's thread, or exclusive ownership with output_mu and tables_mu held (`locked`).
void WriteRestatement(ThreadState* ts, bool locked);

// Starts the thread that cuts generations on time and on size.
void StartAdvancer(Session& s);
// Stops and joins it.
void StopAdvancer(Session& s);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_SESSION_H_
