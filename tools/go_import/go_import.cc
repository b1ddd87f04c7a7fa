#include "tools/go_import/go_import.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "format/constants.h"
#include "format/event_spec.h"
#include "format/file_header.h"
#include "format/generation_encoder.h"
#include "format/varint.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "tools/go_import/go_trace_reader.h"
#include "tools/trace2_import/imported_trace_check.h"

namespace tracewire::go_trace {
namespace {

using format::EventType;

// What a region on a goroutine's (or a runtime) thread stands for.
enum class Slice : uint8_t { kRegion, kBlock, kSyscall, kAssist, kGc, kStw };

struct OpenSlice {
  Slice kind = Slice::kRegion;
  uint64_t enter = 0;
  format::Site site;
};

// A tracewire thread: a goroutine or a runtime track.
struct Track {
  std::string name;
  uint64_t start = 0;
  bool live = true;
  uint64_t touched_gen = 0;  // the last generation the thread has records in
  uint64_t last = 0;         // time of its last record (the encoder makes them increase)
  std::vector<OpenSlice> slices;
  // The user task the goroutine works for (task_adopt), 0 for none: the task of its
  // regions and logs. After its last user region ends it is released just after that end,
  // when the goroutine's next record leaves room (release_pending until then).
  uint64_t adopted = 0;
  bool release_pending = false;
};

struct ActiveTask {
  format::Site site;
  uint64_t parent = 0;
  uint64_t begin = 0;
};

format::Site MakeSite(absl::string_view category, absl::string_view label) {
  format::Site site;
  site.category = std::string(category);
  site.label = std::string(label);
  return site;
}

}  // namespace

class GoConverter {
 public:
  explicit GoConverter(const GoImportOptions& options) : options_(options) {
    out_ = format::EncodeFileHeader(format::kFormatVersion);
  }

  // Converts one generation, appending it to the output.
  absl::Status Generation(const GoGeneration& gen, const GoEventLog& events);
  // Appends the output so far to *out, and forgets it.
  void TakeOutput(std::string* out) {
    out->append(out_);
    out_.clear();
  }
  size_t output_bytes() const { return out_.capacity(); }

 private:
  // The thread of goroutine `g`, created (named, restated at `time`) if new; nullptr if
  // the goroutine ended earlier in this generation.
  Track* Goroutine(int64_t g, uint64_t time);
  // Appends a record to `thread` at `time`, or just after its previous record (the
  // encoder's rule); *at (if given) is the record's time.
  absl::Status Emit(uint64_t thread, EventType type, uint64_t time,
                    std::initializer_list<uint64_t> args, uint64_t* at = nullptr);
  absl::Status Open(uint64_t thread, Track* track, Slice kind, const format::Site& site,
                    uint64_t time);
  // Closes the innermost open slice of `kind` (and label `label` unless empty), and the
  // slices opened inside it; nothing if none is open.
  absl::Status Close(uint64_t thread, Track* track, Slice kind,
                     std::optional<absl::string_view> label, uint64_t time);
  bool HasOpen(const Track& track, Slice kind) const;
  absl::Status Data(uint64_t thread, const format::Site& site, absl::string_view value,
                    uint64_t time);
  // Before a record of `thread` at `time`: the pending release of its task, if there is
  // room for it before `time` (else the task stays adopted).
  absl::Status SettleRelease(uint64_t thread, Track* track, uint64_t time);
  // Makes goroutine `thread` work for user task `task` (0: none) before a record at
  // `time`: task_adopt or task_release, just before `time` when there is room.
  absl::Status Adopt(uint64_t thread, uint64_t task, uint64_t time);
  // The creation of goroutine `id` by goroutine `creator` at `time`, as a flow: a task
  // (category "go.create", named by the new goroutine) begun on the creator, worked for
  // briefly by the creator and then by the new goroutine, and ended there.
  absl::Status CreationFlow(uint64_t creator, uint64_t id, uint64_t time);
  // The site of user task `task` (its name when known).
  uint64_t TaskSite(uint64_t task);
  // The records (after `time`) that end the generation's pending releases.
  absl::Status SettleAll();
  absl::Status Restate(uint64_t t0);
  absl::Status Event(const GoEvent& e);
  uint64_t Stack(uint64_t id);
  // The function a goroutine was started with: the innermost frame of a creation stack.
  std::string StartFunction(uint64_t stack) const;
  // The outermost function of a stack but runtime.goexit ("" for none).
  std::string OutermostFunction(uint64_t stack) const;

  GoImportOptions options_;
  std::string out_;
  absl::flat_hash_map<uint64_t, Track> tracks_;
  absl::flat_hash_map<uint64_t, ActiveTask> tasks_;
  absl::flat_hash_map<int64_t, std::string> names_;  // this generation: goroutine -> name
  absl::flat_hash_map<uint64_t, uint64_t> stacks_;   // Go stack ID -> tracewire stack ID
  std::unique_ptr<format::GenerationEncoder> enc_;
  const GoGeneration* gen_ = nullptr;
  uint64_t gen_number_ = 0;
  std::optional<uint64_t> process_start_;
};

Track* GoConverter::Goroutine(int64_t g, uint64_t time) {
  const uint64_t id = static_cast<uint64_t>(g);
  auto it = tracks_.find(id);
  if (it != tracks_.end()) return it->second.live ? &it->second : nullptr;
  Track& t = tracks_[id];
  auto name = names_.find(g);
  t.name =
      name != names_.end() && !name->second.empty() ? name->second : absl::StrCat("goroutine ", g);
  t.start = time;
  if (!Emit(id, EventType::kThreadStatus, time, {enc_->String(t.name), time}).ok()) return nullptr;
  return &tracks_[id];
}

absl::Status GoConverter::SettleRelease(uint64_t thread, Track* track, uint64_t time) {
  if (!track->release_pending) return absl::OkStatus();
  track->release_pending = false;
  if (track->adopted == 0 || time <= track->last + 1) return absl::OkStatus();
  const uint64_t task = track->adopted;
  track->adopted = 0;
  track->last += 1;
  return enc_->Event(thread, EventType::kTaskRelease, track->last,
                     {enc_->InternSite(MakeSite("go.task", "")), task});
}

absl::Status GoConverter::SettleAll() {
  for (auto& [thread, track] : tracks_) {
    if (!track.release_pending) continue;
    if (absl::Status s = SettleRelease(thread, &track, ~uint64_t{0}); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status GoConverter::Adopt(uint64_t thread, uint64_t task, uint64_t time) {
  if (task == kNoTask) task = 0;
  Track& track = tracks_[thread];
  if (track.adopted == task) {
    track.release_pending = false;
    return absl::OkStatus();
  }
  if (absl::Status s = SettleRelease(thread, &track, time); !s.ok()) return s;
  if (track.adopted == task) return absl::OkStatus();
  const uint64_t at = time > track.last + 1 ? time - 1 : time;
  const uint64_t released = track.adopted;
  track.adopted = task;
  if (task == 0) {
    return Emit(thread, EventType::kTaskRelease, at,
                {enc_->InternSite(MakeSite("go.task", "")), released});
  }
  return Emit(thread, EventType::kTaskAdopt, at, {TaskSite(task), task});
}

uint64_t GoConverter::TaskSite(uint64_t task) {
  auto known = tasks_.find(task);
  return enc_->InternSite(known != tasks_.end() ? known->second.site : MakeSite("go.task", ""));
}

absl::Status GoConverter::CreationFlow(uint64_t creator, uint64_t id, uint64_t time) {
  const uint64_t task = kCreationTaskBase + id;
  const uint64_t site = enc_->InternSite(MakeSite("go.create", tracks_[id].name));
  // On the creator: the task's begin and the creator's stretch of work for it, just
  // before `time` when there is room, and its user task adopted again.
  const uint64_t first = std::max(tracks_[creator].last + 1, time > 2 ? time - 2 : 0);
  if (absl::Status s = Emit(creator, EventType::kTaskBegin, first, {site, task, 0}); !s.ok())
    return s;
  const uint64_t restore = tracks_[creator].adopted;
  if (absl::Status s = Emit(creator, EventType::kTaskAdopt, first + 1, {site, task}); !s.ok())
    return s;
  if (absl::Status s =
          restore != 0
              ? Emit(creator, EventType::kTaskAdopt, first + 2, {TaskSite(restore), restore})
              : Emit(creator, EventType::kTaskRelease, first + 2, {site, task});
      !s.ok()) {
    return s;
  }
  // On the new goroutine, after its thread_start: its stretch, then the task's end.
  if (absl::Status s = Emit(id, EventType::kTaskAdopt, first + 3, {site, task}); !s.ok()) return s;
  if (absl::Status s = Emit(id, EventType::kTaskRelease, first + 3, {site, task}); !s.ok())
    return s;
  return Emit(id, EventType::kTaskEnd, first + 3, {site, task});
}

absl::Status GoConverter::Emit(uint64_t thread, EventType type, uint64_t time,
                               std::initializer_list<uint64_t> args, uint64_t* at) {
  Track& track = tracks_[thread];
  if (track.release_pending && type != EventType::kTaskRelease && type != EventType::kTaskAdopt) {
    if (absl::Status s = SettleRelease(thread, &track, time); !s.ok()) return s;
  }
  track.touched_gen = gen_number_;
  time = std::max(time, track.last + 1);
  track.last = time;
  if (at != nullptr) *at = time;
  return enc_->Event(thread, type, time, args);
}

absl::Status GoConverter::Open(uint64_t thread, Track* track, Slice kind, const format::Site& site,
                               uint64_t time) {
  uint64_t at = 0;
  absl::Status s = Emit(thread, EventType::kRegionEnter, time, {enc_->InternSite(site), 0}, &at);
  tracks_[thread].slices.push_back(OpenSlice{kind, at, site});
  return s;
}

bool GoConverter::HasOpen(const Track& track, Slice kind) const {
  return std::any_of(track.slices.begin(), track.slices.end(),
                     [&](const OpenSlice& s) { return s.kind == kind; });
}

absl::Status GoConverter::Close(uint64_t thread, Track* track, Slice kind,
                                std::optional<absl::string_view> label, uint64_t time) {
  size_t i = track->slices.size();
  while (i > 0) {
    const OpenSlice& s = track->slices[i - 1];
    if (s.kind == kind && (!label.has_value() || s.site.label == *label)) break;
    --i;
  }
  if (i == 0) return absl::OkStatus();
  while (track->slices.size() >= i) {
    const uint64_t site = enc_->InternSite(track->slices.back().site);
    track->slices.pop_back();
    if (absl::Status s = Emit(thread, EventType::kRegionLeave, time, {site, 0}); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status GoConverter::Data(uint64_t thread, const format::Site& site, absl::string_view value,
                               uint64_t time) {
  return Emit(thread, EventType::kData, time, {enc_->InternSite(site), enc_->String(value)});
}

uint64_t GoConverter::Stack(uint64_t id) {
  if (id == 0) return 0;
  auto cached = stacks_.find(id);
  if (cached != stacks_.end()) return cached->second;
  auto it = gen_->stacks.find(id);
  if (it == gen_->stacks.end() || it->second.empty()) return 0;
  std::vector<format::StackFrame> frames;
  for (uint64_t pc : it->second) {
    const GoFrame& f = gen_->frames.at(pc);
    frames.push_back(format::StackFrame{pc, enc_->String(*gen_->String(f.func)),
                                        enc_->String(*gen_->String(f.file)), f.line});
    if (frames.size() == format::kMaxFramesPerStack) break;
  }
  const uint64_t ours = enc_->InternStack(frames);
  stacks_[id] = ours;
  return ours;
}

std::string GoConverter::StartFunction(uint64_t stack) const {
  auto it = gen_->stacks.find(stack);
  if (it == gen_->stacks.end() || it->second.empty()) return "";
  return *gen_->String(gen_->frames.at(it->second.front()).func);
}

std::string GoConverter::OutermostFunction(uint64_t stack) const {
  auto it = gen_->stacks.find(stack);
  if (it == gen_->stacks.end()) return "";
  for (auto pc = it->second.rbegin(); pc != it->second.rend(); ++pc) {
    const std::string& func = *gen_->String(gen_->frames.at(*pc).func);
    if (func != "runtime.goexit") return func;
  }
  return "";
}

absl::Status GoConverter::Restate(uint64_t t0) {
  std::vector<uint64_t> ids;
  for (auto it = tracks_.begin(); it != tracks_.end();) {
    if (!it->second.live) {
      tracks_.erase(it++);
    } else {
      ids.push_back(it->first);
      ++it;
    }
  }
  std::sort(ids.begin(), ids.end());
  for (uint64_t id : ids) {
    Track& t = tracks_[id];
    // The records restating the thread go just before the generation's first event when
    // there is room since the thread's last record, so that no event's time moves.
    const uint64_t records =
        1 + t.slices.size() + (id == kGcThread ? tasks_.size() : 0) + (t.adopted != 0 ? 1 : 0);
    uint64_t at = std::max(t0 > records ? t0 - records : 0, t.start);
    if (id == kGcThread) {
      for (const auto& [task, state] : tasks_) at = std::max(at, state.begin);
    }
    if (absl::Status s = Emit(id, EventType::kThreadStatus, at, {enc_->String(t.name), t.start});
        !s.ok()) {
      return s;
    }
    const std::vector<OpenSlice> slices = t.slices;
    for (const OpenSlice& slice : slices) {
      if (absl::Status s = Emit(id, EventType::kRegionActive, at,
                                {enc_->InternSite(slice.site), 0, slice.enter});
          !s.ok()) {
        return s;
      }
    }
    if (t.adopted != 0) {
      if (absl::Status s = Emit(id, EventType::kTaskAdopted, at, {t.adopted}); !s.ok()) return s;
    }
    if (id != kGcThread) continue;
    std::vector<std::pair<uint64_t, const ActiveTask*>> active;
    for (const auto& [task, state] : tasks_) active.emplace_back(task, &state);
    std::sort(active.begin(), active.end());
    for (const auto& [task, state] : active) {
      if (absl::Status s = Emit(id, EventType::kTaskActive, at,
                                {enc_->InternSite(state->site), task, state->parent, state->begin});
          !s.ok()) {
        return s;
      }
    }
  }
  return absl::OkStatus();
}

absl::Status GoConverter::Generation(const GoGeneration& gen, const GoEventLog& events) {
  gen_ = &gen;
  gen_number_ = gen.gen;
  stacks_.clear();
  names_.clear();
  enc_ = std::make_unique<format::GenerationEncoder>(gen.gen);
  GoEvent e;
  uint64_t t0 = 0;
  if (GoEventLog::Cursor first(events, &gen); first.Next(&e)) t0 = static_cast<uint64_t>(e.time);
  if (!process_start_.has_value()) {
    process_start_ = t0;
    tracks_[kGcThread] = Track{"GC", t0};
    tracks_[kStwThread] = Track{"stop-the-world", t0};
  }
  // Names of goroutines first seen in this generation: the start function of those
  // created in it, else the outermost function of their first stack.
  for (GoEventLog::Cursor it(events, &gen); it.Next(&e);) {
    if (e.type == kEvGoCreate || e.type == kEvGoCreateBlocked) {
      names_.try_emplace(static_cast<int64_t>(e.args[0]), StartFunction(e.args[1]));
    } else if (e.type == kEvGoStatusStack) {
      std::string name = OutermostFunction(e.args[3]);
      if (!name.empty()) names_.try_emplace(static_cast<int64_t>(e.args[0]), std::move(name));
    } else if (e.g != kNoId && e.stack() != 0 && e.type != kEvCPUSample) {
      std::string name = OutermostFunction(e.stack());
      if (!name.empty()) names_.try_emplace(e.g, std::move(name));
    }
  }
  format::ClockSync sync;
  sync.freq = 1'000'000'000;
  sync.trace_time = t0;
  sync.mono_ns = t0;
  sync.wall_sec = t0 / 1'000'000'000;
  sync.wall_nsec = t0 % 1'000'000'000;
  enc_->SetClockSync(sync);
  if (absl::Status s = Restate(t0); !s.ok()) return s;
  for (GoEventLog::Cursor it(events, &gen); it.Next(&e);) {
    if (absl::Status s = Event(e); !s.ok()) {
      return absl::InternalError(absl::StrCat("generation ", gen.gen, ": ", e.spec().name, " at ",
                                              e.time, " ns: cannot encode: ", s.message()));
    }
  }
  if (absl::Status s = SettleAll(); !s.ok()) return s;
  format::ProcessInfo info;
  info.sid = options_.sid;
  info.pid = 0;
  info.start_time = *process_start_;
  info.name = "go";
  enc_->SetProcessInfo(info);
  return enc_->Finish(&out_, options_.compress);
}

absl::Status GoConverter::Event(const GoEvent& e) {
  const uint64_t time = static_cast<uint64_t>(e.time);
  Track* self = nullptr;
  auto current = [&]() -> Track* {
    if (self == nullptr && e.g != kNoId) self = Goroutine(e.g, time);
    return self;
  };
  const uint64_t g = static_cast<uint64_t>(e.g);
  switch (e.type) {
    case kEvGoCreate:
    case kEvGoCreateBlocked:
    case kEvGoCreateSyscall: {
      const uint64_t id = e.args[0];
      if (tracks_.contains(id)) return absl::OkStatus();
      const bool flow = e.type != kEvGoCreateSyscall && current() != nullptr;
      Track& t = tracks_[id];
      auto name = names_.find(static_cast<int64_t>(id));
      t.name = name != names_.end() && !name->second.empty() ? name->second
                                                             : absl::StrCat("goroutine ", id);
      t.start = time;
      if (absl::Status s =
              Emit(id, EventType::kThreadStart, time,
                   {enc_->InternSite(MakeSite("go.goroutine", "start")), enc_->String(t.name)});
          !s.ok()) {
        return s;
      }
      if (e.type == kEvGoCreateSyscall) {
        return Open(id, &tracks_[id], Slice::kSyscall, MakeSite("go.syscall", "syscall"), time);
      }
      return flow ? CreationFlow(g, id, time) : absl::OkStatus();
    }
    case kEvGoDestroy:
    case kEvGoDestroySyscall:
      if (current() == nullptr) return absl::OkStatus();
      self->slices.clear();
      self->live = false;
      self->adopted = 0;  // a thread that exits works for no task
      self->release_pending = false;
      return Emit(g, EventType::kThreadExit, time,
                  {enc_->InternSite(MakeSite("go.goroutine", "end"))});
    case kEvGoBlock: {
      if (current() == nullptr) return absl::OkStatus();
      absl::string_view reason = e.StringArg(0);
      return Open(g, self, Slice::kBlock, MakeSite("go.block", reason.empty() ? "blocked" : reason),
                  time);
    }
    case kEvGoUnblock: {
      auto it = tracks_.find(e.args[0]);
      if (it == tracks_.end() || !it->second.live) return absl::OkStatus();
      if (it->second.touched_gen != gen_number_) return absl::OkStatus();  // not restated
      return Close(e.args[0], &it->second, Slice::kBlock, std::nullopt, time);
    }
    case kEvGoStart: {
      Track* t = Goroutine(static_cast<int64_t>(e.args[0]), time);
      if (t != nullptr) return Close(e.args[0], t, Slice::kBlock, std::nullopt, time);
      return absl::OkStatus();
    }
    case kEvGoStatus:
    case kEvGoStatusStack: {
      Track* t = Goroutine(static_cast<int64_t>(e.args[0]), time);
      if (t == nullptr) return absl::OkStatus();
      if (e.args[2] == kGoWaiting && !HasOpen(*t, Slice::kBlock)) {
        return Open(e.args[0], t, Slice::kBlock, MakeSite("go.block", "waiting"), time);
      }
      if (e.args[2] == kGoSyscall && !HasOpen(*t, Slice::kSyscall)) {
        return Open(e.args[0], t, Slice::kSyscall, MakeSite("go.syscall", "syscall"), time);
      }
      return absl::OkStatus();
    }
    case kEvGoSyscallBegin:
      if (current() == nullptr) return absl::OkStatus();
      return Open(g, self, Slice::kSyscall, MakeSite("go.syscall", "syscall"), time);
    case kEvGoSyscallEnd:
    case kEvGoSyscallEndBlocked:
      if (current() == nullptr) return absl::OkStatus();
      return Close(g, self, Slice::kSyscall, std::nullopt, time);
    case kEvUserTaskBegin: {
      const uint64_t task = e.args[0];
      if (task == 0 || current() == nullptr || tasks_.contains(task)) return absl::OkStatus();
      uint64_t parent = e.args[1] == kNoTask || e.args[1] == task ? 0 : e.args[1];
      ActiveTask& t = tasks_[task];
      t.site = MakeSite("go.task", e.StringArg(2));
      t.parent = parent;
      t.begin = time;
      return Emit(g, EventType::kTaskBegin, time, {enc_->InternSite(t.site), task, parent});
    }
    case kEvUserTaskEnd: {
      const uint64_t task = e.args[0];
      if (task == 0 || current() == nullptr) return absl::OkStatus();
      tasks_.erase(task);
      return Emit(g, EventType::kTaskEnd, time,
                  {enc_->InternSite(MakeSite("go.task", e.extra_string)), task});
    }
    case kEvUserRegionBegin:
      if (current() == nullptr) return absl::OkStatus();
      if (absl::Status s = Adopt(g, e.args[0], time); !s.ok()) return s;
      return Open(g, self, Slice::kRegion, MakeSite("go.region", e.StringArg(1)), time);
    case kEvUserRegionEnd: {
      if (current() == nullptr) return absl::OkStatus();
      if (absl::Status s = Close(g, self, Slice::kRegion, e.StringArg(1), time); !s.ok()) return s;
      self->release_pending = self->adopted != 0 && !HasOpen(*self, Slice::kRegion);
      return absl::OkStatus();
    }
    case kEvUserLog: {
      if (current() == nullptr) return absl::OkStatus();
      if (absl::Status s = Adopt(g, e.args[0], time); !s.ok()) return s;
      const absl::string_view category = e.StringArg(1);
      if (absl::Status s = Data(g, MakeSite("go.log", category.empty() ? "log" : category),
                                e.StringArg(2), time);
          !s.ok()) {
        return s;
      }
      self->release_pending = self->adopted != 0 && !HasOpen(*self, Slice::kRegion);
      return absl::OkStatus();
    }
    case kEvGCBegin:
    case kEvGCActive: {
      Track& gc = tracks_[kGcThread];
      if (HasOpen(gc, Slice::kGc)) return absl::OkStatus();
      return Open(kGcThread, &gc, Slice::kGc, MakeSite("go.gc", "GC concurrent mark phase"), time);
    }
    case kEvGCEnd:
      return Close(kGcThread, &tracks_[kGcThread], Slice::kGc, std::nullopt, time);
    case kEvSTWBegin: {
      Track& stw = tracks_[kStwThread];
      if (HasOpen(stw, Slice::kStw)) return absl::OkStatus();
      return Open(kStwThread, &stw, Slice::kStw,
                  MakeSite("go.gc", absl::StrCat("stop-the-world (", e.StringArg(0), ")")), time);
    }
    case kEvSTWEnd:
      return Close(kStwThread, &tracks_[kStwThread], Slice::kStw, std::nullopt, time);
    case kEvGCMarkAssistBegin:
    case kEvGCMarkAssistActive: {
      const int64_t id = e.type == kEvGCMarkAssistActive ? static_cast<int64_t>(e.args[0]) : e.g;
      Track* t = id == kNoId ? nullptr : Goroutine(id, time);
      if (t == nullptr || HasOpen(*t, Slice::kAssist)) return absl::OkStatus();
      return Open(static_cast<uint64_t>(id), t, Slice::kAssist, MakeSite("go.gc", "GC mark assist"),
                  time);
    }
    case kEvGCMarkAssistEnd:
      if (current() == nullptr) return absl::OkStatus();
      return Close(g, self, Slice::kAssist, std::nullopt, time);
    case kEvHeapAlloc:
    case kEvHeapGoal:
    case kEvProcsChange: {
      const bool heap = e.type != kEvProcsChange;
      const format::Site site = MakeSite("go.runtime", e.type == kEvHeapAlloc ? "heap size"
                                                       : heap                 ? "heap goal"
                                                                              : "GOMAXPROCS");
      const int64_t value = static_cast<int64_t>(std::min<uint64_t>(e.args[0], INT64_MAX));
      return Emit(
          kGcThread, EventType::kGauge, time,
          {enc_->InternSite(site), format::ZigzagEncode(value), heap ? enc_->String("bytes") : 0});
    }
    case kEvCPUSample: {
      const uint64_t stack = Stack(e.args[0]);
      if (stack == 0) return absl::OkStatus();
      uint64_t thread = kGcThread;
      if (e.g != kNoId) {
        auto it = tracks_.find(g);
        if (it != tracks_.end() && it->second.live && it->second.touched_gen == gen_number_) {
          thread = g;
        }
      }
      return Emit(thread, EventType::kCpuSample, time, {stack, 1});
    }
    default:  // Ps, labels, sweeps, preemption, experimental events, Sync: not shown
      return absl::OkStatus();
  }
}

GoImporter::GoImporter() = default;
GoImporter::~GoImporter() = default;

absl::StatusOr<std::unique_ptr<GoImporter>> GoImporter::Open(
    std::unique_ptr<reader::ByteSource> source, const GoImportOptions& options) {
  GoReaderOptions reader_options;
  reader_options.salvage = options.salvage;
  return Make(GoTraceReader::Open(std::move(source), reader_options), options);
}

absl::StatusOr<std::unique_ptr<GoImporter>> GoImporter::Open(std::string data,
                                                             const GoImportOptions& options) {
  GoReaderOptions reader_options;
  reader_options.salvage = options.salvage;
  return Make(GoTraceReader::Open(std::move(data), reader_options), options);
}

absl::StatusOr<std::unique_ptr<GoImporter>> GoImporter::Make(
    absl::StatusOr<std::unique_ptr<GoTraceReader>> reader, const GoImportOptions& options) {
  if (!reader.ok()) return reader.status();
  std::unique_ptr<GoImporter> importer(new GoImporter());
  importer->reader_ = std::move(*reader);
  importer->converter_ = std::make_unique<GoConverter>(options);
  return importer;
}

absl::StatusOr<bool> GoImporter::Next(std::string* out) {
  if (done_) return false;
  absl::StatusOr<bool> more = reader_->NextGeneration(&events_);
  if (!more.ok()) {
    done_ = true;
    return more.status();
  }
  if (!*more) {
    done_ = true;
    const size_t before = out->size();
    converter_->TakeOutput(out);  // the file header, if no generation came
    return out->size() > before;
  }
  go_events_ += events_.size();
  ++generations_;
  if (absl::Status s = converter_->Generation(reader_->generation(), events_); !s.ok()) {
    done_ = true;
    return s;
  }
  peak_buffered_ = std::max<uint64_t>(
      peak_buffered_, reader_->peak_buffered() + events_.bytes() + converter_->output_bytes());
  converter_->TakeOutput(out);
  return true;
}

const std::vector<std::string>& GoImporter::damage() const { return reader_->damage(); }
uint64_t GoImporter::largest_generation() const { return reader_->largest_generation(); }

absl::StatusOr<GoImportResult> ImportGoTrace(std::string data, const GoImportOptions& options) {
  absl::StatusOr<std::unique_ptr<GoImporter>> importer = GoImporter::Open(std::move(data), options);
  if (!importer.ok()) return importer.status();
  GoImportResult result;
  while (true) {
    absl::StatusOr<bool> more = (*importer)->Next(&result.trace);
    if (!more.ok()) return more.status();
    if (!*more) break;
  }
  result.go_events = (*importer)->go_events();
  result.generations = (*importer)->generations();
  result.damage = (*importer)->damage();
  result.peak_buffered = (*importer)->peak_buffered();
  result.largest_generation = (*importer)->largest_generation();
  if (absl::Status s = tools::CheckImportedTrace(result.trace, "imported Go trace"); !s.ok())
    return s;
  return result;
}

}  // namespace tracewire::go_trace
