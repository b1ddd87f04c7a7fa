// String, site and stack tables of the current generation: unique and interned strings,
// per-generation site IDs, and captured stacks.
#include <dlfcn.h>
#include <execinfo.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "format/file_header_encoder.h"
#include "format/generation_records.h"
#include "format/record_writer.h"
#include "format/varint.h"
#include "runtime/modules.h"
#include "runtime/recorder.h"
#include "runtime/session.h"
#include "runtime/text.h"

namespace tracewire::runtime {
namespace {

// A string longer than the format allows, cut to kMaxStringSize with an explicit marker
// at its end saying how many bytes were dropped (never a silent truncation).
std::string CutOversizeString(absl::string_view value) {
  const std::string marker = Cat({"...[tracewire: ", Dec(static_cast<long long>(value.size())),
                                  " bytes cut, the limit is ", Dec(format::kMaxStringSize), "]"});
  std::string cut(Substr(value, 0, format::kMaxStringSize - marker.size()));
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
    // relaxed: the thread's own word (inside an event; the advance's reset is ordered by
    // the g_gen_word handshake).
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
    uint8_t* const records = StringRecords(ts);
    uint8_t* p = records + size;
    *p++ = static_cast<uint8_t>(last ? EventType::kString : EventType::kStringPart);
    p = format::PutUvarint(p, id);
    p = format::PutUvarint(p, chunk);
    memcpy(p, value.data(), chunk);
    p += chunk;
    // release, pairs with the emergency path's acquire: the records up to it are whole.
    ts->strings_size.store(p - records, std::memory_order_release);
    value.remove_prefix(chunk);
  }
}

uint64_t NextStringId(ThreadState* ts) {
  uint64_t id = ts->next_string_id.get();
  if (id == ts->string_id_limit.get()) {
    constexpr uint64_t kBlock = 64;
    // relaxed: a unique-ID counter; the IDs publish no data.
    id = GetSession().next_string_id.fetch_add(kBlock, std::memory_order_relaxed);
    ts->string_id_limit.set(id + kBlock);
  }
  ts->next_string_id.set(id + 1);
  return id;
}

uint64_t InternOptionalLocked(Session& s, uint64_t gen, const std::optional<std::string>& v) {
  return v.has_value() ? InternLocked(s, gen, *v) : 0;
}

}  // namespace

uint64_t UniqueStringImpl(ThreadState* ts, absl::string_view value, bool output_locked) {
  const uint64_t id = NextStringId(ts);
  AppendStringRecords(ts, id, value, output_locked);
  return id;
}

// Interns `value` in the shared table. Requires tables_mu.
uint64_t InternLocked(Session& s, uint64_t gen, absl::string_view value) {
  auto it = s.interned.find(value);
  if (it != s.interned.end()) return it->second;
  const uint64_t id = s.next_string_id.fetch_add(1, std::memory_order_relaxed);  // relaxed: IDs
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
    format::TryAppendRecord(&record, last ? EventType::kString : EventType::kStringPart, args,
                            Substr(value, 0, chunk));
    s.strings.Append(record, gen, s.pool);
    value.remove_prefix(chunk);
  }
  return id;
}

// Site ID of registry entry `index` in generation `gen`. Requires tables_mu.
uint64_t GenSiteIdLocked(Session& s, uint64_t gen, uint32_t index) {
  SiteEntry& entry = s.site_registry.Get(index);
  const uint64_t tag = gen & 0xffffffffu;
  // acquire, as GenSiteId's (tables_mu orders the stores of this word among themselves).
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
  format::TryAppendRecord(&record, EventType::kSite, args);
  s.sites.Append(record, gen, s.pool);
  // release, pairs with GenSiteId's acquire: the site record is in the generation's table
  // before a thread that sees the ID writes it into an event.
  entry.gen_id.store((tag << 32) | id, std::memory_order_release);
  return id;
}

namespace {

// Name of the exported (dynamic) symbol holding `pc`, from dladdr(3), looked up once per
// address for the life of the process ("" if none). Requires tables_mu.
const std::string& DynamicSymbolLocked(uintptr_t pc) {
  static auto* names = new absl::flat_hash_map<uintptr_t, std::string>();
  auto [it, added] = names->try_emplace(pc);
  if (added) {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(pc), &info) != 0 && info.dli_sname != nullptr) {
      it->second = info.dli_sname;
    }
  }
  return it->second;
}

// Writes the `module` record of module `index` (module ID index + 1) into generation
// `gen`'s stack table unless the generation has it. Requires tables_mu.
void RecordModuleLocked(Session& s, uint64_t gen, int index) {
  static auto* written_in = new std::vector<uint64_t>();  // generation of the last record
  if (written_in->size() <= static_cast<size_t>(index)) written_in->resize(index + 1, 0);
  if ((*written_in)[index] == gen) return;
  (*written_in)[index] = gen;
  const ModuleInfo module = ModuleAt(index);
  if (module.start >= module.end) return;
  const uint64_t args[] = {static_cast<uint64_t>(index) + 1,
                           module.start,
                           module.end,
                           module.bias,
                           module.path.empty() ? 0 : InternLocked(s, gen, module.path),
                           module.build_id.empty() ? 0 : InternLocked(s, gen, module.build_id)};
  std::string record;
  format::TryAppendRecord(&record, EventType::kModule, args);
  s.stacks.Append(record, gen, s.pool);
}

// Records the stack of the calling code into the generation's stack table. Requires
// BeginEvent; takes tables_mu.
__attribute__((noinline)) uint64_t InternCurrentStack(ThreadState* ts) {
  void* pcs[format::kMaxFramesPerStack + 3];
  int n = backtrace(pcs, static_cast<int>(format::kMaxFramesPerStack) + 3);
  constexpr int kSkip = 3;  // backtrace, InternCurrentStack, MaybeRecordStack
  if (n <= kSkip) return 0;
  uintptr_t key[format::kMaxFramesPerStack + 3];
  for (int i = kSkip; i < n; ++i) key[i - kSkip] = reinterpret_cast<uintptr_t>(pcs[i]);
  Session& s = GetSession();
  std::lock_guard<std::mutex> lock(s.tables_mu);
  return InternStackLocked(s, ts->gen.get(), absl::MakeConstSpan(key, n - kSkip));
}

}  // namespace

uint64_t InternStackLocked(Session& s, uint64_t gen, absl::Span<const uintptr_t> pcs) {
  std::vector<uintptr_t> key(pcs.begin(), pcs.end());
  auto it = s.stack_ids.find(key);
  if (it != s.stack_ids.end()) return it->second;
  const uint64_t id = s.stack_ids.size() + 1;
  s.stack_ids.emplace(key, id);
  // Once per new stack of a generation (never per event): the frames' modules, and the
  // exported symbol names dladdr knows. Function names of everything else, and source
  // lines, are the reader's work (from the module records).
  for (int index : ModulesOf(key)) {
    if (index >= 0) RecordModuleLocked(s, gen, index);
  }
  std::vector<format::StackFrame> frames;
  for (uintptr_t pc : key) {
    format::StackFrame frame;
    frame.pc = pc;
    const std::string& name = DynamicSymbolLocked(pc);
    if (!name.empty()) frame.func_string = InternLocked(s, gen, name);
    frames.push_back(frame);
  }
  std::string record;
  const uint64_t args[] = {id, frames.size()};
  format::TryAppendRecord(&record, EventType::kStack, args, {}, frames);
  s.stacks.Append(record, gen, s.pool);
  return id;
}

uint64_t GenSiteIdSlow(ThreadState* ts, uint32_t index) {
  Session& s = GetSession();
  std::lock_guard<std::mutex> lock(s.tables_mu);
  return GenSiteIdLocked(s, ts->gen.get(), index);
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
  SiteRegistry& registry = GetSession().site_registry;
  const uint32_t index = registry.Intern(MakeSite(file, line, category, label, repo_id));
  if (index == kFilteredSite) return kFilteredSite;  // the registry is full: drop
  if (registry.Get(index).filtered) {
    // Every later call of this literal site is skipped by the macro's test of the word.
    // release, as below (the macro's relaxed test reads no entry: it only skips).
    __atomic_store_n(&callsite->word, kCallsiteFiltered, __ATOMIC_RELEASE);
    return kFilteredSite;
  }
  if (repo_tag <= 0xffffffffu) {
    // release, pairs with SiteIndexForCallsite's acquire: the registry entry is constructed
    // before another thread reads it through the cached index.
    __atomic_store_n(&callsite->word, (repo_tag << 32) | (uint64_t{index} + 1), __ATOMIC_RELEASE);
  }
  return index;
}

bool SiteFiltered(uint32_t index) {
  return index == kFilteredSite || g_site_registry->Get(index).filtered;
}

uint64_t UniqueString(ThreadState* ts, absl::string_view value) {
  return UniqueStringImpl(ts, value, false);
}

void MaybeRecordStack(ThreadState* ts, EventType type) {
  if (!WantStack(type)) return;
  const uint64_t stack_id = InternCurrentStack(ts);
  if (stack_id == 0) return;
  uint64_t now;
  const uint64_t dt = StampEvent(ts, &now);
  WriteEvent(ts, EventType::kStackRef, {dt, stack_id});
  if (ts->pos.get() > ts->limit.get()) FlushBatch(ts);
}

void TableBuffer::Append(absl::string_view record, uint64_t gen, BufferPool& pool) {
  if (open != nullptr && body_size + record.size() > kStringCapacity) Seal(gen);
  if (open == nullptr) {
    open = pool.Take();
    body_size = 0;
  }
  memcpy(open->data + kTableHeaderReserve + body_size, record.data(), record.size());
  body_size += record.size();
}

void TableBuffer::Seal(uint64_t gen) {
  if (open == nullptr) return;
  uint8_t header[kTableHeaderReserve];
  const size_t n = EncodeSmallRecord(header, batch_type, {gen, body_size});
  SealFrame(open, kTableHeaderReserve, header, n, body_size);
  sealed.Append(open);
  open = nullptr;
  body_size = 0;
}

void TableBuffer::MoveTo(GenerationFrames* frames, uint64_t gen, BufferPool& pool) {
  Seal(gen);
  Buffer* batch = sealed.head;
  sealed = BufferList{};
  while (batch != nullptr) {
    Buffer* next = batch->next;
    frames->TakeFrame(batch, pool);
    batch = next;
  }
}

}  // namespace tracewire::runtime
