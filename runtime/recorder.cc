#include "runtime/recorder.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <zstd.h>

#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "format/file_header.h"
#include "format/generation_encoder.h"
#include "format/record_encoder.h"
#include "runtime/session.h"
#include "runtime/site_registry.h"
#include "runtime/target.h"

namespace tracewire::runtime {

std::atomic<uint64_t> g_gen_word{kClosed};
bool g_need_fence = false;
uint64_t g_stack_event_mask[4] = {};

constinit thread_local ThreadState* t_state __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {
// Never destroyed: threads may still record while the process exits.
Session* const g_session = new Session;
}  // namespace

SiteRegistry* g_site_registry = &g_session->site_registry;

Session& GetSession() { return *g_session; }

namespace {

// Detaches the thread (without events) when it ends without tw_thread_exit.
struct ThreadGuard {
  ~ThreadGuard() {
    if (t_state != nullptr && !t_state->is_main) DetachCurrentThread(false, nullptr, 0);
  }
};
thread_local ThreadGuard t_guard;

void AppendEventBatchHeader(std::string* out, const ThreadState& ts, size_t body_size) {
  out->push_back(static_cast<char>(EventType::kEventBatch));
  format::AppendUvarint(out, ts.gen);
  format::AppendUvarint(out, ts.thread_id);
  format::AppendUvarint(out, ts.base_time);
  format::AppendUvarint(out, body_size);
}

}  // namespace

// Moves the thread's batch into the generation. Requires output_mu.
void AppendBatchLocked(Session& s, ThreadState* ts) {
  const size_t size = ts->pos - ts->body;
  if (size == 0) return;
  AppendEventBatchHeader(&s.gen_frames, *ts, size);
  s.gen_frames.append(reinterpret_cast<const char*>(ts->body), size);
  ts->pos = ts->body;
  ts->base_time = ts->last_time;
  ++ts->batches_flushed;
}

// Moves the thread's string records into the generation. Requires output_mu.
void AppendStringsLocked(Session& s, ThreadState* ts) {
  const size_t size = ts->strings_size.load(std::memory_order_relaxed);
  if (size == 0) return;
  s.gen_frames.push_back(static_cast<char>(EventType::kStringBatch));
  format::AppendUvarint(&s.gen_frames, ts->gen);
  format::AppendUvarint(&s.gen_frames, size);
  s.gen_frames.append(reinterpret_cast<const char*>(ts->strings), size);
  ts->strings_size.store(0, std::memory_order_release);
}

void MaybeRequestAdvance(Session& s) {
  if (s.gen_frames.size() >= s.generation_bytes && !s.advance_requested.exchange(true)) {
    s.advancer_cv.notify_one();
  }
}

ThreadState* AttachThread(absl::string_view name, bool is_main, bool pending_status) {
  Session& s = GetSession();
  auto* ts = new ThreadState;
  ts->regions.reserve(32);
  ts->msg_arena.reserve(1024);
  ts->scratch.reserve(256);
  ts->pos = ts->body;
  ts->limit = ts->body + kBodyCapacity - kMaxEventSize;
  ts->restate_end = ts->body;
  std::lock_guard<std::mutex> lock(s.registry_mu);
  const uint64_t word = g_gen_word.load(std::memory_order_acquire);
  if ((word & kClosed) != 0) {
    delete ts;
    return nullptr;
  }
  ts->is_main = is_main;
  ts->thread_id = is_main ? 0 : s.next_thread_number++;
  if (is_main) {
    ts->name = "main";
    ts->start_time = s.start_time;
  } else {
    ts->name = absl::StrFormat("th%02d:%s", ts->thread_id, name);
    if (ts->name.size() > 24) ts->name.resize(24);  // git's TR2_MAX_THREAD_NAME
    ts->start_time = ReadTicks();
  }
  ts->last_time = std::max(ReadTicks(), ts->start_time);
  ts->base_time = ts->last_time;
  ts->gen = word >> 2;
  ts->pending_status = pending_status;
  // A pending thread_status is written by the slow path of its first event.
  ts->gen_word = pending_status ? 0 : word;
  s.threads.push_back(ts);
  t_state = ts;
  return ts;
}

ThreadState* PeekCurrentThread() { return t_state; }

void ClearCurrentThread() { t_state = nullptr; }

void MoveThreadBuffersLocked(Session& s, ThreadState* ts) {
  AppendBatchLocked(s, ts);
  AppendStringsLocked(s, ts);
}

ThreadState* AttachUnknownThread() {
  if ((g_gen_word.load(std::memory_order_relaxed) & kClosed) != 0) return nullptr;
  return AttachThread("unknown", false, true);
}

bool CatchUpGeneration(ThreadState* ts) {
  for (;;) {
    const uint64_t word = g_gen_word.load(std::memory_order_acquire);
    if ((word & kClosed) != 0) return false;
    if ((word & kAdvancing) != 0) {
      ts->in_event.store(0, std::memory_order_release);
      while ((g_gen_word.load(std::memory_order_acquire) & kAdvancing) != 0) sched_yield();
      ts->in_event.store(1, std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_seq_cst);
      continue;
    }
    if (word != ts->gen_word) {
      // Only a newly attached thread gets here: its status is written by itself.
      ts->gen = word >> 2;
      ts->gen_word = word;
      if (ts->pending_status) WriteRestatement(ts, false);
    }
    return true;
  }
}

void FlushBatch(ThreadState* ts) {
  Session& s = GetSession();
  std::lock_guard<std::mutex> lock(s.output_mu);
  AppendBatchLocked(s, ts);
  MaybeRequestAdvance(s);
}

void SetExitCode(int code) { GetSession().exit_code = code; }

void NameCurrentThread(ThreadState* ts, absl::string_view base_name) {
  ts->name = absl::StrFormat("th%02d:%s", ts->thread_id, base_name);
  if (ts->name.size() > 24) ts->name.resize(24);
}

int NextChildId() { return GetSession().next_child_id.fetch_add(1); }
int NextExecId() { return GetSession().next_exec_id.fetch_add(1); }
int NextRepoId() { return GetSession().next_repo_id.fetch_add(1); }
bool RedactionEnabled() { return GetSession().redact; }

}  // namespace tracewire::runtime
