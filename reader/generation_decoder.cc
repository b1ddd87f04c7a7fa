#include "reader/generation_decoder.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <utility>

#include "absl/base/optimization.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/raw_decoder.h"
#include "format/varint.h"

namespace tracewire::reader {
namespace {

using format::EventType;

// Deepest region stack accepted per thread (garbage must not grow memory without bound).
constexpr size_t kMaxRegionDepth = size_t{1} << 20;

constexpr uint8_t T(EventType type) { return static_cast<uint8_t>(type); }

// EventKind of each surfaced wire type.
struct KindTable {
  EventKind kind[256];
  KindTable() {
    for (EventKind& k : kind) k = EventKind::kExperimental;
    kind[T(EventType::kVersion)] = EventKind::kVersion;
    kind[T(EventType::kTooManyFiles)] = EventKind::kTooManyFiles;
    kind[T(EventType::kStart)] = EventKind::kStart;
    kind[T(EventType::kExit)] = EventKind::kExit;
    kind[T(EventType::kSignal)] = EventKind::kSignal;
    kind[T(EventType::kAtexit)] = EventKind::kAtexit;
    kind[T(EventType::kError)] = EventKind::kError;
    kind[T(EventType::kCmdPath)] = EventKind::kCmdPath;
    kind[T(EventType::kCmdAncestry)] = EventKind::kCmdAncestry;
    kind[T(EventType::kCmdName)] = EventKind::kCmdName;
    kind[T(EventType::kCmdMode)] = EventKind::kCmdMode;
    kind[T(EventType::kAlias)] = EventKind::kAlias;
    kind[T(EventType::kChildStart)] = EventKind::kChildStart;
    kind[T(EventType::kChildExit)] = EventKind::kChildExit;
    kind[T(EventType::kChildReady)] = EventKind::kChildReady;
    kind[T(EventType::kExec)] = EventKind::kExec;
    kind[T(EventType::kExecResult)] = EventKind::kExecResult;
    kind[T(EventType::kThreadStart)] = EventKind::kThreadStart;
    kind[T(EventType::kThreadExit)] = EventKind::kThreadExit;
    kind[T(EventType::kDefParam)] = EventKind::kDefParam;
    kind[T(EventType::kDefRepo)] = EventKind::kDefRepo;
    kind[T(EventType::kRegionEnter)] = EventKind::kRegionEnter;
    kind[T(EventType::kRegionLeave)] = EventKind::kRegionLeave;
    kind[T(EventType::kData)] = EventKind::kData;
    kind[T(EventType::kDataInt)] = EventKind::kData;
    kind[T(EventType::kDataJson)] = EventKind::kDataJson;
    kind[T(EventType::kPrintf)] = EventKind::kPrintf;
    kind[T(EventType::kThTimer)] = EventKind::kThTimer;
    kind[T(EventType::kTimer)] = EventKind::kTimer;
    kind[T(EventType::kThCounter)] = EventKind::kThCounter;
    kind[T(EventType::kCounter)] = EventKind::kCounter;
  }
};

const KindTable& Kinds() {
  static const KindTable* table = new KindTable();
  return *table;
}

std::string DefaultThreadName(uint64_t thread_id) {
  if (thread_id == 0) return "main";
  return absl::StrFormat("th%02d:unknown", thread_id);
}

}  // namespace

GenerationDecoder::GenerationDecoder() {
  for (int i = 0; i < 256; ++i) specs_[i] = format::LookupSpec(static_cast<uint8_t>(i));
  Kinds();
}

absl::Status GenerationDecoder::GenError(uint64_t offset, absl::string_view reason) const {
  return absl::DataLossError(absl::StrFormat("%s: byte offset %d: %s", describe_, offset, reason));
}

absl::Status GenerationDecoder::CursorError(const Cursor& c, uint64_t offset, uint64_t index,
                                            absl::string_view reason) const {
  return absl::DataLossError(absl::StrFormat("%s, thread %d, event %d: byte offset %d: %s",
                                             describe_, c.thread_id, index, offset, reason));
}

absl::Time GenerationDecoder::WallTime(uint64_t ticks) const {
  const int64_t delta = static_cast<int64_t>(ticks - info_.clock.trace_time);
  int64_t ns;
  if (ABSL_PREDICT_TRUE(ns_per_tick_ != 0) && !__builtin_mul_overflow(delta, ns_per_tick_, &ns)) {
    return info_.clock.wall + absl::Nanoseconds(ns);
  }
  const __int128 wide =
      static_cast<__int128>(delta) * 1000000000 / static_cast<__int128>(info_.clock.freq);
  constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
  constexpr __int128 kMin = std::numeric_limits<int64_t>::min();
  return info_.clock.wall + absl::Nanoseconds(static_cast<int64_t>(std::clamp(wide, kMin, kMax)));
}

absl::Status GenerationDecoder::Start(const RawGeneration& gen, ProcessStates* processes) {
  state_ = nullptr;
  finished_ = false;
  error_ = absl::OkStatus();
  cur_ = nullptr;
  heap_.clear();
  batches_.clear();
  cursors_.clear();
  cursor_of_thread_.clear();
  describe_ = gen.Describe();
  info_.gen = gen.gen;
  info_.file_offset = gen.file_offset;
  info_.file_bytes = gen.file_bytes;
  info_.compressed = gen.compressed;
  info_.experimental_batches.clear();

  const Frame* clock = nullptr;
  const Frame* process = nullptr;
  for (const Frame& f : gen.frames) {
    if (f.type == EventType::kClockSync) {
      if (clock != nullptr) {
        return GenError(f.offset, "second clock_sync (a generation has exactly one)");
      }
      clock = &f;
    } else if (f.type == EventType::kProcessInfo) {
      if (process != nullptr) {
        return GenError(f.offset, "second process_info (a generation has exactly one)");
      }
      process = &f;
    } else if (f.type == EventType::kExperimentalBatch) {
      info_.experimental_batches.push_back({f.args[0], f.args[2], f.args[3], f.payload});
    }
  }
  if (clock == nullptr) {
    return GenError(gen.file_offset, "no clock_sync (a generation has exactly one)");
  }
  if (process == nullptr) {
    return GenError(gen.file_offset, "no process_info (a generation has exactly one)");
  }

  // clock_sync: gen, freq, trace_time, mono_ns, wall_sec, wall_nsec, utc_offset_sec.
  const uint64_t* ca = clock->args;
  if (ca[1] == 0) return GenError(clock->offset, "clock_sync freq is 0");
  if (ca[5] >= 1000000000) {
    return GenError(clock->offset,
                    absl::StrFormat("clock_sync wall_nsec %d is not below 1e9", ca[5]));
  }
  if (ca[4] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return GenError(clock->offset,
                    absl::StrFormat("clock_sync wall_sec %d is out of range", ca[4]));
  }
  info_.clock.freq = ca[1];
  info_.clock.trace_time = ca[2];
  info_.clock.mono_ns = ca[3];
  info_.clock.wall = absl::FromUnixSeconds(static_cast<int64_t>(ca[4])) + absl::Nanoseconds(ca[5]);
  info_.clock.utc_offset_sec = format::ZigzagDecode(ca[6]);
  sec_per_tick_ = 1.0 / static_cast<double>(ca[1]);
  ns_per_tick_ = 1000000000 % ca[1] == 0 ? static_cast<int64_t>(1000000000 / ca[1]) : 0;

  if (absl::Status s = tables_.Build(gen); !s.ok()) return s;

  // process_info: gen, sid_string, pid, start_time, name_string, hierarchy_string.
  const uint64_t* pa = process->args;
  if (pa[1] == 0) return GenError(process->offset, "process_info has no sid (sid_string 0)");
  for (int i : {1, 4, 5}) {
    if (pa[i] != 0 && tables_.FindString(pa[i]) == nullptr) {
      return GenError(
          process->offset,
          absl::StrFormat("process_info %s %d is not in the string table",
                          format::LookupSpec(EventType::kProcessInfo)->args[i].name, pa[i]));
    }
  }
  ProcessState* const state = processes->FindOrCreate(Str(pa[1]));
  if (state->last_gen.has_value() && gen.gen <= *state->last_gen) {
    return GenError(process->offset,
                    absl::StrFormat("process %s: generation %d follows its generation %d; a "
                                    "process's generation numbers must increase",
                                    state->sid, gen.gen, *state->last_gen));
  }
  state_ = state;
  state->pid = pa[2];
  state->start_time = pa[3];
  info_.sid = state->sid;
  info_.pid = pa[2];
  info_.start_time = pa[3];
  info_.name = OptStr(pa[4]);
  info_.hierarchy = OptStr(pa[5]);

  // Group the event batches by thread, keeping file order within a thread.
  std::vector<uint32_t> last_batch;
  for (const Frame& f : gen.frames) {
    if (f.type != EventType::kEventBatch) continue;
    const uint32_t index = static_cast<uint32_t>(batches_.size());
    batches_.push_back(Batch{reinterpret_cast<const uint8_t*>(f.payload.data()),
                             reinterpret_cast<const uint8_t*>(f.payload.data()) + f.payload.size(),
                             f.payload_offset, f.args[2], kNoBatch});
    auto [it, inserted] = cursor_of_thread_.try_emplace(f.args[1], cursors_.size());
    if (inserted) {
      Cursor& c = cursors_.emplace_back();
      c.thread_id = f.args[1];
      c.next_batch = index;
      last_batch.push_back(index);
    } else {
      batches_[last_batch[it->second]].next = index;
      last_batch[it->second] = index;
    }
  }
  info_.num_threads = cursors_.size();
  std::vector<uint64_t> ids;
  ids.reserve(cursors_.size());
  for (const Cursor& c : cursors_) ids.push_back(c.thread_id);
  std::sort(ids.begin(), ids.end());
  for (Cursor& c : cursors_) {
    c.order =
        static_cast<uint32_t>(std::lower_bound(ids.begin(), ids.end(), c.thread_id) - ids.begin());
    std::unique_ptr<ThreadState>& ts = state->threads[c.thread_id];
    if (ts == nullptr) {
      ts = std::make_unique<ThreadState>();
      ts->name = DefaultThreadName(c.thread_id);
      ts->start_time = state->start_time;
    }
    c.ts = ts.get();
  }
  for (Cursor& c : cursors_) {
    if (absl::Status s = DecodeHead(c); !s.ok()) return s;
    if (c.has_head) {
      heap_.push_back(&c);
      SiftUp(heap_.size() - 1);
    } else if (absl::Status s = EndStream(c); !s.ok()) {
      return s;
    }
  }
  if (!heap_.empty()) {
    cur_ = heap_[0];
    heap_[0] = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) SiftDown(0);
  }
  return absl::OkStatus();
}

void GenerationDecoder::SiftUp(size_t i) {
  while (i > 0) {
    const size_t parent = (i - 1) / 2;
    if (!Less(heap_[i], heap_[parent])) break;
    std::swap(heap_[i], heap_[parent]);
    i = parent;
  }
}

void GenerationDecoder::SiftDown(size_t i) {
  const size_t n = heap_.size();
  while (true) {
    const size_t left = 2 * i + 1;
    if (left >= n) return;
    size_t best = left;
    if (left + 1 < n && Less(heap_[left + 1], heap_[left])) best = left + 1;
    if (!Less(heap_[best], heap_[i])) return;
    std::swap(heap_[i], heap_[best]);
    i = best;
  }
}

absl::Status GenerationDecoder::DecodeHead(Cursor& c) {
  while (c.pos == c.end) {
    if (c.next_batch == kNoBatch) {
      c.has_head = false;
      return absl::OkStatus();
    }
    const Batch& b = batches_[c.next_batch];
    c.pos = c.body_begin = b.begin;
    c.end = b.end;
    c.body_offset = b.body_offset;
    c.time = b.base_time;
    c.next_batch = b.next;
  }
  const uint8_t* p = c.pos;
  const uint8_t type = *p;
  const format::EventSpec* spec = specs_[type];
  c.head_offset = c.body_offset + static_cast<uint64_t>(p - c.body_begin);
  c.head_index = c.records;
  bool fast = spec != nullptr && spec->scope == format::Scope::kEventBody && !spec->has_data;
  if (ABSL_PREDICT_TRUE(fast)) {
    ++p;
    const int n = spec->num_args;
    for (int i = 0; i < n; ++i) {
      if (ABSL_PREDICT_TRUE(p < c.end && *p < 0x80)) {
        c.head_args[i] = *p++;
        continue;
      }
      if (format::GetUvarint(&p, c.end, &c.head_args[i]) != format::VarintResult::kOk) {
        fast = false;
        break;
      }
    }
    c.head_data = {};
  }
  if (ABSL_PREDICT_FALSE(!fast)) {
    format::RecordDecoder decoder(
        absl::string_view(reinterpret_cast<const char*>(c.pos), c.end - c.pos), c.head_offset,
        format::Scope::kEventBody);
    absl::StatusOr<bool> decoded = decoder.Next(&raw_);
    if (!decoded.ok()) {
      // The batch body is complete, so a record running past its end is corruption.
      return absl::DataLossError(absl::StrFormat("%s, thread %d, event %d: %s", describe_,
                                                 c.thread_id, c.head_index,
                                                 decoded.status().message()));
    }
    spec = raw_.spec;
    std::copy(raw_.args, raw_.args + raw_.num_args, c.head_args);
    c.head_data = raw_.data;
    p = c.pos + raw_.size;
  }
  c.head_type = type;
  c.head_spec = spec;
  const uint64_t dt = c.head_args[0];
  const uint64_t t = c.time + dt;
  if (ABSL_PREDICT_FALSE(dt == 0)) {
    return HeadError(c, absl::StrFormat("%s has dt 0: times must strictly increase (dt >= 1)",
                                        spec != nullptr ? spec->name : "experimental event"));
  }
  if (ABSL_PREDICT_FALSE(t < c.time)) return HeadError(c, "time overflows 64 bits");
  if (ABSL_PREDICT_FALSE(c.any_record && t <= c.last_time)) {
    return HeadError(c, absl::StrFormat("time %d is not after the thread's previous event at "
                                        "%d: batches of one thread overlap in time",
                                        t, c.last_time));
  }
  c.pos = p;
  c.time = t;
  c.last_time = t;
  c.any_record = true;
  c.head_time = t;
  ++c.records;
  c.has_head = true;
  return absl::OkStatus();
}

absl::Status GenerationDecoder::EndRestatement(Cursor& c) {
  c.restating = false;
  const ThreadState& ts = *c.ts;
  if (!ts.carried.has_value() || *ts.carried == ts.regions) return absl::OkStatus();
  const std::vector<uint64_t>& carried = *ts.carried;
  if (carried.size() != ts.regions.size()) {
    return HeadError(c, absl::StrFormat("thread_status and region_active re-state %d open "
                                        "regions, but %d were open at the end of the previous "
                                        "generation",
                                        ts.regions.size(), carried.size()));
  }
  for (size_t i = 0; i < carried.size(); ++i) {
    if (carried[i] != ts.regions[i]) {
      return HeadError(c, absl::StrFormat("region_active %d re-states a region entered at %d, "
                                          "but the open region was entered at %d",
                                          i, ts.regions[i], carried[i]));
    }
  }
  return absl::OkStatus();
}

absl::Status GenerationDecoder::EndStream(Cursor& c) {
  c.has_pending_stack = false;
  if (c.restating) return EndRestatement(c);
  return absl::OkStatus();
}

void GenerationDecoder::FinishGeneration() {
  auto& threads = state_->threads;
  for (auto it = threads.begin(); it != threads.end();) {
    if (it->second->exited) {
      threads.erase(it++);
    } else {
      it->second->carried = it->second->regions;
      ++it;
    }
  }
  state_->last_gen = info_.gen;
}

absl::Status GenerationDecoder::SplitList(const Cursor& c, uint64_t id,
                                          std::vector<absl::string_view>* items) {
  items->clear();
  absl::string_view bytes = Str(id);
  if (!bytes.empty() && bytes.back() != '\0') {
    return HeadError(c, absl::StrFormat("string list %d does not end with a NUL byte", id));
  }
  while (!bytes.empty()) {
    const size_t nul = bytes.find('\0');
    items->push_back(bytes.substr(0, nul));
    bytes.remove_prefix(nul + 1);
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> GenerationDecoder::Process(Cursor& c) {
  ThreadState& ts = *c.ts;
  const uint8_t type = c.head_type;
  const format::EventSpec* spec = c.head_spec;
  const uint64_t* a = c.head_args;
  const uint64_t now = c.head_time;
  if (ABSL_PREDICT_FALSE(ts.exited)) {
    return HeadError(c, absl::StrFormat("%s after thread_exit: thread_exit must be the "
                                        "thread's last event",
                                        spec != nullptr ? spec->name : "experimental event"));
  }
  if (ABSL_PREDICT_FALSE(c.restating) && type != T(EventType::kRegionActive)) {
    if (absl::Status s = EndRestatement(c); !s.ok()) return s;
  }

  // Records that only update the thread's state.
  switch (type) {
    case T(EventType::kThreadStatus): {
      // dt, name_string, start_time.
      if (c.head_index != 0) {
        return HeadError(c,
                         "thread_status must be the first record of the thread's stream in "
                         "a generation");
      }
      if (a[1] != 0) {
        if (tables_.FindString(a[1]) == nullptr) {
          return HeadError(c, absl::StrFormat("thread_status name_string %d is not in the "
                                              "string table",
                                              a[1]));
        }
        ts.name = std::string(Str(a[1]));
      }
      if (a[2] > now) {
        return HeadError(c, absl::StrFormat("thread_status start_time %d is after the record "
                                            "time %d",
                                            a[2], now));
      }
      ts.start_time = a[2];
      ts.regions.clear();
      c.restating = true;
      return false;
    }
    case T(EventType::kRegionActive): {
      // dt, site, msg_string, enter_time.
      if (!c.restating) {
        return HeadError(c,
                         "region_active outside a re-statement: it must follow "
                         "thread_status or another region_active");
      }
      if (tables_.FindSite(a[1]) == nullptr) {
        return HeadError(c, absl::StrFormat("site ID %d is not in the site table", a[1]));
      }
      if (a[2] != 0 && tables_.FindString(a[2]) == nullptr) {
        return HeadError(c, absl::StrFormat("msg_string %d is not in the string table", a[2]));
      }
      if (a[3] > now) {
        return HeadError(c, absl::StrFormat("region_active enter_time %d is after the record "
                                            "time %d",
                                            a[3], now));
      }
      if (ts.regions.size() >= kMaxRegionDepth) return HeadError(c, "regions nest too deep");
      ts.regions.push_back(a[3]);
      return false;
    }
    case T(EventType::kStackRef): {
      // dt, stack.
      if (a[1] == 0) {
        c.has_pending_stack = false;
        return false;
      }
      if (!tables_.FindStack(a[1], &c.pending_stack)) {
        return HeadError(c, absl::StrFormat("stack ID %d is not in the stack table", a[1]));
      }
      c.has_pending_stack = true;
      return false;
    }
    default:
      break;
  }

  Event& e = event_;
  e.wire_type = type;
  e.gen = info_.gen;
  e.thread_id = c.thread_id;
  e.ticks = now;
  e.sid = state_->sid;
  e.depth = state_->depth;
  e.thread_name = ts.name;
  e.time = WallTime(now);
  e.utc_offset_sec = info_.clock.utc_offset_sec;
  e.t_abs = SignedSeconds(state_->start_time, now);
  e.t_rel.reset();
  e.msg.reset();
  if (c.has_pending_stack) {
    e.stack = c.pending_stack;
    c.has_pending_stack = false;
  } else {
    e.stack = {};
  }

  if (ABSL_PREDICT_FALSE(spec == nullptr || spec->experimental)) {
    e.kind = EventKind::kExperimental;
    e.file = {};
    e.line = 0;
    e.repo.reset();
    e.category = {};
    e.label = {};
    e.nesting = 1 + static_cast<int>(ts.regions.size());
    e.experimental_data = c.head_data;
    return true;
  }

  // A Trace2 row: dt, site, then the row's own arguments.
  const SiteInfo* site = tables_.FindSite(a[1]);
  if (ABSL_PREDICT_FALSE(site == nullptr)) {
    return HeadError(c,
                     absl::StrFormat("%s: site ID %d is not in the site table", spec->name, a[1]));
  }
  for (uint8_t index : spec->StringIds()) {
    if (ABSL_PREDICT_FALSE(a[index] != 0 && tables_.FindString(a[index]) == nullptr)) {
      return HeadError(c, absl::StrFormat("%s: %s %d is not in the string table", spec->name,
                                          spec->args[index].name, a[index]));
    }
  }
  e.kind = Kinds().kind[type];
  e.file = site->file;
  e.line = site->line;
  if (site->repo != 0) {
    e.repo = static_cast<int64_t>(site->repo - 1);
  } else {
    e.repo.reset();
  }
  e.category = site->category;
  e.label = site->label;
  auto innermost = [&ts]() { return ts.regions.empty() ? ts.start_time : ts.regions.back(); };

  switch (type) {
    case T(EventType::kVersion):
      e.exe = Str(a[2]);
      state_->saw_process_start = true;
      break;
    case T(EventType::kTooManyFiles):
      break;
    case T(EventType::kStart):
      if (absl::Status s = SplitList(c, a[2], &e.argv); !s.ok()) return s;
      state_->saw_process_start = true;
      break;
    case T(EventType::kExit):
      e.code = format::ZigzagDecode(a[2]);
      break;
    case T(EventType::kSignal):
      e.signo = a[2];
      break;
    case T(EventType::kAtexit):
      ts.regions.clear();
      e.code = format::ZigzagDecode(a[2]);
      break;
    case T(EventType::kError):
      e.msg = OptStr(a[2]);
      e.fmt = OptStr(a[3]);
      break;
    case T(EventType::kCmdPath):
      e.cmd_path = Str(a[2]);
      break;
    case T(EventType::kCmdAncestry):
      if (absl::Status s = SplitList(c, a[2], &e.ancestry); !s.ok()) return s;
      break;
    case T(EventType::kCmdName):
      e.cmd_name = Str(a[2]);
      e.cmd_hierarchy = OptStr(a[3]);
      break;
    case T(EventType::kCmdMode):
      e.cmd_mode = Str(a[2]);
      break;
    case T(EventType::kAlias):
      e.alias = Str(a[2]);
      if (absl::Status s = SplitList(c, a[3], &e.argv); !s.ok()) return s;
      break;
    case T(EventType::kChildStart):
      // child_id, class_string, hook_string, cd_string, flags, argv_strlist.
      e.child_id = a[2];
      // No class string: "git" for a git command, else "?" (docs/format.md §13).
      e.child_class = a[3] != 0                                    ? Str(a[3])
                      : (a[6] & format::kChildFlagGitCommand) != 0 ? "git"
                                                                   : "?";
      e.hook_name = OptStr(a[4]);
      e.cd = OptStr(a[5]);
      e.use_shell = (a[6] & format::kChildFlagUseShell) != 0;
      e.is_git_command = (a[6] & format::kChildFlagGitCommand) != 0;
      if (absl::Status s = SplitList(c, a[7], &e.argv); !s.ok()) return s;
      if (!state_->open_children.insert(a[2]).second) {
        return HeadError(c, absl::StrFormat("child_start for child_id %d, which is already "
                                            "running",
                                            a[2]));
      }
      break;
    case T(EventType::kChildExit):
    case T(EventType::kChildReady): {
      // child_id, pid, code or ready, elapsed.
      e.child_id = a[2];
      e.pid = format::ZigzagDecode(a[3]);
      e.t_rel = Seconds(a[5]);
      const bool exit = type == T(EventType::kChildExit);
      if (exit) {
        e.code = format::ZigzagDecode(a[4]);
      } else if (a[4] == format::kChildReadyReady) {
        e.ready = "ready";
      } else if (a[4] == format::kChildReadyTimeout) {
        e.ready = "timeout";
      } else if (a[4] == format::kChildReadyError) {
        e.ready = "error";
      } else {
        return HeadError(c, absl::StrFormat("child_ready has an unknown ready value %d", a[4]));
      }
      const bool known =
          exit ? state_->open_children.erase(a[2]) > 0 : state_->open_children.contains(a[2]);
      if (!known && state_->saw_process_start) {
        return HeadError(c, absl::StrFormat("%s for child_id %d, which has no child_start in "
                                            "this process",
                                            spec->name, a[2]));
      }
      break;
    }
    case T(EventType::kExec):
      // exec_id, exe_string, argv_strlist.
      e.exec_id = a[2];
      e.exec_exe = OptStr(a[3]);
      if (absl::Status s = SplitList(c, a[4], &e.argv); !s.ok()) return s;
      if (!state_->open_execs.insert(a[2]).second) {
        return HeadError(c, absl::StrFormat("exec for exec_id %d, which is already pending", a[2]));
      }
      break;
    case T(EventType::kExecResult):
      e.exec_id = a[2];
      e.code = format::ZigzagDecode(a[3]);
      if (state_->open_execs.erase(a[2]) == 0 && state_->saw_process_start) {
        return HeadError(c, absl::StrFormat("exec_result for exec_id %d, which has no exec in "
                                            "this process",
                                            a[2]));
      }
      break;
    case T(EventType::kThreadStart):
      if (ts.started) {
        return HeadError(c, "thread_start for a thread that has already started");
      }
      ts.started = true;
      if (a[2] != 0) ts.name = std::string(Str(a[2]));
      ts.start_time = now;
      e.thread_name = ts.name;
      break;
    case T(EventType::kThreadExit):
      ts.regions.clear();
      e.t_rel = SignedSeconds(ts.start_time, now);
      ts.exited = true;
      break;
    case T(EventType::kDefParam):
      e.param_scope = Str(a[2]);
      e.param = Str(a[3]);
      e.param_value = OptStr(a[4]);
      break;
    case T(EventType::kDefRepo):
      e.repo = static_cast<int64_t>(a[2]);
      e.worktree = Str(a[3]);
      break;
    case T(EventType::kRegionEnter):
      if (ABSL_PREDICT_FALSE(ts.regions.size() >= kMaxRegionDepth)) {
        return HeadError(c, "regions nest too deep");
      }
      e.nesting = 1 + static_cast<int>(ts.regions.size());
      ts.regions.push_back(now);
      e.msg = OptStr(a[2]);
      return true;
    case T(EventType::kRegionLeave):
      if (ABSL_PREDICT_FALSE(ts.regions.empty())) {
        return HeadError(c, "region_leave with no open region on the thread");
      }
      e.t_rel = SignedSeconds(ts.regions.back(), now);
      ts.regions.pop_back();
      e.msg = OptStr(a[2]);
      break;
    case T(EventType::kData):
      e.t_rel = SignedSeconds(innermost(), now);
      e.value_kind = ValueKind::kString;
      e.value_string = Str(a[2]);
      break;
    case T(EventType::kDataInt): {
      e.t_rel = SignedSeconds(innermost(), now);
      e.value_kind = ValueKind::kInt;
      e.value_int = format::ZigzagDecode(a[2]);
      char* end = std::to_chars(e.int_buffer, e.int_buffer + sizeof(e.int_buffer), e.value_int).ptr;
      e.value_string = absl::string_view(e.int_buffer, end - e.int_buffer);
      break;
    }
    case T(EventType::kDataJson):
      e.t_rel = SignedSeconds(innermost(), now);
      e.value_kind = ValueKind::kJson;
      e.value_string = Str(a[2]);
      break;
    case T(EventType::kPrintf):
      e.msg = OptStr(a[2]);
      break;
    case T(EventType::kThTimer):
    case T(EventType::kTimer):
      ts.regions.clear();
      e.intervals = a[2];
      e.t_total = Seconds(a[3]);
      e.t_min = Seconds(a[4]);
      e.t_max = Seconds(a[5]);
      break;
    case T(EventType::kThCounter):
    case T(EventType::kCounter):
      ts.regions.clear();
      e.count = a[2];
      break;
    default:
      return HeadError(c, absl::StrFormat("%s may not appear in an event batch", spec->name));
  }
  e.nesting = 1 + static_cast<int>(ts.regions.size());
  return true;
}

absl::StatusOr<const Event*> GenerationDecoder::Next() {
  if (ABSL_PREDICT_FALSE(!error_.ok())) return error_;
  while (cur_ != nullptr) {
    Cursor& c = *cur_;
    absl::StatusOr<bool> produced = Process(c);
    if (ABSL_PREDICT_FALSE(!produced.ok())) {
      error_ = produced.status();
      return error_;
    }
    absl::Status advanced = DecodeHead(c);
    if (ABSL_PREDICT_TRUE(advanced.ok()) && !c.has_head) advanced = EndStream(c);
    if (ABSL_PREDICT_FALSE(!advanced.ok())) {
      error_ = advanced;
      if (*produced) return &event_;
      return error_;
    }
    if (!c.has_head) {
      if (heap_.empty()) {
        cur_ = nullptr;
      } else {
        cur_ = heap_[0];
        heap_[0] = heap_.back();
        heap_.pop_back();
        if (!heap_.empty()) SiftDown(0);
      }
    } else if (!heap_.empty() && Less(heap_[0], &c)) {
      cur_ = heap_[0];
      heap_[0] = &c;
      SiftDown(0);
    }
    if (*produced) return &event_;
  }
  if (!finished_) {
    FinishGeneration();
    finished_ = true;
  }
  return nullptr;
}

}  // namespace tracewire::reader
