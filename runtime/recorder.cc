#include "runtime/recorder.h"

#include "runtime/session.h"

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
#include "runtime/site_registry.h"
#include "runtime/target.h"

namespace tracewire::runtime {

std::atomic<uint64_t> g_gen_word{kClosed};
bool g_need_fence = false;
uint64_t g_stack_event_mask[4] = {};

namespace {

using format::EventType;

}  // namespace

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

void FenceOtherThreads() {
  if (!g_need_fence) syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
}

// ---- Encoding helpers (callers hold the locks named in their names) ------------------

void AppendEventBatchHeader(std::string* out, const ThreadState& ts, size_t body_size) {
  out->push_back(static_cast<char>(EventType::kEventBatch));
  format::AppendUvarint(out, ts.gen);
  format::AppendUvarint(out, ts.thread_id);
  format::AppendUvarint(out, ts.base_time);
  format::AppendUvarint(out, body_size);
}

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

// A string longer than the format allows, cut to kMaxStringSize with an explicit marker
// at its end saying how many bytes were dropped (never a silent truncation).
std::string CutOversizeString(absl::string_view value) {
  const std::string marker =
      absl::StrFormat("...[tracewire: %d bytes cut, the limit is %d]", value.size(),
                      format::kMaxStringSize);
  std::string cut(value.substr(0, format::kMaxStringSize - marker.size()));
  cut += marker;
  return cut;
}

// Appends string records for `id` (string_part chunks, then string) to the thread's string
// buffer. `output_locked` tells whether output_mu is already held (advancer).
void AppendStringRecords(ThreadState* ts, uint64_t id, absl::string_view value,
                         bool output_locked) {
  Session& s = GetSession();
  std::string cut;
  if (value.size() > format::kMaxStringSize) value = cut = CutOversizeString(value);
  bool last = false;
  while (!last) {
    const size_t chunk = std::min(value.size(), format::kMaxRecordDataSize);
    last = chunk == value.size();
    const size_t record = 1 + format::UvarintSize(id) + format::UvarintSize(chunk) + chunk;
    size_t size = ts->strings_size.load(std::memory_order_relaxed);
    if (size + record > kStringCapacity) {
      if (output_locked) {
        AppendStringsLocked(s, ts);
      } else {
        std::lock_guard<std::mutex> lock(s.output_mu);
        AppendStringsLocked(s, ts);
        MaybeRequestAdvance(s);
      }
      size = 0;
    }
    uint8_t* p = ts->strings + size;
    *p++ = static_cast<uint8_t>(last ? EventType::kString : EventType::kStringPart);
    p = format::PutUvarint(p, id);
    p = format::PutUvarint(p, chunk);
    memcpy(p, value.data(), chunk);
    p += chunk;
    ts->strings_size.store(p - ts->strings, std::memory_order_release);
    value.remove_prefix(chunk);
  }
}

uint64_t NextStringId(ThreadState* ts) {
  if (ts->next_string_id == ts->string_id_limit) {
    constexpr uint64_t kBlock = 64;
    ts->next_string_id = GetSession().next_string_id.fetch_add(kBlock, std::memory_order_relaxed);
    ts->string_id_limit = ts->next_string_id + kBlock;
  }
  return ts->next_string_id++;
}

uint64_t UniqueStringImpl(ThreadState* ts, absl::string_view value, bool output_locked) {
  const uint64_t id = NextStringId(ts);
  AppendStringRecords(ts, id, value, output_locked);
  return id;
}

// Interns `value` in the shared table. Requires tables_mu.
uint64_t InternLocked(Session& s, uint64_t gen, absl::string_view value) {
  auto it = s.interned.find(value);
  if (it != s.interned.end()) return it->second;
  const uint64_t id = s.next_string_id.fetch_add(1, std::memory_order_relaxed);
  s.interned.emplace(std::string(value), id);
  std::string record;
  bool last = false;
  std::string cut;
  if (value.size() > format::kMaxStringSize) value = cut = CutOversizeString(value);
  while (!last) {
    const size_t chunk = std::min(value.size(), format::kMaxRecordDataSize);
    last = chunk == value.size();
    record.clear();
    const uint64_t args[] = {id};
    format::AppendRecord(&record, last ? EventType::kString : EventType::kStringPart, args,
                         value.substr(0, chunk))
        .IgnoreError();
    s.strings.Append(record, gen);
    value.remove_prefix(chunk);
  }
  return id;
}

uint64_t InternOptionalLocked(Session& s, uint64_t gen, const std::optional<std::string>& v) {
  return v.has_value() ? InternLocked(s, gen, *v) : 0;
}

// Site ID of registry entry `index` in generation `gen`. Requires tables_mu.
uint64_t GenSiteIdLocked(Session& s, uint64_t gen, uint32_t index) {
  SiteEntry& entry = s.site_registry.Get(index);
  const uint64_t tag = gen & 0xffffffffu;
  const uint64_t word = entry.gen_id.load(std::memory_order_acquire);
  if (word != 0 && (word >> 32) == tag) return word & 0xffffffffu;
  const uint64_t id = ++s.next_site_id;
  const format::Site& site = entry.site;
  const uint64_t args[] = {id,
                           InternOptionalLocked(s, gen, site.file),
                           site.line,
                           InternOptionalLocked(s, gen, site.category),
                           InternOptionalLocked(s, gen, site.label),
                           site.repo};
  std::string record;
  format::AppendRecord(&record, EventType::kSite, args).IgnoreError();
  s.sites.Append(record, gen);
  entry.gen_id.store((tag << 32) | id, std::memory_order_release);
  return id;
}

// Writes thread_status and one region_active per open region. Requires BeginEvent or
// exclusive ownership (advancer, with output_mu and tables_mu held: `locked`).
void WriteRestatement(ThreadState* ts, bool locked) {
  Session& s = GetSession();
  uint64_t now;
  uint64_t dt = StampEvent(ts, &now);
  const uint64_t name_id = UniqueStringImpl(ts, ts->name, locked);
  WriteEvent(ts, EventType::kThreadStatus, {dt, name_id, ts->start_time});
  for (const RegionFrame& frame : ts->regions) {
    if (ts->pos > ts->limit) {
      if (locked) {
        AppendBatchLocked(s, ts);
      } else {
        FlushBatch(ts);
      }
    }
    const uint64_t site_id =
        locked ? GenSiteIdLocked(s, ts->gen, frame.site_index) : GenSiteId(ts, frame.site_index);
    const uint64_t msg_id =
        frame.has_msg ? UniqueStringImpl(ts, absl::string_view(ts->msg_arena.data() + frame.msg_offset,
                                                               frame.msg_length),
                                         locked)
                      : 0;
    dt = StampEvent(ts, &now);
    WriteEvent(ts, EventType::kRegionActive, {dt, site_id, msg_id, frame.enter_time});
  }
  ts->pending_status = false;
}

}  // namespace

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

namespace {

// Records the stack of the calling code into the generation's stack table. Requires
// BeginEvent; takes tables_mu.
uint64_t InternCurrentStack(ThreadState* ts) {
  void* pcs[format::kMaxFramesPerStack + 3];
  int n = backtrace(pcs, static_cast<int>(format::kMaxFramesPerStack) + 3);
  constexpr int kSkip = 3;  // backtrace, InternCurrentStack, MaybeRecordStack
  if (n <= kSkip) return 0;
  std::vector<uintptr_t> key(n - kSkip);
  for (int i = kSkip; i < n; ++i) key[i - kSkip] = reinterpret_cast<uintptr_t>(pcs[i]);
  Session& s = GetSession();
  std::lock_guard<std::mutex> lock(s.tables_mu);
  auto it = s.stack_ids.find(key);
  if (it != s.stack_ids.end()) return it->second;
  const uint64_t id = s.stack_ids.size() + 1;
  s.stack_ids.emplace(key, id);
  std::vector<format::StackFrame> frames;
  for (uintptr_t pc : key) {
    format::StackFrame frame;
    frame.pc = pc;
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(pc), &info) != 0) {
      if (info.dli_sname != nullptr) frame.func_string = InternLocked(s, ts->gen, info.dli_sname);
      if (info.dli_fname != nullptr) frame.file_string = InternLocked(s, ts->gen, info.dli_fname);
    }
    frames.push_back(frame);
  }
  std::string record;
  const uint64_t args[] = {id, frames.size()};
  format::AppendRecord(&record, EventType::kStack, args, {}, frames).IgnoreError();
  s.stacks.Append(record, ts->gen);
  return id;
}

// Encodes a small record into a caller buffer (async-signal-safe).
size_t EncodeSmall(uint8_t* out, EventType type, std::initializer_list<uint64_t> args) {
  uint8_t* p = out;
  *p++ = static_cast<uint8_t>(type);
  for (uint64_t a : args) p = format::PutUvarint(p, a);
  return p - out;
}

void WriteGeneration(Session& s, uint64_t gen, std::string frames) {
  std::string out = format::EncodeFileHeader(format::kFormatVersion);
  if (s.compress && !s.destination.is_datagram()) {
    std::string compressed(ZSTD_compressBound(frames.size()), '\0');
    const size_t n =
        ZSTD_compress(compressed.data(), compressed.size(), frames.data(), frames.size(), 3);
    if (!ZSTD_isError(n)) {
      compressed.resize(n);
      const uint64_t args[] = {gen, frames.size()};
      if (format::AppendRecord(&out, EventType::kCompressedGeneration, args, compressed).ok()) {
        s.destination.Write(out.data(), out.size());
        return;
      }
    }
    out = format::EncodeFileHeader(format::kFormatVersion);
  }
  if (s.destination.is_datagram()) {
    // One datagram per frame: walk the frames with the raw decoder's framing.
    s.destination.Write(out.data(), out.size());
    size_t offset = 0;
    while (offset < frames.size()) {
      const uint8_t* begin = reinterpret_cast<const uint8_t*>(frames.data()) + offset;
      const uint8_t* p = begin + 1;
      const uint8_t* end = reinterpret_cast<const uint8_t*>(frames.data()) + frames.size();
      const format::EventSpec* spec = format::LookupSpec(*begin);
      uint64_t value = 0;
      uint64_t length = 0;
      for (const format::ArgSpec& arg : spec->Args()) {
        format::GetUvarint(&p, end, &value);
        if (arg.type == format::ArgType::kLength) length = value;
      }
      if (spec->has_data) {
        format::GetUvarint(&p, end, &value);
        length = value;
      }
      const size_t size = (p - begin) + length;
      s.destination.Write(begin, size);
      offset += size;
    }
    return;
  }
  out.append(frames);
  s.destination.Write(out.data(), out.size());
}

}  // namespace

void OpenGenerationLocked(Session& s, uint64_t gen) {
  InternLocked(s, gen, s.sid);
  GenSiteIdLocked(s, gen, s.signal_site_index);
}

namespace {

void AdvancerLoop() {
  Session& s = GetSession();
  std::unique_lock<std::mutex> lock(s.advancer_mu);
  while (!s.advancer_stop) {
    s.advancer_cv.wait_for(lock, std::chrono::milliseconds(s.generation_ms), [&] {
      return s.advancer_stop || s.advance_requested.load();
    });
    if (s.advancer_stop) break;
    s.advance_requested = false;
    lock.unlock();
    AdvanceGeneration(false);
    lock.lock();
  }
}

}  // namespace

void StartAdvancer(Session& s) {
  s.advancer_stop = false;
  s.advancer = std::thread(AdvancerLoop);
}

void StopAdvancer(Session& s) {
  {
    std::lock_guard<std::mutex> lock(s.advancer_mu);
    s.advancer_stop = true;
  }
  s.advancer_cv.notify_all();
  if (s.advancer.joinable()) s.advancer.join();
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

uint64_t GenSiteIdSlow(ThreadState* ts, uint32_t index) {
  Session& s = GetSession();
  std::lock_guard<std::mutex> lock(s.tables_mu);
  return GenSiteIdLocked(s, ts->gen, index);
}

uint32_t SiteIndexForContent(ThreadState* ts, const char* file, int line, const char* category,
                             const char* label, int repo_id) {
  const SiteView view = ViewOfArgs(file, line, category, label, repo_id);
  auto it = ts->site_cache.find(view);
  if (it != ts->site_cache.end()) return it->second;
  const format::Site site = MakeSite(file, line, category, label, repo_id);
  const uint32_t index = GetSession().site_registry.Intern(site);
  if (ts->site_cache.size() > 4096) ts->site_cache.clear();
  ts->site_cache.emplace(site, index);
  return index;
}

uint32_t SiteIndexForCallsiteSlow(tw_callsite* callsite, const char* file, int line,
                                  const char* category, const char* label, int repo_id) {
  const uint64_t repo_tag = repo_id < 0 ? 0 : static_cast<uint64_t>(repo_id) + 1;
  const uint32_t index =
      GetSession().site_registry.Intern(MakeSite(file, line, category, label, repo_id));
  if (repo_tag <= 0xffffffffu) {
    __atomic_store_n(&callsite->word, (repo_tag << 32) | (uint64_t{index} + 1), __ATOMIC_RELEASE);
  }
  return index;
}

uint64_t UniqueString(ThreadState* ts, absl::string_view value) {
  return UniqueStringImpl(ts, value, false);
}

uint64_t InternString(ThreadState* ts, absl::string_view value) {
  Session& s = GetSession();
  std::lock_guard<std::mutex> lock(s.tables_mu);
  return InternLocked(s, ts->gen, value);
}

void MaybeRecordStack(ThreadState* ts, EventType type) {
  if (!WantStack(type)) return;
  const uint64_t stack_id = InternCurrentStack(ts);
  if (stack_id == 0) return;
  uint64_t now;
  const uint64_t dt = StampEvent(ts, &now);
  WriteEvent(ts, EventType::kStackRef, {dt, stack_id});
  if (ts->pos > ts->limit) FlushBatch(ts);
}

void AdvanceGeneration(bool final) {
  Session& s = GetSession();
  std::lock_guard<std::mutex> advance_lock(s.advance_mu);
  std::string frames;
  uint64_t gen = 0;
  {
    std::lock_guard<std::mutex> registry_lock(s.registry_mu);
    const uint64_t word = g_gen_word.load(std::memory_order_acquire);
    if ((word & kClosed) != 0) return;
    gen = word >> 2;
    g_gen_word.store(word | kAdvancing, std::memory_order_seq_cst);
    FenceOtherThreads();
    for (ThreadState* ts : s.threads) {
      while (ts->in_event.load(std::memory_order_acquire) != 0) sched_yield();
    }
    // Every thread is outside an event: the recorder owns all thread states now.
    std::lock_guard<std::mutex> output_lock(s.output_mu);
    std::lock_guard<std::mutex> tables_lock(s.tables_mu);
    bool anything_new = !s.gen_frames.empty() || final;
    for (ThreadState* ts : s.threads) {
      if (ts->pos != ts->restate_end || ts->batches_flushed != 0) anything_new = true;
    }
    if (!anything_new) {
      g_gen_word.store(word, std::memory_order_release);
      return;
    }
    for (ThreadState* ts : s.threads) {
      AppendBatchLocked(s, ts);
      AppendStringsLocked(s, ts);
    }
    const uint64_t sid_id = InternLocked(s, gen, s.sid);
    const uint64_t name_id = s.has_cmd_name ? InternLocked(s, gen, s.cmd_name) : 0;
    const uint64_t hierarchy_id = s.has_cmd_name ? InternLocked(s, gen, s.hierarchy) : 0;
    s.sites.MoveTo(&s.gen_frames, gen);
    s.stacks.MoveTo(&s.gen_frames, gen);
    s.strings.MoveTo(&s.gen_frames, gen);
    const format::ClockSync sync = TakeClockSync();
    const uint64_t sync_args[] = {gen,           sync.freq,     sync.trace_time,
                                  sync.mono_ns,  sync.wall_sec, sync.wall_nsec,
                                  format::ZigzagEncode(sync.utc_offset_sec)};
    format::AppendRecord(&s.gen_frames, EventType::kClockSync, sync_args).IgnoreError();
    const uint64_t info_args[] = {gen, sid_id, s.pid, s.start_time, name_id, hierarchy_id};
    format::AppendRecord(&s.gen_frames, EventType::kProcessInfo, info_args).IgnoreError();
    const uint64_t end_args[] = {gen};
    format::AppendRecord(&s.gen_frames, EventType::kEndOfGeneration, end_args).IgnoreError();
    frames.swap(s.gen_frames);

    // Open the next generation.
    s.interned.clear();
    s.stack_ids.clear();
    s.next_site_id = 0;
    s.next_string_id.store(1, std::memory_order_relaxed);
    const uint64_t new_gen = gen + 1;
    const uint64_t new_word = final ? kClosed : new_gen << 2;
    if (!final) {
      OpenGenerationLocked(s, new_gen);
      for (ThreadState* ts : s.threads) {
        ts->gen = new_gen;
        ts->gen_word = new_word;
        ts->next_string_id = ts->string_id_limit = 0;
        ts->pos = ts->body;
        ts->base_time = ts->last_time;
        ts->batches_flushed = 0;
        WriteRestatement(ts, true);
        ts->restate_end = ts->pos;
      }
    }
    g_gen_word.store(new_word, std::memory_order_release);
  }
  // Compress and write with the threads running again.
  WriteGeneration(s, gen, std::move(frames));
}

void EmergencyFlush(int signo) {
  Session& s = GetSession();
  if (s.emergency.exchange(true)) return;
  ThreadState* self = t_state;
  // Record the signal on this thread unless it was interrupted inside an event.
  if (self != nullptr && self->in_event.load(std::memory_order_relaxed) == 0 &&
      (g_gen_word.load() & (kClosed | kAdvancing)) == 0 && self->gen_word == g_gen_word.load()) {
    self->in_event.store(1, std::memory_order_relaxed);
    if (self->pos > self->limit) {
      // No room and no lock may be taken safely: skip the event rather than risk a deadlock.
    } else {
      SiteEntry& entry = s.site_registry.Get(s.signal_site_index);
      const uint64_t word = entry.gen_id.load();
      if (word != 0 && (word >> 32) == (self->gen & 0xffffffffu)) {
        uint64_t now;
        const uint64_t dt = StampEvent(self, &now);
        WriteEvent(self, EventType::kSignal, {dt, word & 0xffffffffu, uint64_t(signo)});
      }
    }
    self->in_event.store(0, std::memory_order_release);
  }
  const uint64_t word = g_gen_word.exchange(kClosed);
  if ((word & kClosed) != 0) return;
  const uint64_t gen = word >> 2;
  // Take the locks if they can be had within ~100 ms; otherwise write without that part.
  auto try_lock = [](std::mutex& mu) {
    for (int i = 0; i < 1000; ++i) {
      if (mu.try_lock()) return true;
      usleep(100);
    }
    return false;
  };
  const std::string header = format::EncodeFileHeader(format::kFormatVersion);
  s.destination.Write(header.data(), header.size());
  if (try_lock(s.output_mu)) {
    s.destination.Write(s.gen_frames.data(), s.gen_frames.size());
  }
  if (try_lock(s.registry_mu)) {
    for (ThreadState* ts : s.threads) {
      const size_t size = ts->pos - ts->body;
      if (size == 0 || ts->gen != gen) continue;
      uint8_t head[format::kMaxBatchHeaderSize];
      const size_t n = EncodeSmall(head, EventType::kEventBatch, {gen, ts->thread_id, ts->base_time, size});
      s.destination.Write(head, n);
      s.destination.Write(ts->body, size);
      const size_t strings = ts->strings_size.load(std::memory_order_acquire);
      if (strings != 0) {
        const size_t m = EncodeSmall(head, EventType::kStringBatch, {gen, strings});
        s.destination.Write(head, m);
        s.destination.Write(ts->strings, strings);
      }
    }
  }
  if (try_lock(s.tables_mu)) {
    for (TableBuffer* table : {&s.sites, &s.stacks, &s.strings}) {
      for (const std::string& batch : table->batches) s.destination.Write(batch.data(), batch.size());
      if (!table->body.empty()) {
        uint8_t head[32];
        const size_t n = EncodeSmall(head, table->batch_type, {gen, table->body.size()});
        s.destination.Write(head, n);
        s.destination.Write(table->body.data(), table->body.size());
      }
    }
    // process_info needs the sid in this generation's string table: it was interned when
    // the generation opened (see StartRecording / the advance).
    auto it = s.interned.find(s.sid);
    const uint64_t sid_id = it == s.interned.end() ? 0 : it->second;
    const format::ClockSync sync = TakeClockSync(/*signal_safe=*/true);
    uint8_t rec[128];
    size_t n = EncodeSmall(rec, EventType::kClockSync,
                           {gen, sync.freq, sync.trace_time, sync.mono_ns, sync.wall_sec,
                            sync.wall_nsec, format::ZigzagEncode(sync.utc_offset_sec)});
    s.destination.Write(rec, n);
    n = EncodeSmall(rec, EventType::kProcessInfo, {gen, sid_id, s.pid, s.start_time, 0, 0});
    s.destination.Write(rec, n);
    n = EncodeSmall(rec, EventType::kEndOfGeneration, {gen});
    s.destination.Write(rec, n);
  }
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
