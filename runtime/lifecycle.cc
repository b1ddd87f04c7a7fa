#include "runtime/lifecycle.h"

#include <execinfo.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "format/constants.h"
#include "format/file_header_encoder.h"
#include "runtime/category_filter.h"
#include "runtime/config_params.h"
#include "runtime/cpu_sampler.h"
#include "runtime/emit.h"
#include "runtime/flight_recorder.h"
#include "runtime/session.h"
#include "runtime/setting_checks.h"
#include "runtime/settings_file.h"
#include "runtime/sid.h"
#include "runtime/stack_events.h"
#include "runtime/startup_path.h"
#include "runtime/text.h"

TRACEWIRE_STARTUP_DATA volatile int tw_enabled_flag = 0;

namespace tracewire::runtime {
namespace {

TRACEWIRE_STARTUP_DATA bool g_initialized = false;
TRACEWIRE_STARTUP_DATA bool g_start_time_set = false;
TRACEWIRE_STARTUP_DATA StartInstant g_start;  // tw_initialize_clock() (or tw_initialize) time

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL,  SIGABRT,
                                 SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE};

// Writes one event of `type` with no file on the calling thread (a "target-internal" site,
// as git's atexit/signal/timer/counter events have).
void EmitInternal(format::EventType type, const char* category, const char* label,
                  std::initializer_list<uint64_t> rest) {
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  const uint64_t site = SiteFor(ts, nullptr, 0, category, label);
  WriteTimed(ts, type, site, rest);
  EndEvent(ts);
}

void EmitTimers(const TimerDefinition* defs, const TimerState* timers, int count, bool per_thread,
                format::EventType type) {
  for (int i = 0; i < count; ++i) {
    if (per_thread && !defs[i].per_thread) continue;
    const TimerState& t = timers[i];
    if (t.intervals == 0 || !CategoryRecorded(defs[i].category)) continue;
    EmitInternal(type, defs[i].category.c_str(), defs[i].name.c_str(),
                 {t.intervals, t.total, t.min, t.max});
  }
}

void EmitCounters(const TimerDefinition* defs, const uint64_t* values, const bool* used, int count,
                  bool per_thread, format::EventType type) {
  for (int i = 0; i < count; ++i) {
    if (per_thread && !defs[i].per_thread) continue;
    if (!used[i] || !CategoryRecorded(defs[i].category)) continue;
    EmitInternal(type, defs[i].category.c_str(), defs[i].name.c_str(), {values[i]});
  }
}

// The timer tables (null until the first definition) and how many timers and counters
// they define, read together under timers_mu.
struct DefinedFigures {
  TimerTables* tables;
  int timers;
  int counters;
};

DefinedFigures Defined(Session& s) {
  std::lock_guard<std::mutex> lock(s.timers_mu);
  return {s.timer_tables.get(), s.num_timers, s.num_counters};
}

// Adds the calling thread's timers and counters to the process totals.
void MergeThreadFigures(Session& s, ThreadState* ts) {
  std::lock_guard<std::mutex> lock(s.timers_mu);
  TimerTables* tables = s.timer_tables.get();
  if (tables == nullptr) return;
  for (int i = 0; i < s.num_timers; ++i) {
    const TimerState& t = ts->timers[i];
    if (t.intervals == 0) continue;
    TimerState& total = tables->timer_totals[i];
    total.min = total.intervals == 0 ? t.min : std::min(total.min, t.min);
    total.max = std::max(total.max, t.max);
    total.intervals += t.intervals;
    total.total += t.total;
  }
  for (int i = 0; i < s.num_counters; ++i) {
    if (!ts->counter_used[i]) continue;
    tables->counter_totals[i] += ts->counters[i];
    tables->counter_used[i] = true;
  }
}

// Emits the thread's own th_timer/th_counter events (git: before thread_exit, or for
// main at atexit) and merges its figures into the process totals.
void FinishThreadFigures(Session& s, ThreadState* ts) {
  const DefinedFigures defined = Defined(s);
  if (defined.tables == nullptr) return;
  EmitTimers(defined.tables->timer_defs, ts->timers, defined.timers, true,
             format::EventType::kThTimer);
  EmitCounters(defined.tables->counter_defs, ts->counters, ts->counter_used, defined.counters, true,
               format::EventType::kThCounter);
  MergeThreadFigures(s, ts);
}

// Forgets the calling thread's open regions (git unwinds them silently before atexit).
// Inside an event: the advancer reads them to re-state the thread.
void DropOpenRegions() {
  if (ThreadState* ts = BeginEvent()) {
    ts->regions.clear();
    ts->msg_arena.clear();
    EndEvent(ts);
  }
}

// Moves the calling thread's CPU samples into its batch now (inside an event).
void DrainOwnSamples() {
  if (ThreadState* ts = BeginEvent()) {
    if (ts->samples != nullptr) {
      Session& s = GetSession();
      std::lock_guard<std::mutex> lock(s.output_mu);
      DrainSamplesLocked(s, ts, /*tables_locked=*/false);
    }
    EndEvent(ts);
  }
}

void AtExitHandler() {
  Session& s = GetSession();
  if (!TW_ENABLED() || s.forked_child) return;
  // No generation is cut on time from here to the last one: the regions dropped below
  // must not be missing from a re-statement after a generation that ends with them open.
  StopAdvancer(s);
  StopFlightRecorder(s);
  // Samples stop here: those of the main thread taken so far go before atexit, inside the
  // regions open when they were taken.
  StopCpuProfile();
  ThreadState* ts = PeekCurrentThread();
  if (ts != nullptr) {
    DrainOwnSamples();
    FinishThreadFigures(s, ts);
    DropOpenRegions();
  }
  const DefinedFigures defined = Defined(s);
  if (defined.tables != nullptr) {
    EmitTimers(defined.tables->timer_defs, defined.tables->timer_totals, defined.timers, false,
               format::EventType::kTimer);
    EmitCounters(defined.tables->counter_defs, defined.tables->counter_totals,
                 defined.tables->counter_used, defined.counters, false,
                 format::EventType::kCounter);
  }
  // Generations written uncompressed although compression was asked for (the last one's
  // own outcome is not known yet).
  // relaxed: a count; advance_mu (which the cuts hold) orders its updates before this.
  const uint64_t uncompressed = s.uncompressed_generations.load(std::memory_order_relaxed);
  if (uncompressed != 0) {
    EmitInternal(format::EventType::kCounter, format::kRuntimeCategory,
                 format::kUncompressedGenerationsLabel, {uncompressed});
  }
  EmitInternal(format::EventType::kAtexit, nullptr, nullptr, {format::ZigzagEncode(ExitCode())});
  AdvanceGeneration(/*final=*/true);
  // relaxed: the flag only lets the macros skip calls; g_gen_word orders the events.
  __atomic_store_n(&tw_enabled_flag, 0, __ATOMIC_RELAXED);
  s.destination.Close();
}

void ForkChild() {
  // The child must not write the parent's buffers: it stops tracing and drops them.
  // POSIX timers are not inherited: no sample is taken in the child.
  GetSession().forked_child = true;
  StopCpuProfile();
  // relaxed: the child has this one thread after fork(); the word publishes nothing here.
  g_gen_word.store(kClosed, std::memory_order_relaxed);
  __atomic_store_n(&tw_enabled_flag, 0, __ATOMIC_RELAXED);  // relaxed: as in Shutdown
}

void FatalSignalHandler(int signo) {
  EmergencyFlush(signo);
  // Only default dispositions are taken over: re-raise for the default action.
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigaction(signo, &default_action, nullptr);
  raise(signo);
}

void InstallSignalHandlers() {
  for (int signo : kFatalSignals) {
    struct sigaction current;
    if (sigaction(signo, nullptr, &current) != 0) continue;
    // Only take over default dispositions: never replace a program's own handler or an
    // ignored signal.
    if (current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO) != 0) continue;
    struct sigaction action {};
    action.sa_handler = FatalSignalHandler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigaction(signo, &action, nullptr);
  }
}

}  // namespace

TRACEWIRE_STARTUP_PATH int Initialize(const tw_settings& settings, const char* file, int line,
                                      const SettingSource& target_source) {
  if (!g_start_time_set) {
    g_start = ReadStartInstant();
    g_start_time_set = true;
  }
  if (g_initialized) return TW_ENABLED() ? 0 : -1;
  g_initialized = true;

  // No target: tracing off, decided without reading a constant (see startup_path.h).
  if (settings.target == nullptr || settings.target[0] == '\0') return -1;
  const char* value = settings.target;
  const std::optional<TargetSpec> target = ParseTarget(value);
  if (!target.has_value()) {
    WarnBadSetting(target_source, value, /*fallback=*/"");
    return -1;
  }
  if (target->kind == TargetSpec::Kind::kDisabled) return -1;
  if (IsTerminalTarget(*target)) {
    // Once per process tree: the children of a warned process stay quiet.
    if (getenv(kTerminalWarnedVariable) == nullptr) {
      const std::string name = target_source.kind == SettingSource::Kind::kProgram
                                   ? std::string("tw_settings.target")
                                   : std::string(target_source.name);
      fputs(TerminalTargetWarning(name, value).c_str(), stderr);
      setenv(kTerminalWarnedVariable, "1", 1);
    }
    return -1;
  }
  // The settings a program passes are checked here, once; those of the environment and the
  // settings files were checked as they were read (LoadSettings).
  if (target_source.kind == SettingSource::Kind::kProgram) CheckProgramSettings(settings);
  CheckClockSetting();

  // Tracing is on from here (unless the destination fails): the clock's calibration origin
  // is taken and the Session is allocated now.
  InitClock();
  Session& s = GetSession();
  s.start_time = TraceTicksAt(g_start);
  char hostname[256] = {};
  if (gethostname(hostname, sizeof(hostname) - 1) != 0) hostname[0] = '\0';
  s.pid = getpid();
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  const std::string own = OwnSidComponent(now, hostname, static_cast<unsigned>(s.pid));
  const char* parent = getenv("TRACEWIRE_PARENT_SID");
  s.sid = FullSid(parent == nullptr ? "" : parent, own);

  if (settings.generation_ms != 0) s.generation_ms = settings.generation_ms;
  if (settings.generation_bytes != 0) s.generation_bytes = settings.generation_bytes;
  if (!ConfigureFlightRecorder(s, settings)) {
    fprintf(stderr, "warning: tracewire: could not map the flight recorder's %llu bytes\n",
            static_cast<unsigned long long>(settings.flight_recorder_bytes));
    return -1;
  }
  const std::string header = format::EncodeFileHeader(
      format::kFormatVersion,
      s.flight_ring.enabled() ? format::kFileFlagFlightRecorderDump : uint32_t{0});
  memcpy(s.file_header, header.data(), std::min(header.size(), sizeof(s.file_header)));
  bool too_many_files = false;
  s.write_timeout_ms =
      settings.write_timeout_ms > 0 ? settings.write_timeout_ms : Destination::kDefaultTimeoutMs;
  if (const OpenResult opened = s.destination.Open(
          *target, own, settings.max_files, &too_many_files, s.write_timeout_ms,
          absl::string_view(reinterpret_cast<const char*>(s.file_header), sizeof(s.file_header)));
      !opened.ok()) {
    // As git does, a destination that cannot be opened is silent unless asked; one that
    // did not answer in time (a FIFO nobody reads, a listener that never accepts) warns.
    const bool debug = CheckedDestinationDebug(LookupSetting("TRACEWIRE_DST_DEBUG"));
    if (opened.timed_out()) {
      fprintf(stderr, "warning: tracewire: %s; tracing is off\n", opened.message().c_str());
    } else if (debug) {
      fprintf(stderr, "warning: tracewire: could not open '%s': %s\n", value,
              opened.message().c_str());
    }
    return -1;
  }
  setenv("TRACEWIRE_PARENT_SID", s.sid.c_str(), 1);

  s.compress = settings.compress != 0;
  s.redact = settings.no_redact == 0;
  // Before the main thread attaches: every thread attached from now on is sampled.
  if (settings.cpu_profile_hz != 0 && settings.cpu_profile_hz <= kMaxCpuProfileHz) {
    StartCpuProfile(s, settings.cpu_profile_hz);
  }
  if (settings.stack_events != nullptr) {
    AddStackEvents(settings.stack_events, g_stack_event_mask, /*unknown=*/nullptr);
    void* warm[1];
    backtrace(warm, 1);  // loads the unwinder now, not inside an event
  }
  // relaxed: set before any thread attaches or the advancer starts (thread creation and
  // registry_mu order it before every reader).
  g_need_fence.store(syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0,
                     std::memory_order_relaxed);

  g_region_fast_path.store(!g_need_fence.load(std::memory_order_relaxed) &&
                               !WantStack(format::EventType::kRegionEnter) &&
                               !WantStack(format::EventType::kRegionLeave) && counter::kAvailable &&
                               g_clock_is_counter,
                           std::memory_order_relaxed);

  SetCategoryFilter(settings.categories);  // before any site is registered
  s.signal_site_index = s.site_registry.Intern(MakeSite(nullptr, 0, nullptr, nullptr, -1));
  {
    std::lock_guard<std::mutex> output_lock(s.output_mu);
    std::lock_guard<std::mutex> tables_lock(s.tables_mu);
    s.filling.gen = 1;
    OpenGenerationLocked(s, 1);
  }
  // release, pairs with the acquire loads of g_gen_word (AttachThread, BeginEvent):
  // generation 1's tables are set up before a thread records into it.
  g_gen_word.store(uint64_t{1} << 2, std::memory_order_release);
  if (AttachThread("main", /*is_main=*/true, /*pending_status=*/true) == nullptr) return -1;
  // relaxed: the flag only lets the macros call in; BeginEvent's acquire of g_gen_word
  // orders what they then read.
  __atomic_store_n(&tw_enabled_flag, 1, __ATOMIC_RELAXED);
  ConfigureReporting(settings);

  pthread_atfork(nullptr, nullptr, ForkChild);
  atexit(AtExitHandler);
  InstallSignalHandlers();
  StartAdvancer(s);
  StartFlightRecorder(s);

  const char* version = settings.app_version != nullptr ? settings.app_version : "0";
  if (ThreadState* ts = BeginEvent()) {
    const uint64_t site = SiteFor(ts, file, line);
    const uint64_t exe = UniqueString(ts, version);
    WriteTimed(ts, format::EventType::kVersion, site, {exe});
    if (too_many_files) WriteTimed(ts, format::EventType::kTooManyFiles, site, {});
    EndEvent(ts);
  }
  return 0;
}

void DetachCurrentThread(bool emit_exit_events, const char* file, int line) {
  Session& s = GetSession();
  ThreadState* ts = PeekCurrentThread();
  if (ts == nullptr) return;
  if (s.forked_child) {
    // After fork() the recorder's locks may be held by threads that do not exist here.
    ClearCurrentThread();
    return;
  }
  // No sample after this: those taken so far go before thread_exit.
  StopSampler(ts);
  if (emit_exit_events) {
    FinishThreadFigures(s, ts);
    if (ThreadState* e = BeginEvent()) {
      if (e->samples != nullptr) {
        std::lock_guard<std::mutex> lock(s.output_mu);
        DrainSamplesLocked(s, e, /*tables_locked=*/false);
      }
      // git unwinds the thread's regions silently; in the same event as thread_exit, so no
      // generation is cut between the two.
      e->regions.clear();
      e->msg_arena.clear();
      WriteTimed(e, format::EventType::kThreadExit, SiteFor(e, file, line), {});
      EndEvent(e);
    }
  } else {
    MergeThreadFigures(s, ts);
  }
  {
    std::lock_guard<std::mutex> registry_lock(s.registry_mu);
    if ((g_gen_word.load() & kClosed) == 0) {
      std::lock_guard<std::mutex> output_lock(s.output_mu);
      // The batch belongs to the current generation: the advancer cannot run while we hold
      // the registry lock, and it re-stated this thread at its last advance.
      // Samples only follow the thread's re-statement or thread_start in this generation.
      if (ts->samples != nullptr && !ts->pending_status.get() && ts->gen.get() == s.filling.gen &&
          (ts->pos.get() != BatchBody(ts) || ts->batches_flushed.get() != 0)) {
        DrainSamplesLocked(s, ts, /*tables_locked=*/false);
      }
      MoveThreadBuffersLocked(s, ts);
    }
    // Its tasks outlive it: the generation switch re-states the active ones elsewhere.
    s.orphan_tasks.insert(s.orphan_tasks.end(), ts->begun_tasks.begin(), ts->begun_tasks.end());
    s.orphan_ended.insert(s.orphan_ended.end(), ts->ended_tasks.begin(), ts->ended_tasks.end());
    auto& threads = s.threads;
    threads.erase(std::remove(threads.begin(), threads.end(), ts), threads.end());
  }
  s.pool.Give(ts->batch.get());
  s.pool.Give(ts->strings.get());
  FreeSampler(ts);
  ClearCurrentThread();
  delete ts;
}

void SetCommandName(absl::string_view name, absl::string_view hierarchy) {
  Session& s = GetSession();
  // The advancer's lock order: output_mu, then tables_mu.
  std::lock_guard<std::mutex> output_lock(s.output_mu);
  std::lock_guard<std::mutex> lock(s.tables_mu);
  s.cmd_name = std::string(name);
  s.hierarchy = std::string(hierarchy);
  s.has_cmd_name = true;
  // Interned in the open generation at once (and at every generation start after), so
  // that the fatal-signal path, which cannot intern, names the command too.
  if (TW_ENABLED() && !s.forked_child && (g_gen_word.load() & kClosed) == 0) {
    InternCommandNameLocked(s, s.filling.gen);
  }
}

int DefineTimer(const char* category, const char* name, bool per_thread) {
  Session& s = GetSession();
  std::lock_guard<std::mutex> lock(s.timers_mu);
  if (s.num_timers >= kMaxTimers) return -1;
  if (s.timer_tables == nullptr) s.timer_tables = std::make_unique<TimerTables>();
  s.timer_tables->timer_defs[s.num_timers] = {category == nullptr ? "" : category,
                                              name == nullptr ? "" : name, per_thread};
  return s.num_timers++;
}

int DefineCounter(const char* category, const char* name, bool per_thread) {
  Session& s = GetSession();
  std::lock_guard<std::mutex> lock(s.timers_mu);
  if (s.num_counters >= kMaxCounters) return -1;
  if (s.timer_tables == nullptr) s.timer_tables = std::make_unique<TimerTables>();
  s.timer_tables->counter_defs[s.num_counters] = {category == nullptr ? "" : category,
                                                  name == nullptr ? "" : name, per_thread};
  return s.num_counters++;
}

bool Initialized() { return g_initialized; }

TRACEWIRE_STARTUP_PATH void MarkStartTime() {
  if (g_start_time_set) return;
  g_start = ReadStartInstant();  // the clock source is chosen if tracing starts
  g_start_time_set = true;
}

}  // namespace tracewire::runtime
