// Event meaning off the hot path: what each record means for the thread and process state
// and for the event it surfaces. The Trace2 rows off the hot path (ProcessOther) copy their
// arguments through the field bindings (reader/event_fields.h), unwind the thread's regions
// where the EventSpec table says so, and run their row's semantics (process start, child
// and exec bookkeeping, thread start and exit); the re-statement records, stack references
// and experimental events (ProcessSlow); the end of a re-statement, of a thread's stream
// and of the generation.
#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_format.h"
#include "format/event_spec.h"
#include "format/varint.h"
#include "reader/event_fields.h"
#include "reader/event_meaning-inl.h"
#include "reader/generation_decoder.h"

namespace tracewire::reader {

using event_meaning_internal::kMaxRegionDepth;
using event_meaning_internal::T;
using format::EventType;

absl::Status GenerationDecoder::EndRestatement(Cursor& c) {
  c.restating = false;
  const ThreadState& ts = *c.ts;
  if (log_ != nullptr) {
    SpeculationLog::Entry entry{SpeculationLog::Op::kRestated, c.thread_id};
    entry.regions = ts.regions;
    entry.adopted_task = ts.adopted_task;
    log_->AddEntry(std::move(entry));
  }
  if (ts.carried_adopted.has_value() && *ts.carried_adopted != ts.adopted_task) {
    return HeadError(c, absl::StrFormat("the re-statement names task %d as the thread's adopted "
                                        "task, but it had adopted task %d at the end of the "
                                        "previous generation",
                                        ts.adopted_task, *ts.carried_adopted));
  }
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
      it->second->carried_adopted = it->second->adopted_task;
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

void GenerationDecoder::LogThread(const Cursor& c) {
  SpeculationLog::Entry entry{SpeculationLog::Op::kThread, c.thread_id};
  entry.has_records = c.has_head;
  if (c.has_head) {
    // A leading thread_status overwrites the start time and regions (and the name if it
    // gives one) before anything reads them.
    const bool restated = c.head_type == T(EventType::kThreadStatus);
    entry.default_name = !restated || c.head_args[1] == 0;
    entry.default_times = !restated;
    // thread_status and thread_start state the tid (version 4 on) before anything reads it.
    entry.default_tid = (!restated && c.head_type != T(EventType::kThreadStart)) || HeadTid(c) == 0;
    if (entry.default_name) entry.name = c.ts->name;
    entry.start_time = c.ts->start_time;
  }
  log_->AddEntry(std::move(entry));
}

GenerationDecoder::Outcome GenerationDecoder::SiteError(const Cursor& c) {
  return Fail(HeadError(c, absl::StrFormat("%s: site ID %d is not in the site table",
                                           specs_[c.head_type]->name, c.head_args[1])));
}

bool GenerationDecoder::CheckStrings(const Cursor& c, const TypeInfo& info) {
  const uint64_t* a = c.head_args;
  for (int i = 0; i < info.nstrings; ++i) {
    const uint8_t index = info.strings[i];
    if (a[index] != 0 && tables_.FindString(a[index]) == nullptr) {
      const format::EventSpec* spec = specs_[c.head_type];
      return FailFalse(HeadError(c, absl::StrFormat("%s: %s %d is not in the string table",
                                                    spec->name, spec->args[index].name, a[index])));
    }
  }
  return true;
}

// What the decoder does with a row off the hot path: its field bindings compiled against
// its arguments (reader/event_fields.h), whether it unwinds the thread's regions, and its
// semantics (nullptr: none beyond the fields).
struct GenerationDecoder::RowMeaning {
  struct FieldCopy {
    uint8_t arg;
    FieldConversion conversion;
    EventMember member;
  };
  bool known = false;  // the reader has bindings for the row
  bool unwinds_regions = false;
  std::vector<FieldCopy> copies;
  Outcome (GenerationDecoder::*semantics)(Cursor& c) = nullptr;
};

const GenerationDecoder::RowMeaning* GenerationDecoder::RowMeanings() {
  static const RowMeaning* const meanings = [] {
    auto* rows = new RowMeaning[256];
    for (const format::EventSpec& spec : format::AllSpecs()) {
      const std::vector<FieldBinding>* bindings = FieldBindings(spec.type);
      if (bindings == nullptr) continue;
      RowMeaning& row = rows[static_cast<uint8_t>(spec.type)];
      row.known = true;
      row.unwinds_regions = spec.unwinds_regions;
      for (const FieldBinding& binding : *bindings) {
        if (binding.arg.empty()) continue;  // set by the semantics
        const int arg = spec.ArgIndex(binding.arg);
        // The bindings are checked against the table by tests/reader:event_fields_test.
        assert(arg >= 0);
        if (arg < 0) continue;
        const FieldConversion conversion = ConversionOf(spec.args[arg].type, binding.member);
        assert(conversion != FieldConversion::kNone);
        if (conversion == FieldConversion::kNone) continue;
        row.copies.push_back({static_cast<uint8_t>(arg), conversion, binding.member});
      }
    }
    const auto set = [rows](EventType type, Outcome (GenerationDecoder::*semantics)(Cursor&)) {
      rows[static_cast<uint8_t>(type)].semantics = semantics;
    };
    set(EventType::kVersion, &GenerationDecoder::ProcessStarts);
    set(EventType::kStart, &GenerationDecoder::ProcessStarts);
    set(EventType::kChildStart, &GenerationDecoder::ChildStarts);
    set(EventType::kChildExit, &GenerationDecoder::ChildEnds);
    set(EventType::kChildReady, &GenerationDecoder::ChildEnds);
    set(EventType::kExec, &GenerationDecoder::ExecStarts);
    set(EventType::kExecResult, &GenerationDecoder::ExecEnds);
    set(EventType::kThreadStart, &GenerationDecoder::ThreadStarts);
    set(EventType::kThreadExit, &GenerationDecoder::ThreadExits);
    set(EventType::kTaskBegin, &GenerationDecoder::TaskBegins);
    set(EventType::kTaskEnd, &GenerationDecoder::TaskEnds);
    set(EventType::kTaskAdopt, &GenerationDecoder::TaskAdopts);
    set(EventType::kTaskRelease, &GenerationDecoder::TaskReleases);
    return rows;
  }();
  return meanings;
}

bool GenerationDecoder::CopyFields(const Cursor& c, const RowMeaning& meaning) {
  const uint64_t* a = c.head_args;
  Event& e = event_;
  for (const RowMeaning::FieldCopy& copy : meaning.copies) {
    const uint64_t value = a[copy.arg];
    const EventMember& m = copy.member;
    switch (copy.conversion) {
      case FieldConversion::kString:
        e.*(*std::get_if<absl::string_view Event::*>(&m)) = Str(value);
        break;
      case FieldConversion::kOptString:
        SetOptStr(&(e.*(*std::get_if<std::optional<absl::string_view> Event::*>(&m))), value);
        break;
      case FieldConversion::kStringList:
        if (absl::Status s = SplitList(
                c, value, &(e.*(*std::get_if<std::vector<absl::string_view> Event::*>(&m))));
            !s.ok()) {
          return FailFalse(std::move(s));
        }
        break;
      case FieldConversion::kZigzag:
        e.*(*std::get_if<int64_t Event::*>(&m)) = format::ZigzagDecode(value);
        break;
      case FieldConversion::kUint:
        e.*(*std::get_if<uint64_t Event::*>(&m)) = value;
        break;
      case FieldConversion::kUintToOptInt:
        e.*(*std::get_if<std::optional<int64_t> Event::*>(&m)) = static_cast<int64_t>(value);
        break;
      case FieldConversion::kSeconds:
        e.*(*std::get_if<double Event::*>(&m)) = Seconds(value);
        break;
      case FieldConversion::kOptSeconds:
        e.*(*std::get_if<std::optional<double> Event::*>(&m)) = Seconds(value);
        break;
      case FieldConversion::kNone:
        break;
    }
  }
  return true;
}

// The rows of ProcessTrace2 that are not on the hot path; the common and site fields are
// set. Unwinding, then the fields, then the row's semantics.
GenerationDecoder::Outcome GenerationDecoder::ProcessOther(Cursor& c) {
  const RowMeaning& meaning = RowMeanings()[c.head_type];
  if (!meaning.known) {
    return Fail(HeadError(
        c, absl::StrFormat("%s may not appear in an event batch", specs_[c.head_type]->name)));
  }
  ThreadState& ts = *c.ts;
  if (meaning.unwinds_regions) ts.regions.clear();
  if (!CopyFields(c, meaning)) return kError;
  if (meaning.semantics != nullptr) {
    if (const Outcome outcome = (this->*meaning.semantics)(c); outcome != kEvent) return outcome;
  }
  event_.nesting = 1 + static_cast<int>(ts.regions.size());
  return kEvent;
}

// version, start: the process's start was seen.
GenerationDecoder::Outcome GenerationDecoder::ProcessStarts(Cursor& c) {
  state_->saw_process_start = true;
  if (log_ != nullptr) log_->Add(SpeculationLog::Op::kProcessStart, 0);
  return kEvent;
}

// child_start: child_id, class_string, hook_string, cd_string, flags, argv_strlist.
GenerationDecoder::Outcome GenerationDecoder::ChildStarts(Cursor& c) {
  const uint64_t* a = c.head_args;
  Event& e = event_;
  // As git's targets do: "hook" when there is a hook name, else the class string, else
  // "?" (docs/format.md §13).
  e.child_class = a[4] != 0 ? "hook" : a[3] != 0 ? Str(a[3]) : "?";
  e.use_shell = (a[6] & format::kChildFlagUseShell) != 0;
  e.is_git_command = (a[6] & format::kChildFlagGitCommand) != 0;
  if (!state_->StartChild(a[2])) {
    return Fail(HeadError(c, absl::StrFormat("child_start for child_id %d, which is already "
                                             "running",
                                             a[2])));
  }
  if (log_ != nullptr) log_->Add(SpeculationLog::Op::kChildStart, a[2]);
  return kEvent;
}

// child_exit, child_ready: child_id, pid, code or ready, elapsed.
GenerationDecoder::Outcome GenerationDecoder::ChildEnds(Cursor& c) {
  const uint8_t type = c.head_type;
  const uint64_t* a = c.head_args;
  Event& e = event_;
  const bool exit = type == T(EventType::kChildExit);  // child_exit's code is a bound field
  if (!exit) {
    if (a[4] == format::kChildReadyReady) {
      e.ready = "ready";
    } else if (a[4] == format::kChildReadyTimeout) {
      e.ready = "timeout";
    } else if (a[4] == format::kChildReadyError) {
      e.ready = "error";
    } else {
      return Fail(HeadError(c, absl::StrFormat("child_ready has an unknown ready value %d", a[4])));
    }
  }
  if (!(exit ? state_->EndChild(a[2]) : state_->ChildReady(a[2]))) {
    return Fail(HeadError(c, absl::StrFormat("%s for child_id %d, which has no child_start in "
                                             "this process",
                                             specs_[type]->name, a[2])));
  }
  if (log_ != nullptr) {
    log_->Add(exit ? SpeculationLog::Op::kChildEnd : SpeculationLog::Op::kChildReady, a[2]);
  }
  return kEvent;
}

// exec: exec_id, exe_string, argv_strlist.
GenerationDecoder::Outcome GenerationDecoder::ExecStarts(Cursor& c) {
  const uint64_t* a = c.head_args;
  if (!state_->StartExec(a[2])) {
    return Fail(
        HeadError(c, absl::StrFormat("exec for exec_id %d, which is already pending", a[2])));
  }
  if (log_ != nullptr) log_->Add(SpeculationLog::Op::kExecStart, a[2]);
  return kEvent;
}

// exec_result: exec_id, code.
GenerationDecoder::Outcome GenerationDecoder::ExecEnds(Cursor& c) {
  const uint64_t* a = c.head_args;
  if (!state_->EndExec(a[2])) {
    return Fail(HeadError(c, absl::StrFormat("exec_result for exec_id %d, which has no exec in "
                                             "this process",
                                             a[2])));
  }
  if (log_ != nullptr) log_->Add(SpeculationLog::Op::kExecEnd, a[2]);
  return kEvent;
}

// thread_start: name_string names the thread from here on.
GenerationDecoder::Outcome GenerationDecoder::ThreadStarts(Cursor& c) {
  ThreadState& ts = *c.ts;
  if (ts.started) {
    return Fail(HeadError(c, "thread_start for a thread that has already started"));
  }
  ts.started = true;
  if (log_ != nullptr) log_->Add(SpeculationLog::Op::kThreadStart, c.thread_id);
  if (c.head_args[2] != 0) ts.name = std::string(Str(c.head_args[2]));
  if (const uint64_t tid = HeadTid(c); tid > kMaxThreadId) {
    return Fail(HeadError(c, absl::StrFormat("thread_start tid %d is above the largest thread "
                                             "id %d",
                                             tid, kMaxThreadId)));
  } else if (tid != 0) {
    ts.tid = tid;
  }
  ts.start_time = c.time;
  event_.thread_name = ts.name;
  event_.thread_tid = ts.tid;
  return kEvent;
}

// thread_exit: t_rel is the thread's lifetime; nothing may follow on the thread.
GenerationDecoder::Outcome GenerationDecoder::ThreadExits(Cursor& c) {
  ThreadState& ts = *c.ts;
  event_.t_rel = SignedSeconds(ts.start_time, c.time);
  ts.exited = true;
  return kEvent;
}

// task_begin: task, parent.
GenerationDecoder::Outcome GenerationDecoder::TaskBegins(Cursor& c) {
  const uint64_t* a = c.head_args;
  if (a[2] == 0) return Fail(HeadError(c, "task_begin with task 0 (0 means no task)"));
  if (a[3] == a[2]) {
    return Fail(
        HeadError(c, absl::StrFormat("task_begin: task %d names itself as its parent", a[2])));
  }
  if (state_->open_tasks.size() >= kMaxActiveTasks) {
    return Fail(HeadError(c, absl::StrFormat("task_begin: more than %d tasks active in the "
                                             "process",
                                             kMaxActiveTasks)));
  }
  if (!state_->StartTask(a[2])) {
    return Fail(
        HeadError(c, absl::StrFormat("task_begin for task %d, which is already active", a[2])));
  }
  if (log_ != nullptr) log_->Add(SpeculationLog::Op::kTaskBegin, a[2]);
  return kEvent;
}

// task_end: task. Ending a task that is not active is allowed (it began before the input).
GenerationDecoder::Outcome GenerationDecoder::TaskEnds(Cursor& c) {
  const uint64_t task = c.head_args[2];
  if (task == 0) return Fail(HeadError(c, "task_end with task 0 (0 means no task)"));
  state_->EndTask(task);
  if (log_ != nullptr) log_->Add(SpeculationLog::Op::kTaskEnd, task);
  return kEvent;
}

// task_adopt: task; the thread works for it from here on.
GenerationDecoder::Outcome GenerationDecoder::TaskAdopts(Cursor& c) {
  const uint64_t task = c.head_args[2];
  if (task == 0) return Fail(HeadError(c, "task_adopt with task 0 (0 means no task)"));
  c.ts->adopted_task = task;
  event_.adopted_task = task;
  return kEvent;
}

// task_release: task, which must be the thread's adopted task.
GenerationDecoder::Outcome GenerationDecoder::TaskReleases(Cursor& c) {
  const uint64_t task = c.head_args[2];
  ThreadState& ts = *c.ts;
  if (ts.adopted_task == 0) {
    return Fail(HeadError(c, absl::StrFormat("task_release of task %d on a thread that has "
                                             "adopted no task",
                                             task)));
  }
  if (task != ts.adopted_task) {
    return Fail(HeadError(c, absl::StrFormat("task_release of task %d, but the thread works "
                                             "for task %d",
                                             task, ts.adopted_task)));
  }
  ts.adopted_task = 0;
  event_.adopted_task = 0;
  return kEvent;
}

// cpu_sample: stack, weight; cpu_samples_lost: count.
GenerationDecoder::Outcome GenerationDecoder::ProcessSample(Cursor& c) {
  const uint64_t* a = c.head_args;
  const bool is_sample = c.head_type == T(EventType::kCpuSample);
  absl::Span<const SymbolFrame> frames;
  // cpu_sample: dt, stack (never 0: a sample without a stack is not written), weight;
  // cpu_samples_lost: dt, count.
  if (is_sample && !tables_.FindStack(a[1], &frames)) {
    return Fail(
        HeadError(c, absl::StrFormat("cpu_sample stack ID %d is not in the stack table", a[1])));
  }
  // cpu_sample's weight (periods of CPU time it stands for) and cpu_samples_lost's count.
  const uint64_t count = is_sample ? a[2] : a[1];
  if (count == 0) {
    return Fail(HeadError(c, is_sample ? "cpu_sample weight is 0" : "cpu_samples_lost count is 0"));
  }
  // A sample is not the event a stack_ref attaches to: the pending stack waits for the
  // thread's next event.
  const bool pending = c.has_pending_stack;
  c.has_pending_stack = false;
  FillCommon(c, c.head_type, c.time);
  c.has_pending_stack = pending;
  Event& e = event_;
  e.kind = is_sample ? EventKind::kCpuSample : EventKind::kCpuSamplesLost;
  e.file = {};
  e.line = 0;
  e.repo.reset();
  e.category = {};
  e.label = {};
  // Inside every region open on the thread: a consumer tracking regions unwinds nothing.
  e.nesting = 1 + static_cast<int>(c.ts->regions.size());
  e.count = count;
  if (is_sample && fill_) {
    tables_.SymbolizeFrames();
    tables_.FindStack(a[1], &frames);  // symbolizing moved the frames
    if (pending) tables_.FindStack(c.pending_stack_id, &c.pending_stack);
  }
  e.stack = is_sample ? frames : absl::Span<const SymbolFrame>();
  return kEvent;
}

GenerationDecoder::Outcome GenerationDecoder::ProcessSlow(Cursor& c) {
  ThreadState& ts = *c.ts;
  const uint8_t type = c.head_type;
  const format::EventSpec* spec = specs_[c.head_type];
  const uint64_t* a = c.head_args;
  const uint64_t now = c.time;
  if (ABSL_PREDICT_FALSE(ts.exited)) {
    return Fail(HeadError(c, absl::StrFormat("%s after thread_exit: thread_exit must be the "
                                             "thread's last event",
                                             spec != nullptr ? spec->name : "experimental event")));
  }
  if (ABSL_PREDICT_FALSE(c.restating) && type != T(EventType::kRegionActive) &&
      type != T(EventType::kTaskActive) && type != T(EventType::kTaskAdopted)) {
    if (absl::Status s = EndRestatement(c); !s.ok()) return Fail(std::move(s));
  }

  // Records that only update the thread's state.
  switch (type) {
    case T(EventType::kThreadStatus): {
      // dt, name_string, start_time.
      if (c.records != 1) {
        return Fail(HeadError(c,
                              "thread_status must be the first record of the thread's stream in "
                              "a generation"));
      }
      if (a[1] != 0) {
        if (tables_.FindString(a[1]) == nullptr) {
          return Fail(HeadError(c, absl::StrFormat("thread_status name_string %d is not in the "
                                                   "string table",
                                                   a[1])));
        }
        ts.name = std::string(Str(a[1]));
      }
      if (a[2] > now) {
        return Fail(HeadError(c, absl::StrFormat("thread_status start_time %d is after the record "
                                                 "time %d",
                                                 a[2], now)));
      }
      if (const uint64_t tid = HeadTid(c); tid > kMaxThreadId) {
        return Fail(HeadError(c, absl::StrFormat("thread_status tid %d is above the largest "
                                                 "thread id %d",
                                                 tid, kMaxThreadId)));
      } else if (tid != 0) {
        ts.tid = tid;
      }
      ts.start_time = a[2];
      ts.regions.clear();
      ts.adopted_task = 0;
      c.restating = true;
      return kSkip;
    }
    case T(EventType::kRegionActive): {
      // dt, site, msg_string, enter_time.
      if (!c.restating) {
        return Fail(HeadError(c,
                              "region_active outside a re-statement: it must follow "
                              "thread_status or another region_active"));
      }
      if (tables_.FindSite(a[1]) == nullptr) {
        return Fail(HeadError(c, absl::StrFormat("site ID %d is not in the site table", a[1])));
      }
      if (a[2] != 0 && tables_.FindString(a[2]) == nullptr) {
        return Fail(
            HeadError(c, absl::StrFormat("msg_string %d is not in the string table", a[2])));
      }
      if (a[3] > now) {
        return Fail(HeadError(c, absl::StrFormat("region_active enter_time %d is after the record "
                                                 "time %d",
                                                 a[3], now)));
      }
      if (ts.regions.size() >= kMaxRegionDepth) return Fail(HeadError(c, "regions nest too deep"));
      ts.regions.push_back(a[3]);
      return kSkip;
    }
    case T(EventType::kTaskActive): {
      // dt, site, task, parent, begin_time.
      if (!c.restating) {
        return Fail(HeadError(c,
                              "task_active outside a re-statement: it must follow "
                              "thread_status, region_active or another task re-statement"));
      }
      if (tables_.FindSite(a[1]) == nullptr) {
        return Fail(HeadError(c, absl::StrFormat("site ID %d is not in the site table", a[1])));
      }
      if (a[2] == 0) return Fail(HeadError(c, "task_active with task 0 (0 means no task)"));
      if (a[4] > now) {
        return Fail(HeadError(c, absl::StrFormat("task_active begin_time %d is after the record "
                                                 "time %d",
                                                 a[4], now)));
      }
      if (!state_->RestateTask(a[2])) {
        return Fail(HeadError(c, absl::StrFormat("task_active: more than %d tasks active in the "
                                                 "process",
                                                 kMaxActiveTasks)));
      }
      if (log_ != nullptr) log_->Add(SpeculationLog::Op::kTaskActive, a[2]);
      return kSkip;
    }
    case T(EventType::kTaskAdopted): {
      // dt, task.
      if (!c.restating) {
        return Fail(HeadError(c,
                              "task_adopted outside a re-statement: it must follow "
                              "thread_status, region_active or task_active"));
      }
      if (a[1] == 0) return Fail(HeadError(c, "task_adopted with task 0 (0 means no task)"));
      ts.adopted_task = a[1];
      return kSkip;
    }
    case T(EventType::kStackRef): {
      // dt, stack.
      if (a[1] == 0) {
        c.has_pending_stack = false;
        return kSkip;
      }
      if (!tables_.FindStack(a[1], &c.pending_stack)) {
        return Fail(HeadError(c, absl::StrFormat("stack ID %d is not in the stack table", a[1])));
      }
      c.pending_stack_id = a[1];
      c.has_pending_stack = true;
      return kSkip;
    }
    case T(EventType::kCpuSample):
    case T(EventType::kCpuSamplesLost):
      return ProcessSample(c);
    default:
      break;
  }

  FillCommon(c, type, now);
  Event& e = event_;
  if (ABSL_PREDICT_FALSE(spec == nullptr || spec->experimental)) {
    e.kind = EventKind::kExperimental;
    e.file = {};
    e.line = 0;
    e.repo.reset();
    e.category = {};
    e.label = {};
    e.nesting = 1 + static_cast<int>(ts.regions.size());
    e.experimental_data = c.head_data;
    return kEvent;
  }

  const TypeInfo& info = types_[type];
  if (!info.trace2) {
    return Fail(HeadError(c, absl::StrFormat("%s may not appear in an event batch", spec->name)));
  }
  return ProcessTrace2(c, info, /*common_done=*/true);
}

}  // namespace tracewire::reader
