#include "tools/go_import/go_order.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tracewire::go_trace {
namespace {

enum Req : uint8_t { kMay, kMust, kMustNot };
struct Reqs {
  Req thread, proc, goroutine;
};
constexpr Reqs kUserGo = {kMust, kMust, kMust};

absl::Status Fail(const GoEvent& ev, absl::string_view what) {
  return absl::DataLossError(absl::StrCat(ev.spec().name, " at ", ev.time, " ns: ", what));
}

template <typename Ctx>
absl::Status Validate(const GoEvent& ev, const Ctx& c, Reqs r) {
  auto check = [&](Req req, int64_t id, absl::string_view name) -> absl::Status {
    if (req == kMust && id == kNoId)
      return Fail(ev, absl::StrCat("expected a ", name, " but had none"));
    if (req == kMustNot && id != kNoId) {
      return Fail(ev, absl::StrCat("expected no ", name, " but had ", id));
    }
    return absl::OkStatus();
  };
  if (absl::Status s = check(r.thread, c.m, "thread"); !s.ok()) return s;
  if (absl::Status s = check(r.proc, c.p, "proc"); !s.ok()) return s;
  return check(r.goroutine, c.g, "goroutine");
}

// The begin type of a range event (its own type for a begin).
uint8_t RangeBeginType(uint8_t type) {
  const uint8_t start = GoSpec(type).start_type;
  return start != kEvNone ? start : type;
}

}  // namespace

bool GoOrdering::RangeState::Has(const Range& r) const {
  return std::find(in_flight.begin(), in_flight.end(), r) != in_flight.end();
}

absl::Status GoOrdering::RangeState::Begin(const Range& r) {
  if (Has(r)) {
    return absl::DataLossError(
        absl::StrCat(GoSpec(r.type).name, " begins while the same range is in flight"));
  }
  in_flight.push_back(r);
  return absl::OkStatus();
}

absl::Status GoOrdering::RangeState::Active(const Range& r, bool initial_gen) {
  if (initial_gen) {
    if (Has(r)) {
      return absl::DataLossError(
          absl::StrCat(GoSpec(r.type).name, " restated twice in the first generation"));
    }
    in_flight.push_back(r);
  } else if (!Has(r)) {
    return absl::DataLossError(
        absl::StrCat("a restated ", GoSpec(r.type).name, " range was not in flight"));
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> GoOrdering::RangeState::End(uint8_t end_type) {
  const uint8_t start = GoSpec(end_type).start_type;
  for (size_t i = 0; i < in_flight.size(); ++i) {
    if (in_flight[i].type != start) continue;
    const uint64_t desc = in_flight[i].desc;
    in_flight[i] = in_flight.back();
    in_flight.pop_back();
    return desc;
  }
  return absl::DataLossError(
      absl::StrCat(GoSpec(end_type).name, " ends a ", GoSpec(start).name, " not in flight"));
}

void GoOrdering::Push(const GoEvent& ev, const Ctx& ctx, GoGeneration* gen) {
  GoEvent& e = queue_.emplace_back(ev);
  e.m = ctx.m;
  e.p = ctx.p;
  e.g = ctx.g;
  e.table = gen;
}

bool GoOrdering::Next(GoEvent* out) {
  if (queue_.empty()) return false;
  *out = std::move(queue_.front());
  queue_.pop_front();
  return true;
}

absl::StatusOr<bool> GoOrdering::Advance(GoEvent* ev, GoGeneration* gen, int64_t m) {
  if (initial_gen_ == 0) initial_gen_ = gen->gen;
  Ctx cur;
  cur.m = m;
  MState* ms = nullptr;
  if (m != kNoId) {
    ms = &m_states_[m];
    cur.p = ms->p;
    cur.g = ms->g;
  }
  Ctx next = cur;
  absl::StatusOr<bool> ok = Dispatch(ev, gen, gen->gen, cur, &next);
  if (ok.ok() && *ok && ms != nullptr) {
    ms = &m_states_[m];  // a handler may have added Ms
    ms->p = next.p;
    ms->g = next.g;
  }
  return ok;
}

absl::StatusOr<bool> GoOrdering::Dispatch(GoEvent* ev, GoGeneration* gen, uint64_t g, Ctx cur,
                                          Ctx* next) {
  switch (ev->type) {
    case kEvProcStart:
    case kEvProcStop:
    case kEvProcSteal:
    case kEvProcStatus:
      return ProcEvent(ev, gen, g, cur, next);
    case kEvGoStatus:
    case kEvGoStatusStack:
      return GoStatusEvent(ev, gen, g, cur, next);
    case kEvGoCreate:
    case kEvGoCreateBlocked:
    case kEvGoDestroy:
    case kEvGoStop:
    case kEvGoBlock:
    case kEvGoStart:
    case kEvGoUnblock:
    case kEvGoSwitch:
    case kEvGoSwitchDestroy:
      return GoroutineEvent(ev, gen, g, cur, next);
    case kEvGoSyscallBegin:
    case kEvGoSyscallEnd:
    case kEvGoSyscallEndBlocked:
    case kEvGoCreateSyscall:
    case kEvGoDestroySyscall:
      return SyscallEvent(ev, gen, g, cur, next);
    case kEvProcsChange:
    case kEvGoLabel:
    case kEvUserLog:
    case kEvUserTaskBegin:
    case kEvUserTaskEnd:
    case kEvUserRegionBegin:
    case kEvUserRegionEnd:
      return UserEvent(ev, gen, g, cur, next);
    case kEvGCActive:
    case kEvGCBegin:
    case kEvGCEnd:
    case kEvHeapAlloc:
    case kEvHeapGoal:
      return GcEvent(ev, gen, g, cur, next);
    case kEvSTWBegin:
    case kEvSTWEnd:
    case kEvGCSweepActive:
    case kEvGCSweepBegin:
    case kEvGCSweepEnd:
    case kEvGCMarkAssistActive:
    case kEvGCMarkAssistBegin:
    case kEvGCMarkAssistEnd:
      return RangeEvent(ev, gen, g, cur, next);
    default:
      if (ev->kind() == GoKind::kExperimental) {
        if (absl::Status s = Validate(*ev, cur, {kMust, kMay, kMay}); !s.ok()) return s;
        Push(*ev, cur, gen);
        return true;
      }
      return Fail(*ev, "not an event of an event batch");
  }
}

absl::StatusOr<bool> GoOrdering::ProcEvent(GoEvent* ev, GoGeneration* gen, uint64_t g, Ctx cur,
                                           Ctx* next) {
  const int64_t pid = static_cast<int64_t>(ev->args[0]);
  switch (ev->type) {
    case kEvProcStatus: {
      const uint64_t status = ev->args[1];
      if (status == kProcBad || status > kProcSyscallAbandoned) {
        return Fail(*ev, absl::StrFormat("invalid status %d for proc %d", status, pid));
      }
      ProcState old = ProcStateOfStatus(status);
      auto it = p_states_.find(pid);
      if (it != p_states_.end()) {
        PState& s = it->second;
        if (status == kProcSyscallAbandoned && s.status == kProcSyscall) {
          old = ProcState::kRunning;
          ev->args[1] = kProcSyscall;
        } else if (status == kProcSyscallAbandoned && s.status == kProcSyscallAbandoned) {
          old = ProcState::kIdle;
          ev->args[1] = kProcSyscallAbandoned;
        } else if (s.status != status) {
          return Fail(*ev, absl::StrFormat("inconsistent status for proc %d: old %d, new %d", pid,
                                           s.status, status));
        }
        s.seq = Seq{g, 0};
      } else {
        p_states_[pid] = PState{static_cast<uint8_t>(status), Seq{g, 0}, {}};
        old = g == initial_gen_ ? ProcState::kUndetermined : ProcState::kNotExist;
      }
      ev->extra[0] = static_cast<uint64_t>(old);
      if (status == kProcRunning || status == kProcSyscall) next->p = pid;
      if (status == kProcSyscallAbandoned && old == ProcState::kRunning) {
        bool found = false;
        for (const auto& [mid, state] : m_states_) {
          if (state.p == pid) {
            cur = Ctx{state.g, pid, mid};
            found = true;
          }
        }
        if (!found) return Fail(*ev, absl::StrFormat("no thread holds proc %d", pid));
      }
      Push(*ev, cur, gen);
      return true;
    }
    case kEvProcStart: {
      const Seq seq{g, ev->args[1]};
      auto it = p_states_.find(pid);
      if (it == p_states_.end() || it->second.status != kProcIdle ||
          !seq.Succeeds(it->second.seq) || cur.p != kNoId) {
        return false;
      }
      if (absl::Status s = Validate(*ev, cur, {kMust, kMustNot, kMay}); !s.ok()) return s;
      it->second.status = kProcRunning;
      it->second.seq = seq;
      next->p = pid;
      Push(*ev, cur, gen);
      return true;
    }
    case kEvProcStop: {
      auto it = p_states_.find(cur.p);
      if (it == p_states_.end()) return Fail(*ev, absl::StrCat("proc ", cur.p, " does not exist"));
      if (it->second.status != kProcRunning && it->second.status != kProcSyscall) {
        return Fail(*ev, "proc is not running or in a syscall");
      }
      if (absl::Status s = Validate(*ev, cur, {kMust, kMust, kMay}); !s.ok()) return s;
      it->second.status = kProcIdle;
      next->p = kNoId;
      Push(*ev, cur, gen);
      return true;
    }
    default: {  // kEvProcSteal
      const Seq seq{g, ev->args[1]};
      auto it = p_states_.find(pid);
      if (it == p_states_.end() ||
          (it->second.status != kProcSyscall && it->second.status != kProcSyscallAbandoned) ||
          !seq.Succeeds(it->second.seq)) {
        return false;
      }
      if (absl::Status s = Validate(*ev, cur, {kMust, kMay, kMay}); !s.ok()) return s;
      const uint8_t old = it->second.status;
      ev->extra[0] = old;
      it->second.status = kProcIdle;
      it->second.seq = seq;
      if (old == kProcSyscallAbandoned) {
        Push(*ev, cur, gen);
        return true;
      }
      const int64_t mid = static_cast<int64_t>(ev->args[2]);
      if (mid == cur.m) {
        if (cur.p != pid) {
          return Fail(*ev, absl::StrFormat("self-steal of proc %d by thread %d holding proc %d",
                                           pid, mid, cur.p));
        }
        next->p = kNoId;
        Push(*ev, cur, gen);
        return true;
      }
      auto m = m_states_.find(mid);
      if (m == m_states_.end()) {
        return Fail(*ev, absl::StrFormat("proc stolen from unknown thread %d", mid));
      }
      if (m->second.p != pid) {
        return Fail(*ev, absl::StrFormat("proc %d stolen from thread %d, which holds proc %d", pid,
                                         mid, m->second.p));
      }
      m->second.p = kNoId;
      Push(*ev, cur, gen);
      return true;
    }
  }
}

absl::StatusOr<bool> GoOrdering::GoStatusEvent(GoEvent* ev, GoGeneration* gen, uint64_t g, Ctx cur,
                                               Ctx* next) {
  const int64_t gid = static_cast<int64_t>(ev->args[0]);
  const int64_t mid = static_cast<int64_t>(ev->args[1]);
  const uint64_t status = ev->args[2];
  if (status == kGoBad || status > kGoWaiting) {
    return Fail(*ev, absl::StrFormat("invalid status %d for goroutine %d", status, gid));
  }
  GoState old = GoStateOfStatus(status);
  auto it = g_states_.find(gid);
  if (it != g_states_.end()) {
    if (it->second.status != status) {
      return Fail(*ev, absl::StrFormat("inconsistent status for goroutine %d: old %d, new %d", gid,
                                       it->second.status, status));
    }
    it->second.seq = Seq{g, 0};
  } else if (g == initial_gen_) {
    GState& s = g_states_[gid];
    s.status = static_cast<uint8_t>(status);
    s.seq = Seq{g, 0};
    old = GoState::kUndetermined;
  } else {
    return Fail(
        *ev, absl::StrFormat("status of goroutine %d, unknown, after the first generation", gid));
  }
  ev->extra[0] = static_cast<uint64_t>(old);
  if (status == kGoRunning) {
    next->g = gid;
  } else if (status == kGoSyscall) {
    if (mid == kNoId)
      return Fail(*ev, absl::StrFormat("goroutine %d in a syscall without a thread", gid));
    if (mid == cur.m) {
      if (g != initial_gen_ && cur.g != gid) {
        return Fail(*ev, absl::StrFormat("syscalling goroutine %d: its thread has goroutine %d",
                                         gid, cur.g));
      }
      next->g = gid;
    } else {
      auto m = m_states_.find(mid);
      if (m != m_states_.end()) {
        if (m->second.g != gid) {
          return Fail(*ev, absl::StrFormat("syscalling goroutine %d: thread %d has goroutine %d",
                                           gid, mid, m->second.g));
        }
        cur.g = m->second.g;
      } else {
        m_states_[mid] = MState{gid, kNoId};
      }
      cur.m = mid;
    }
  }
  Push(*ev, cur, gen);
  return true;
}

absl::StatusOr<bool> GoOrdering::GoroutineEvent(GoEvent* ev, GoGeneration* gen, uint64_t g, Ctx cur,
                                                Ctx* next) {
  switch (ev->type) {
    case kEvGoCreate:
    case kEvGoCreateBlocked: {
      if (absl::Status s = Validate(*ev, cur, {kMust, kMust, kMay}); !s.ok()) return s;
      auto self = g_states_.find(cur.g);
      if (self != g_states_.end() && self->second.status != kGoRunning) {
        return Fail(*ev, "the creating goroutine is not running");
      }
      const int64_t id = static_cast<int64_t>(ev->args[0]);
      if (g_states_.contains(id))
        return Fail(*ev, absl::StrCat("goroutine ", id, " exists already"));
      GState& s = g_states_[id];
      s.status = ev->type == kEvGoCreateBlocked ? kGoWaiting : kGoRunnable;
      s.seq = Seq{g, 0};
      Push(*ev, cur, gen);
      return true;
    }
    case kEvGoDestroy:
    case kEvGoStop:
    case kEvGoBlock: {
      if (absl::Status s = Validate(*ev, cur, kUserGo); !s.ok()) return s;
      auto it = g_states_.find(cur.g);
      if (it == g_states_.end())
        return Fail(*ev, absl::StrCat("goroutine ", cur.g, " does not exist"));
      if (it->second.status != kGoRunning) return Fail(*ev, "the goroutine is not running");
      if (ev->type == kEvGoDestroy) {
        g_states_.erase(it);
      } else {
        it->second.status = ev->type == kEvGoStop ? kGoRunnable : kGoWaiting;
      }
      next->g = kNoId;
      Push(*ev, cur, gen);
      return true;
    }
    case kEvGoStart: {
      const int64_t id = static_cast<int64_t>(ev->args[0]);
      const Seq seq{g, ev->args[1]};
      auto it = g_states_.find(id);
      if (it == g_states_.end() || it->second.status != kGoRunnable ||
          !seq.Succeeds(it->second.seq)) {
        return false;
      }
      if (absl::Status s = Validate(*ev, cur, {kMust, kMust, kMustNot}); !s.ok()) return s;
      it->second.status = kGoRunning;
      it->second.seq = seq;
      next->g = id;
      Push(*ev, cur, gen);
      return true;
    }
    case kEvGoUnblock: {
      const int64_t id = static_cast<int64_t>(ev->args[0]);
      const Seq seq{g, ev->args[1]};
      auto it = g_states_.find(id);
      if (it == g_states_.end() || it->second.status != kGoWaiting ||
          !seq.Succeeds(it->second.seq)) {
        return false;
      }
      it->second.status = kGoRunnable;
      it->second.seq = seq;
      Push(*ev, cur, gen);
      return true;
    }
    default: {  // GoSwitch, GoSwitchDestroy
      if (absl::Status s = Validate(*ev, cur, kUserGo); !s.ok()) return s;
      auto self = g_states_.find(cur.g);
      if (self == g_states_.end())
        return Fail(*ev, absl::StrCat("goroutine ", cur.g, " does not exist"));
      if (self->second.status != kGoRunning) return Fail(*ev, "the goroutine is not running");
      const int64_t id = static_cast<int64_t>(ev->args[0]);
      const Seq seq{g, ev->args[1]};
      auto it = g_states_.find(id);
      if (it == g_states_.end() || it->second.status != kGoWaiting ||
          !seq.Succeeds(it->second.seq)) {
        return false;
      }
      Push(*ev, cur, gen);
      GoEvent implied;
      implied.time = ev->time;
      if (ev->type == kEvGoSwitch) {
        self->second.status = kGoWaiting;
        implied.type = kEvGoBlock;  // no reason, no stack
      } else {
        g_states_.erase(self);
        implied.type = kEvGoDestroy;
      }
      Push(implied, cur, gen);
      it = g_states_.find(id);
      it->second.status = kGoRunning;
      it->second.seq = seq;
      next->g = id;
      GoEvent start;
      start.type = kEvGoStart;
      start.time = ev->time;
      start.args[0] = ev->args[0];
      start.args[1] = ev->args[1];
      Push(start, Ctx{kNoId, cur.p, cur.m}, gen);
      return true;
    }
  }
}

absl::StatusOr<bool> GoOrdering::SyscallEvent(GoEvent* ev, GoGeneration* gen, uint64_t g, Ctx cur,
                                              Ctx* next) {
  switch (ev->type) {
    case kEvGoSyscallBegin:
    case kEvGoSyscallEnd: {
      if (absl::Status s = Validate(*ev, cur, kUserGo); !s.ok()) return s;
      auto it = g_states_.find(cur.g);
      if (it == g_states_.end())
        return Fail(*ev, absl::StrCat("goroutine ", cur.g, " does not exist"));
      const bool begin = ev->type == kEvGoSyscallBegin;
      if (it->second.status != (begin ? kGoRunning : kGoSyscall)) {
        return Fail(*ev,
                    begin ? "the goroutine is not running" : "the goroutine is not in a syscall");
      }
      it->second.status = begin ? kGoSyscall : kGoRunning;
      auto p = p_states_.find(cur.p);
      if (p == p_states_.end()) return Fail(*ev, absl::StrCat("proc ", cur.p, " is unknown"));
      if (begin) {
        p->second.status = kProcSyscall;
        const Seq seq{g, ev->args[0]};
        if (!seq.Succeeds(p->second.seq)) {
          return Fail(*ev, absl::StrFormat("proc sequence %d does not follow %d", ev->args[0],
                                           p->second.seq.seq));
        }
        p->second.seq = seq;
      } else {
        if (p->second.status != kProcSyscall) return Fail(*ev, "the proc is not in a syscall");
        p->second.status = kProcRunning;
      }
      Push(*ev, cur, gen);
      return true;
    }
    case kEvGoSyscallEndBlocked: {
      if (cur.p != kNoId) {
        auto p = p_states_.find(cur.p);
        if (p == p_states_.end()) return Fail(*ev, absl::StrCat("proc ", cur.p, " is unknown"));
        if (p->second.status == kProcSyscall) return false;  // wait for the steal
      }
      if (absl::Status s = Validate(*ev, cur, {kMust, kMay, kMust}); !s.ok()) return s;
      auto it = g_states_.find(cur.g);
      if (it == g_states_.end())
        return Fail(*ev, absl::StrCat("goroutine ", cur.g, " does not exist"));
      if (it->second.status != kGoSyscall) return Fail(*ev, "the goroutine is not in a syscall");
      next->g = kNoId;
      it->second.status = kGoRunnable;
      Push(*ev, cur, gen);
      return true;
    }
    case kEvGoCreateSyscall: {
      if (absl::Status s = Validate(*ev, cur, {kMust, kMay, kMustNot}); !s.ok()) return s;
      const int64_t id = static_cast<int64_t>(ev->args[0]);
      if (g_states_.contains(id))
        return Fail(*ev, absl::StrCat("goroutine ", id, " exists already"));
      GState& s = g_states_[id];
      s.status = kGoSyscall;
      s.seq = Seq{g, 0};
      next->g = id;
      Push(*ev, cur, gen);
      return true;
    }
    default: {  // kEvGoDestroySyscall
      if (absl::Status s = Validate(*ev, cur, {kMust, kMay, kMust}); !s.ok()) return s;
      auto it = g_states_.find(cur.g);
      if (it == g_states_.end())
        return Fail(*ev, absl::StrCat("goroutine ", cur.g, " does not exist"));
      if (it->second.status != kGoSyscall) return Fail(*ev, "the goroutine is not in a syscall");
      g_states_.erase(it);
      next->g = kNoId;
      if (cur.p != kNoId) {
        auto p = p_states_.find(cur.p);
        if (p == p_states_.end()) return Fail(*ev, absl::StrCat("proc ", cur.p, " is unknown"));
        if (p->second.status != kProcSyscall) return Fail(*ev, "the proc is not in a syscall");
        p->second.status = kProcSyscallAbandoned;
        next->p = kNoId;
        GoEvent steal;
        steal.type = kEvProcSteal;
        steal.time = ev->time;
        steal.args[0] = static_cast<uint64_t>(cur.p);
        steal.extra[0] = kProcSyscall;
        Push(steal, cur, gen);
      }
      Push(*ev, cur, gen);
      return true;
    }
  }
}

absl::StatusOr<bool> GoOrdering::UserEvent(GoEvent* ev, GoGeneration* gen, uint64_t g, Ctx cur,
                                           Ctx* next) {
  switch (ev->type) {
    case kEvUserTaskBegin: {
      const uint64_t id = ev->args[0];
      if (active_tasks_.contains(id)) return Fail(*ev, absl::StrCat("task ID ", id, " is in use"));
      if (ev->args[1] == 0) ev->args[1] = kNoTask;  // the background task
      const std::string* name = gen->String(ev->args[2]);
      if (name == nullptr) return Fail(*ev, absl::StrCat("invalid string ID ", ev->args[2]));
      active_tasks_[id] = {*name, ev->args[1]};
      break;
    }
    case kEvUserTaskEnd: {
      auto it = active_tasks_.find(ev->args[0]);
      if (it != active_tasks_.end()) {
        ev->extra[0] = it->second.second;
        gen->extra_strings.push_back(std::move(it->second.first));
        active_tasks_.erase(it);
      } else {
        ev->extra[0] = kNoTask;
        gen->extra_strings.emplace_back();
      }
      ev->extra_string = gen->extra_strings.back();
      break;
    }
    case kEvUserRegionBegin:
    case kEvUserRegionEnd: {
      if (absl::Status s = Validate(*ev, cur, kUserGo); !s.ok()) return s;
      const std::string* name = gen->String(ev->args[1]);
      if (name == nullptr) return Fail(*ev, absl::StrCat("invalid string ID ", ev->args[1]));
      auto it = g_states_.find(cur.g);
      if (it == g_states_.end()) return Fail(*ev, absl::StrCat("goroutine ", cur.g, " is unknown"));
      auto& regions = it->second.regions;
      if (ev->type == kEvUserRegionBegin) {
        regions.emplace_back(ev->args[0], *name);
      } else if (!regions.empty()) {
        if (regions.back().first != ev->args[0] || regions.back().second != *name) {
          return Fail(
              *ev, absl::StrFormat("region \"%s\" ends inside region \"%s\" of goroutine %d", *name,
                                   regions.back().second, cur.g));
        }
        regions.pop_back();
      }
      Push(*ev, cur, gen);
      return true;
    }
    default:
      break;
  }
  if (absl::Status s = Validate(*ev, cur, kUserGo); !s.ok()) return s;
  Push(*ev, cur, gen);
  return true;
}

absl::StatusOr<bool> GoOrdering::GcEvent(GoEvent* ev, GoGeneration* gen, uint64_t g, Ctx cur,
                                         Ctx* next) {
  const uint64_t seq = ev->args[0];
  switch (ev->type) {
    case kEvGCActive:
      if (g == initial_gen_) {
        if (gc_ != Gc::kUndetermined)
          return Fail(*ev, "not the first GC event of the first generation");
        gc_seq_ = seq;
        gc_ = Gc::kRunning;
        Push(*ev, cur, gen);
        return true;
      }
      if (seq != gc_seq_ + 1) return false;
      if (gc_ != Gc::kRunning) return Fail(*ev, "the GC is not running");
      gc_seq_ = seq;
      break;
    case kEvGCBegin:
      if (gc_ == Gc::kUndetermined) {
        gc_seq_ = seq;
        gc_ = Gc::kRunning;
        Push(*ev, cur, gen);
        return true;
      }
      if (seq != gc_seq_ + 1) return false;
      if (gc_ == Gc::kRunning) return Fail(*ev, "the GC is already running");
      gc_seq_ = seq;
      gc_ = Gc::kRunning;
      break;
    case kEvGCEnd:
      if (seq != gc_seq_ + 1) return false;
      if (gc_ != Gc::kRunning) return Fail(*ev, "the GC is not running");
      gc_seq_ = seq;
      gc_ = Gc::kNotRunning;
      break;
    default:  // heap metrics
      if (absl::Status s = Validate(*ev, cur, {kMust, kMust, kMay}); !s.ok()) return s;
      Push(*ev, cur, gen);
      return true;
  }
  if (absl::Status s = Validate(*ev, cur, kUserGo); !s.ok()) return s;
  Push(*ev, cur, gen);
  return true;
}

absl::StatusOr<bool> GoOrdering::RangeEvent(GoEvent* ev, GoGeneration* gen, uint64_t g, Ctx cur,
                                            Ctx* next) {
  const bool initial = g == initial_gen_;
  switch (ev->type) {
    case kEvGCSweepBegin:
    case kEvGCSweepEnd: {
      if (absl::Status s = Validate(*ev, cur, {kMust, kMust, kMay}); !s.ok()) return s;
      PState& p = p_states_[cur.p];
      absl::Status s = ev->type == kEvGCSweepBegin ? p.ranges.Begin(Range{kEvGCSweepBegin, 0})
                                                   : p.ranges.End(ev->type).status();
      if (!s.ok()) return Fail(*ev, s.message());
      break;
    }
    case kEvGCSweepActive: {
      auto p = p_states_.find(static_cast<int64_t>(ev->args[0]));
      if (p == p_states_.end()) return Fail(*ev, absl::StrCat("proc ", ev->args[0], " is unknown"));
      if (absl::Status s = p->second.ranges.Active(Range{kEvGCSweepBegin, 0}, initial); !s.ok()) {
        return Fail(*ev, s.message());
      }
      break;
    }
    case kEvGCMarkAssistActive: {
      auto it = g_states_.find(static_cast<int64_t>(ev->args[0]));
      if (it == g_states_.end())
        return Fail(*ev, absl::StrCat("goroutine ", ev->args[0], " is unknown"));
      if (absl::Status s = it->second.ranges.Active(Range{kEvGCMarkAssistBegin, 0}, initial);
          !s.ok()) {
        return Fail(*ev, s.message());
      }
      break;
    }
    default: {  // STW and mark assist begin and end: ranges of the goroutine
      if (absl::Status s = Validate(*ev, cur, kUserGo); !s.ok()) return s;
      auto it = g_states_.find(cur.g);
      if (it == g_states_.end()) return Fail(*ev, absl::StrCat("goroutine ", cur.g, " is unknown"));
      if (ev->kind() == GoKind::kRangeBegin) {
        const uint64_t desc = ev->type == kEvSTWBegin ? ev->args[0] : 0;
        if (absl::Status s = it->second.ranges.Begin(Range{RangeBeginType(ev->type), desc});
            !s.ok()) {
          return Fail(*ev, s.message());
        }
      } else {
        absl::StatusOr<uint64_t> desc = it->second.ranges.End(ev->type);
        if (!desc.ok()) return Fail(*ev, desc.status().message());
        if (ev->type == kEvSTWEnd) ev->args[0] = *desc;
      }
      break;
    }
  }
  Push(*ev, cur, gen);
  return true;
}

}  // namespace tracewire::go_trace
