#include "reader/targets/chrome_target.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "reader/event.h"
#include "reader/sid_parts.h"
#include "reader/targets/json_check.h"
#include "reader/targets/json_writer.h"
#include "reader/targets/valid_utf8.h"

namespace tracewire::targets {
namespace {

using reader::Event;
using reader::EventKind;

constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();
// tids of the children tracks: above any thread number a real trace uses.
constexpr int64_t kLaneTidBase = 1000000000;
// Synthetic pids (for sids without a usable "-P<hex>") start above Linux's pid_max limit.
constexpr int64_t kSyntheticPidBase = int64_t{1} << 22;

// One timeline: a thread, or a children track.
struct Track {
  int64_t tid = 0;
  int64_t last_ns = kNoTime;  // ts of the last event written on it
  bool alive = false;         // its lifetime slice is open
  bool was_alive = false;     // its lifetime slice was opened once
  std::vector<int> regions;   // nesting of each open region slice, outermost first
};

struct Process {
  std::string sid;
  int64_t pid = 0;
  int depth = 0;
  std::string exe;      // basename of start's argv[0]
  std::string command;  // cmd_name
  std::string shown_name;
  int64_t last_ns = kNoTime;
  std::map<uint64_t, Track> threads;  // by thread number
  std::vector<Track> lanes;           // children tracks
  std::vector<bool> lane_busy;
  absl::flat_hash_map<uint64_t, int> child_lane;  // open child_id -> lane
};

absl::string_view Basename(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

class ChromeFormatter : public Formatter {
 public:
  void Write(const Event& e, std::string* out) override;
  void Finish(std::string* out) override;

 private:
  Process& ProcessOf(const Event& e, std::string* out);
  Track& ThreadOf(Process& p, const Event& e, std::string* out);
  Track& LaneFor(Process& p, uint64_t child_id, std::string* out);
  int64_t AssignPid(absl::string_view sid);
  void NameProcess(Process& p, std::string* out);

  // Nanoseconds of `t` since the output's time base (set by the first call).
  int64_t RelativeNs(absl::Time t);
  // The ts of the next event on `track`: `ns`, or 1 ns after its previous event.
  static int64_t Tick(Track& track, int64_t ns);

  // Starts one event object: separator, then name/cat (if `name` is set), ph, ts, pid, tid.
  void Begin(JsonWriter& jw, const char* ph, absl::string_view name, absl::string_view cat,
             const Process& p, const Track& t, int64_t ts, std::string* out);
  void Metadata(const char* what, const Process& p, int64_t tid, absl::string_view name,
                std::optional<int64_t> sort_index, std::string* out);
  void Str(JsonWriter& jw, absl::string_view key, absl::string_view value);
  void StrList(JsonWriter& jw, absl::string_view key, const std::vector<absl::string_view>& list,
               absl::string_view first = {});
  // Ends the innermost open slice of `t` (plain E event).
  void End(Process& p, Track& t, int64_t ns, std::string* out);
  // Closes the slices of a finished thread (regions, then the lifetime) at `ns`.
  void CloseThread(Process& p, Track& t, int64_t ns, std::string* out);
  void CloseLanes(Process& p, int64_t ns, std::string* out);
  void Instant(const Event& e, Process& p, Track& t, int64_t ns, std::string* out);
  void Counter(const Event& e, Process& p, Track& t, int64_t ns, std::string* out);

  bool first_ = true;
  bool have_base_ = false;
  absl::Time base_;
  std::vector<std::unique_ptr<Process>> processes_;  // in order of appearance
  absl::flat_hash_map<std::string, Process*> by_sid_;
  absl::flat_hash_set<int64_t> used_pids_;
  int64_t next_synthetic_pid_ = kSyntheticPidBase;
  Process* last_process_ = nullptr;
  std::string scratch_;
  std::string name_;
};

int64_t ChromeFormatter::RelativeNs(absl::Time t) {
  if (!have_base_) {
    const int64_t seconds = absl::ToUnixSeconds(t);
    const int64_t hour = seconds - (seconds % 3600 + 3600) % 3600;
    base_ = absl::FromUnixSeconds(hour - 3600);
    have_base_ = true;
  }
  return absl::ToInt64Nanoseconds(t - base_);
}

int64_t ChromeFormatter::Tick(Track& track, int64_t ns) {
  if (track.last_ns != kNoTime && ns <= track.last_ns) ns = track.last_ns + 1;
  track.last_ns = ns;
  return ns;
}

int64_t ChromeFormatter::AssignPid(absl::string_view sid) {
  std::optional<uint32_t> pid = reader::PidFromSidComponent(reader::SidLastComponent(sid));
  int64_t chosen;
  if (pid.has_value() && *pid != 0 && !used_pids_.contains(*pid)) {
    chosen = *pid;
  } else {
    while (used_pids_.contains(next_synthetic_pid_)) ++next_synthetic_pid_;
    chosen = next_synthetic_pid_++;
  }
  used_pids_.insert(chosen);
  return chosen;
}

void ChromeFormatter::Str(JsonWriter& jw, absl::string_view key, absl::string_view value) {
  jw.ObjectString(key, ValidUtf8(value, &scratch_));
}

void ChromeFormatter::StrList(JsonWriter& jw, absl::string_view key,
                              const std::vector<absl::string_view>& list, absl::string_view first) {
  jw.ObjectBeginArray(key);
  if (!first.empty()) jw.ArrayString(first);
  for (absl::string_view item : list) jw.ArrayString(ValidUtf8(item, &scratch_));
  jw.End();
}

void ChromeFormatter::Begin(JsonWriter& jw, const char* ph, absl::string_view name,
                            absl::string_view cat, const Process& p, const Track& t, int64_t ts,
                            std::string* out) {
  out->append(first_ ? "[\n" : ",\n");
  first_ = false;
  jw.BeginObject();
  if (!name.empty()) {
    Str(jw, "name", name);
    Str(jw, "cat", cat);
  }
  jw.ObjectString("ph", ph);
  // ts: microseconds with the nanoseconds as three decimals.
  std::string ts_text;
  if (ts < 0) {
    ts_text = "-";
    ts = -ts;
  }
  const int64_t frac = ts % 1000;
  absl::StrAppend(&ts_text, ts / 1000, ".", frac < 100 ? "0" : "", frac < 10 ? "0" : "", frac);
  jw.ObjectRawJson("ts", ts_text, false);
  jw.ObjectInt("pid", p.pid);
  jw.ObjectInt("tid", t.tid);
}

void ChromeFormatter::Metadata(const char* what, const Process& p, int64_t tid,
                               absl::string_view name, std::optional<int64_t> sort_index,
                               std::string* out) {
  out->append(first_ ? "[\n" : ",\n");
  first_ = false;
  JsonWriter jw(out);
  jw.BeginObject();
  jw.ObjectString("name", what);
  jw.ObjectString("ph", "M");
  jw.ObjectInt("pid", p.pid);
  jw.ObjectInt("tid", tid);
  jw.ObjectBeginObject("args");
  if (sort_index.has_value()) {
    jw.ObjectInt("sort_index", *sort_index);
  } else {
    Str(jw, "name", name);
  }
  jw.End();
  jw.End();
}

void ChromeFormatter::NameProcess(Process& p, std::string* out) {
  std::string name = p.exe.empty() && p.command.empty() ? "process" : p.exe;
  if (!p.command.empty()) absl::StrAppend(&name, name.empty() ? "" : " ", p.command);
  absl::StrAppend(&name, " (", p.sid, ")");
  if (name == p.shown_name) return;
  p.shown_name = name;
  Metadata("process_name", p, 0, name, std::nullopt, out);
}

Process& ChromeFormatter::ProcessOf(const Event& e, std::string* out) {
  if (last_process_ != nullptr && last_process_->sid == e.sid) return *last_process_;
  auto it = by_sid_.find(e.sid);
  if (it != by_sid_.end()) return *(last_process_ = it->second);
  auto process = std::make_unique<Process>();
  Process& p = *process;
  p.sid = std::string(e.sid);
  p.pid = AssignPid(e.sid);
  p.depth = e.depth;
  processes_.push_back(std::move(process));
  by_sid_.emplace(p.sid, &p);
  NameProcess(p, out);
  Metadata("process_sort_index", p, 0, {}, p.depth, out);
  return *(last_process_ = &p);
}

Track& ChromeFormatter::ThreadOf(Process& p, const Event& e, std::string* out) {
  auto [it, inserted] = p.threads.try_emplace(e.thread_id);
  Track& t = it->second;
  if (inserted) {
    t.tid = static_cast<int64_t>(e.thread_id & 0x7fffffffffffffff);
    Metadata("thread_name", p, t.tid, e.thread_name, std::nullopt, out);
    Metadata("thread_sort_index", p, t.tid, {}, t.tid, out);
  }
  return t;
}

Track& ChromeFormatter::LaneFor(Process& p, uint64_t child_id, std::string* out) {
  size_t lane = 0;
  while (lane < p.lane_busy.size() && p.lane_busy[lane]) ++lane;
  if (lane == p.lane_busy.size()) {
    p.lane_busy.push_back(false);
    Track track;
    track.tid = kLaneTidBase + static_cast<int64_t>(lane);
    p.lanes.push_back(track);
    Metadata("thread_name", p, track.tid,
             lane == 0 ? std::string("children") : absl::StrCat("children ", lane + 1),
             std::nullopt, out);
    Metadata("thread_sort_index", p, track.tid, {}, track.tid, out);
  }
  p.lane_busy[lane] = true;
  p.child_lane[child_id] = static_cast<int>(lane);
  return p.lanes[lane];
}

void ChromeFormatter::End(Process& p, Track& t, int64_t ns, std::string* out) {
  JsonWriter jw(out);
  Begin(jw, "E", {}, {}, p, t, Tick(t, ns), out);
  jw.End();
}

void ChromeFormatter::CloseThread(Process& p, Track& t, int64_t ns, std::string* out) {
  while (!t.regions.empty()) {
    End(p, t, ns, out);
    t.regions.pop_back();
  }
  if (t.alive) {
    End(p, t, ns, out);
    t.alive = false;
  }
}

void ChromeFormatter::CloseLanes(Process& p, int64_t ns, std::string* out) {
  for (size_t lane = 0; lane < p.lanes.size(); ++lane) {
    if (!p.lane_busy[lane]) continue;
    End(p, p.lanes[lane], ns, out);
    p.lane_busy[lane] = false;
  }
  p.child_lane.clear();
}

void ChromeFormatter::Counter(const Event& e, Process& p, Track& t, int64_t ns, std::string* out) {
  name_ = absl::StrCat(e.category, "/", e.label);
  if (e.kind == EventKind::kThTimer || e.kind == EventKind::kThCounter) {
    absl::StrAppend(&name_, " (", e.thread_name, ")");
  }
  const bool timer = e.kind == EventKind::kTimer || e.kind == EventKind::kThTimer;
  JsonWriter jw(out);
  Begin(jw, "C", name_, timer ? "timer" : "counter", p, t, Tick(t, ns), out);
  jw.ObjectBeginObject("args");
  if (timer) {
    jw.ObjectInt("intervals", static_cast<int64_t>(e.intervals));
    jw.ObjectDouble("t_total", 6, e.t_total);
    jw.ObjectDouble("t_min", 6, e.t_min);
    jw.ObjectDouble("t_max", 6, e.t_max);
  } else {
    jw.ObjectInt("count", static_cast<int64_t>(e.count));
  }
  jw.End();
  jw.End();
}

void ChromeFormatter::Instant(const Event& e, Process& p, Track& t, int64_t ns, std::string* out) {
  absl::string_view name = reader::EventKindName(e.kind);
  absl::string_view cat = "trace2";
  const char* scope = "t";
  switch (e.kind) {
    case EventKind::kData:
    case EventKind::kDataJson:
      name = e.label;
      cat = e.category;
      break;
    case EventKind::kPrintf:
      cat = "printf";
      break;
    case EventKind::kError:
      cat = "error";
      scope = "p";
      break;
    default:
      break;
  }
  JsonWriter jw(out);
  Begin(jw, "i", name.empty() ? reader::EventKindName(e.kind) : name, cat, p, t, Tick(t, ns), out);
  jw.ObjectString("s", scope);
  jw.ObjectBeginObject("args");
  switch (e.kind) {
    case EventKind::kVersion:
      Str(jw, "exe", e.exe);
      break;
    case EventKind::kStart:
      StrList(jw, "argv", e.argv);
      break;
    case EventKind::kExit:
    case EventKind::kAtexit:
      jw.ObjectInt("code", e.code);
      break;
    case EventKind::kSignal:
      jw.ObjectInt("signo", static_cast<int64_t>(e.signo));
      break;
    case EventKind::kError:
      if (e.msg.has_value()) Str(jw, "msg", *e.msg);
      if (e.fmt.has_value()) Str(jw, "fmt", *e.fmt);
      break;
    case EventKind::kPrintf:
      if (e.msg.has_value()) Str(jw, "msg", *e.msg);
      break;
    case EventKind::kCmdPath:
      Str(jw, "path", e.cmd_path);
      break;
    case EventKind::kCmdAncestry:
      StrList(jw, "ancestry", e.ancestry);
      break;
    case EventKind::kCmdName:
      Str(jw, "name", e.cmd_name);
      if (e.cmd_hierarchy.has_value()) Str(jw, "hierarchy", *e.cmd_hierarchy);
      break;
    case EventKind::kCmdMode:
      Str(jw, "name", e.cmd_mode);
      break;
    case EventKind::kAlias:
      Str(jw, "alias", e.alias);
      StrList(jw, "argv", e.argv);
      break;
    case EventKind::kChildReady:
      jw.ObjectInt("child_id", static_cast<int64_t>(e.child_id));
      jw.ObjectInt("pid", e.pid);
      Str(jw, "ready", e.ready);
      break;
    case EventKind::kExec:
      jw.ObjectInt("exec_id", static_cast<int64_t>(e.exec_id));
      if (e.exec_exe.has_value()) Str(jw, "exe", *e.exec_exe);
      StrList(jw, "argv", e.argv);
      break;
    case EventKind::kExecResult:
      jw.ObjectInt("exec_id", static_cast<int64_t>(e.exec_id));
      jw.ObjectInt("code", e.code);
      break;
    case EventKind::kDefParam:
      Str(jw, "scope", e.param_scope);
      Str(jw, "param", e.param);
      if (e.param_value.has_value()) Str(jw, "value", *e.param_value);
      break;
    case EventKind::kDefRepo:
      if (e.repo.has_value()) jw.ObjectInt("repo", *e.repo);
      Str(jw, "worktree", e.worktree);
      break;
    case EventKind::kData:
    case EventKind::kDataJson:
      if (e.value_kind == reader::ValueKind::kInt) {
        jw.ObjectInt("value", e.value_int);
      } else if (e.value_kind == reader::ValueKind::kJson && IsJsonText(e.value_string)) {
        jw.ObjectRawJson("value", e.value_string, false);
      } else {
        Str(jw, "value", e.value_string);
      }
      jw.ObjectInt("nesting", e.nesting);
      if (e.repo.has_value()) jw.ObjectInt("repo", *e.repo);
      break;
    case EventKind::kExperimental:
      jw.ObjectInt("wire_type", e.wire_type);
      jw.ObjectInt("bytes", static_cast<int64_t>(e.experimental_data.size()));
      break;
    default:
      break;
  }
  jw.End();
  jw.End();
}

void ChromeFormatter::Write(const Event& e, std::string* out) {
  Process& p = ProcessOf(e, out);
  Track& t = ThreadOf(p, e, out);
  const int64_t ns = RelativeNs(e.time);
  p.last_ns = std::max(p.last_ns, ns);

  if (!t.was_alive) {
    JsonWriter jw(out);
    Begin(jw, "B", e.thread_name, "thread", p, t, Tick(t, ns), out);
    jw.End();
    t.alive = t.was_alive = true;
  }

  // Follow the reader's region depth: close the slices of regions git unwound (and, for
  // region_leave, stop above the region being left).
  const int keep_below = e.nesting + (e.kind == EventKind::kRegionLeave ? 1 : 0);
  while (!t.regions.empty() && t.regions.back() >= keep_below) {
    End(p, t, ns, out);
    t.regions.pop_back();
  }

  switch (e.kind) {
    case EventKind::kRegionEnter: {
      JsonWriter jw(out);
      Begin(jw, "B", e.label.empty() ? absl::string_view("region") : e.label, e.category, p, t,
            Tick(t, ns), out);
      jw.ObjectBeginObject("args");
      if (e.msg.has_value()) Str(jw, "msg", *e.msg);
      if (e.repo.has_value()) jw.ObjectInt("repo", *e.repo);
      jw.ObjectInt("nesting", e.nesting);
      jw.End();
      jw.End();
      t.regions.push_back(e.nesting);
      return;
    }
    case EventKind::kRegionLeave: {
      // A leave whose enter came before the output started (a followed trace) has no slice.
      if (t.regions.empty() || t.regions.back() != e.nesting) return;
      JsonWriter jw(out);
      Begin(jw, "E", {}, {}, p, t, Tick(t, ns), out);
      if (e.msg.has_value()) {
        jw.ObjectBeginObject("args");
        Str(jw, "msg", *e.msg);
        jw.End();
      }
      jw.End();
      t.regions.pop_back();
      return;
    }
    case EventKind::kThreadStart:
      return;  // the lifetime slice began above
    case EventKind::kThreadExit:
      CloseThread(p, t, ns, out);
      return;
    case EventKind::kChildStart: {
      Track& lane = LaneFor(p, e.child_id, out);
      name_ = absl::StrCat(
          "child ", e.is_git_command
                        ? absl::string_view("git")
                        : (e.argv.empty() ? absl::string_view("?") : Basename(e.argv.front())));
      JsonWriter jw(out);
      Begin(jw, "B", name_, "child_process", p, lane, Tick(lane, ns), out);
      jw.ObjectBeginObject("args");
      jw.ObjectInt("child_id", static_cast<int64_t>(e.child_id));
      Str(jw, "class", e.child_class);
      if (e.hook_name.has_value()) Str(jw, "hook", *e.hook_name);
      if (e.cd.has_value()) Str(jw, "cd", *e.cd);
      jw.ObjectBool("use_shell", e.use_shell);
      StrList(jw, "argv", e.argv, e.is_git_command ? "git" : "");
      jw.End();
      jw.End();
      return;
    }
    case EventKind::kChildExit:
    case EventKind::kChildReady: {
      auto it = p.child_lane.find(e.child_id);
      if (it == p.child_lane.end()) {
        if (e.kind == EventKind::kChildReady) Instant(e, p, t, ns, out);
        return;
      }
      Track& lane = p.lanes[it->second];
      p.lane_busy[it->second] = false;
      p.child_lane.erase(it);
      JsonWriter jw(out);
      Begin(jw, "E", {}, {}, p, lane, Tick(lane, ns), out);
      jw.ObjectBeginObject("args");
      jw.ObjectInt("pid", e.pid);
      if (e.kind == EventKind::kChildExit) {
        jw.ObjectInt("code", e.code);
      } else {
        Str(jw, "ready", e.ready);
      }
      jw.End();
      jw.End();
      return;
    }
    case EventKind::kTimer:
    case EventKind::kThTimer:
    case EventKind::kCounter:
    case EventKind::kThCounter:
      Counter(e, p, t, ns, out);
      return;
    case EventKind::kStart:
      if (!e.argv.empty()) {
        p.exe = std::string(Basename(e.argv.front()));
        NameProcess(p, out);
      }
      break;
    case EventKind::kCmdName:
      p.command = std::string(e.cmd_name);
      NameProcess(p, out);
      break;
    default:
      break;
  }
  Instant(e, p, t, ns, out);
  if (e.kind == EventKind::kAtexit || e.kind == EventKind::kSignal) {
    // The process ends: its children tracks and the main thread's slices close here.
    CloseLanes(p, ns, out);
    CloseThread(p, t, ns, out);
  }
}

void ChromeFormatter::Finish(std::string* out) {
  for (const std::unique_ptr<Process>& process : processes_) {
    Process& p = *process;
    CloseLanes(p, p.last_ns, out);
    for (auto& [id, t] : p.threads) CloseThread(p, t, p.last_ns, out);
  }
  out->append(first_ ? "[\n]\n" : "\n]\n");
  first_ = true;
  processes_.clear();
  by_sid_.clear();
  used_pids_.clear();
  last_process_ = nullptr;
}

}  // namespace

std::unique_ptr<Formatter> MakeChromeFormatter(const FormatterOptions& options) {
  return std::make_unique<ChromeFormatter>();
}

}  // namespace tracewire::targets
