#include "tools/trace2_import/trace2_import.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/constants.h"
#include "format/event_spec.h"
#include "format/file_header.h"
#include "format/generation_encoder.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "reader/sid_parts.h"
#include "tools/trace2_import/import_timeline.h"
#include "tools/trace2_import/imported_trace_check.h"
#include "tools/trace2_import/trace2_line.h"

namespace tracewire::tools {
namespace {

using format::EventType;

constexpr uint64_t kTicksPerMicro = 1000;
// An event's tick is start + µs * 1000 + kTickOffset + a small tie-break; staying below
// 500 keeps the printed microseconds (truncated or rounded) those of the input.
constexpr uint64_t kTickOffset = 100;
constexpr uint64_t kMaxTieBreak = 399;
// Largest wall-clock spread (µs) of one generation's events: the generation's clock_sync
// sits in the middle, so every decoded time is within 1 µs of its input.
constexpr int64_t kMaxWallSpread = 2;
constexpr size_t kMaxLinesPerGeneration = 100000;
// Latest trace-clock start of a process (Unix µs: in the year 2354), so that its ticks, up to
// kMaxProcessMicros later plus tie-breaks, fit in 64 bits. A later wall-clock start only
// moves the trace clock's origin: each generation's clock_sync keeps the wall times.
constexpr int64_t kMaxStartMicros =
    static_cast<int64_t>(std::numeric_limits<uint64_t>::max() / kTicksPerMicro) -
    2 * kMaxProcessMicros;

// What the reader checks across events of one process (children, execs, threads), checked
// here so that errors name the input line; carried from window to window.
struct Bookkeeping {
  bool saw_start = false;
  absl::flat_hash_set<uint64_t> children, execs;
  std::vector<bool> started, exited;  // per thread
};

// A region open on a thread, to restate at the start of a later generation.
struct OpenRegion {
  uint64_t enter_tick = 0;
  format::Site site;
  std::optional<std::string> msg;
};

// What the encoder knows of one thread between generations.
struct ThreadState {
  bool seen = false;
  bool live = false;
  uint64_t start_tick = 0;
  uint64_t last_tick = 0;
  std::vector<OpenRegion> regions;
};

// Everything kept of one process from window to window.
struct Process {
  std::string sid;
  uint64_t pid = 0;
  std::vector<std::string> thread_names = {"main"};
  absl::flat_hash_map<std::string, uint32_t> thread_index = {{"main", 0}};
  Bookkeeping book;
  TimelineCarry timeline;
  uint64_t start_tick = 0;  // trace-clock process start, fixed by its first window
  uint64_t generations = 0;
  std::vector<uint64_t> thread_last;      // per thread: tick of its last event
  std::optional<int64_t> wall_origin_us;  // of the last generation
  std::vector<ThreadState> threads;
  std::optional<std::string> name, hierarchy;
};

// One planned generation: consecutive lines of one process.
struct Generation {
  size_t process = 0;
  uint64_t number = 0;
  std::vector<size_t> lines;
  std::optional<int64_t> offset_min, offset_max;  // wall time - monotonic time, µs
  int64_t wall_origin_us = 0;                     // wall time of the process start
};

absl::Status CheckBookkeeping(const Trace2Line& line, uint32_t t,
                              const std::vector<std::string>& thread_names, Bookkeeping* book) {
  if (book->started.size() < thread_names.size()) {
    book->started.resize(thread_names.size(), false);
    book->exited.resize(thread_names.size(), false);
  }
  auto error = [&](absl::string_view message) {
    return absl::InvalidArgumentError(absl::StrFormat("line %d: %s", line.line_number, message));
  };
  if (book->exited[t]) {
    return error(
        absl::StrFormat("an event of thread \"%s\" after its thread_exit", thread_names[t]));
  }
  const uint64_t id = line.args.empty() ? 0 : line.args[0].number;
  switch (line.type) {
    case EventType::kVersion:
    case EventType::kStart:
      book->saw_start = true;
      break;
    case EventType::kChildStart:
      if (!book->children.insert(id).second) {
        return error(absl::StrFormat("child_start for child_id %d, which is already running", id));
      }
      break;
    case EventType::kChildExit:
    case EventType::kChildReady: {
      const bool known = line.type == EventType::kChildExit ? book->children.erase(id) > 0
                                                            : book->children.contains(id);
      if (!known && book->saw_start) {
        return error(absl::StrFormat("child %d has no child_start in this process", id));
      }
      break;
    }
    case EventType::kExec:
      if (!book->execs.insert(id).second) {
        return error(absl::StrFormat("exec for exec_id %d, which is already pending", id));
      }
      break;
    case EventType::kExecResult:
      if (book->execs.erase(id) == 0 && book->saw_start) {
        return error(absl::StrFormat("exec_result for exec_id %d has no exec in this process", id));
      }
      break;
    case EventType::kThreadStart:
      if (book->started[t]) {
        return error(absl::StrFormat("a second thread_start of thread \"%s\"", thread_names[t]));
      }
      book->started[t] = true;
      break;
    case EventType::kThreadExit:
      book->exited[t] = true;
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

// Buffered lines beyond which a window is converted even if it has fewer lines.
constexpr size_t kMaxBufferedBytes = size_t{64} << 20;

}  // namespace

struct Trace2Importer::State {
  ImportOptions options;
  std::string out;
  std::vector<Process> processes;
  absl::flat_hash_map<std::string, size_t> process_index;
  // The buffered lines: the window, then the look-ahead.
  std::vector<Trace2Line> lines;
  std::vector<uint32_t> line_process, line_thread;
  std::vector<size_t> line_bytes;
  size_t buffered_bytes = 0;
  int line_number = 0;
  uint64_t bytes = 0;
  uint64_t generation_last = 0;  // tick of the last event written, over every process
  absl::Status error;

  absl::Status ConvertWindow(size_t window);
  absl::Status Encode(const std::vector<Generation>& generations,
                      const std::vector<uint64_t>& ticks);
};

Trace2Importer::Trace2Importer(ImportOptions options) : state_(std::make_unique<State>()) {
  state_->options = std::move(options);
  state_->options.window_lines = std::max<size_t>(state_->options.window_lines, 1);
  state_->out = format::EncodeFileHeader(format::kFormatVersion);
}

Trace2Importer::~Trace2Importer() = default;

void Trace2Importer::TakeOutput(std::string* out) {
  out->append(state_->out);
  state_->out.clear();
}

absl::Status Trace2Importer::AddLine(absl::string_view raw) {
  State& s = *state_;
  if (!s.error.ok()) return s.error;
  ++s.line_number;
  s.bytes += raw.size() + 1;
  if (s.options.progress && (s.line_number & 4095) == 0) s.options.progress(s.bytes, s.line_number);
  if (raw.size() > kMaxTrace2LineBytes) {
    s.error = absl::InvalidArgumentError(
        absl::StrFormat("line %d: longer than %d bytes (not a Trace2 EVENT stream?)", s.line_number,
                        kMaxTrace2LineBytes));
    return s.error;
  }
  if (absl::StripAsciiWhitespace(raw).empty()) return absl::OkStatus();
  absl::StatusOr<Trace2Line> line = ParseTrace2Line(raw, s.line_number);
  if (!line.ok()) {
    s.error = line.status();
    return s.error;
  }
  auto [it, inserted] = s.process_index.try_emplace(line->sid, s.processes.size());
  if (inserted) {
    Process& process = s.processes.emplace_back();
    process.sid = line->sid;
    process.pid = reader::PidFromSidComponent(reader::SidLastComponent(line->sid)).value_or(0);
  }
  Process& process = s.processes[it->second];
  auto [thread, new_thread] =
      process.thread_index.try_emplace(line->thread, process.thread_names.size());
  if (new_thread) process.thread_names.push_back(line->thread);
  s.line_process.push_back(static_cast<uint32_t>(it->second));
  s.line_thread.push_back(thread->second);
  s.line_bytes.push_back(raw.size());
  s.buffered_bytes += raw.size();
  s.lines.push_back(std::move(*line));
  // A full window and its look-ahead: convert the window.
  if (s.lines.size() >= 2 * s.options.window_lines || s.buffered_bytes >= kMaxBufferedBytes) {
    s.error = s.ConvertWindow(std::min(s.options.window_lines, (s.lines.size() + 1) / 2));
  }
  return s.error;
}

absl::Status Trace2Importer::Finish() {
  State& s = *state_;
  while (s.error.ok() && !s.lines.empty()) {
    s.error = s.ConvertWindow(std::min(s.options.window_lines, s.lines.size()));
  }
  if (s.options.progress) s.options.progress(s.bytes, s.line_number);
  return s.error;
}

absl::Status Trace2Importer::State::ConvertWindow(size_t window) {
  const size_t n = lines.size();
  // 1. Bookkeeping of the window's lines, and each process's buffered lines.
  std::vector<std::vector<size_t>> process_lines(processes.size());
  std::vector<size_t> in_window(processes.size(), 0);
  for (size_t i = 0; i < n; ++i) {
    const size_t p = line_process[i];
    process_lines[p].push_back(i);
    if (i < window) {
      ++in_window[p];
      if (absl::Status s = CheckBookkeeping(lines[i], line_thread[i], processes[p].thread_names,
                                            &processes[p].book);
          !s.ok()) {
        return s;
      }
    }
  }

  // 2. Monotonic times of the window's lines, per process.
  std::vector<int64_t> micros(window);
  for (size_t p = 0; p < processes.size(); ++p) {
    if (in_window[p] == 0) continue;
    Process& process = processes[p];
    std::vector<TimelineEvent> events;
    events.reserve(process_lines[p].size());
    for (size_t index : process_lines[p]) {
      const Trace2Line& line = lines[index];
      events.push_back(TimelineEvent{line.line_number, line.type, line_thread[index], line.time_us,
                                     line.t_abs_us, line.t_rel_us, line.nesting});
    }
    const bool first_window = !process.timeline.started;
    absl::StatusOr<Timeline> timeline =
        BuildTimelineWindow(events, in_window[p], process.thread_names, &process.timeline);
    if (!timeline.ok()) return timeline.status();
    if (first_window) {
      // Ticks are Unix nanoseconds of the process's wall-clock start plus monotonic time.
      process.start_tick = static_cast<uint64_t>(
          std::clamp<int64_t>(timeline->wall_origin_us, 1000000, kMaxStartMicros) * kTicksPerMicro);
    }
    for (size_t k = 0; k < in_window[p]; ++k) micros[process_lines[p][k]] = timeline->micros[k];
    process.thread_last.resize(process.thread_names.size(), 0);
    if (process.threads.size() < process.thread_names.size()) {
      process.threads.resize(process.thread_names.size());
    }
    for (uint32_t t = 0; t < process.thread_names.size(); ++t) {
      if (!process.threads[t].seen) {
        process.threads[t].start_tick =
            process.start_tick + static_cast<uint64_t>(timeline->thread_start[t]) * kTicksPerMicro;
      }
    }
  }

  // 3. Ticks and generations, in stream order; a window starts a generation.
  std::vector<uint64_t> ticks(window);
  std::vector<Generation> generations;
  for (size_t i = 0; i < window; ++i) {
    const size_t p = line_process[i];
    const uint32_t t = line_thread[i];
    Process& process = processes[p];
    const uint64_t candidate =
        process.start_tick + static_cast<uint64_t>(micros[i]) * kTicksPerMicro + kTickOffset;
    std::optional<int64_t> offset;
    if (lines[i].time_us.has_value()) offset = *lines[i].time_us - micros[i];
    Generation* current = generations.empty() ? nullptr : &generations.back();
    bool cut = current == nullptr || current->process != p ||
               current->lines.size() >= kMaxLinesPerGeneration;
    uint64_t tick = 0;
    if (!cut) {
      tick = std::max({candidate, generation_last + 1, process.thread_last[t] + 1});
      // Another thread's event of this generation is later: only a new generation (decoded
      // after this one) keeps the stream order.
      if (tick - candidate > kMaxTieBreak) cut = true;
      if (offset.has_value() && current->offset_min.has_value() &&
          std::max(*current->offset_max, *offset) - std::min(*current->offset_min, *offset) >
              kMaxWallSpread) {
        cut = true;
      }
    }
    if (cut) {
      Generation& next = generations.emplace_back();
      next.process = p;
      next.number = ++process.generations;
      current = &next;
      tick = std::max(candidate, process.thread_last[t] + 1);
    }
    if (offset.has_value()) {
      current->offset_min = std::min(current->offset_min.value_or(*offset), *offset);
      current->offset_max = std::max(current->offset_max.value_or(*offset), *offset);
    }
    current->lines.push_back(i);
    ticks[i] = tick;
    generation_last = tick;
    process.thread_last[t] = tick;
  }
  for (Generation& g : generations) {
    Process& process = processes[g.process];
    if (g.offset_min.has_value()) {
      process.wall_origin_us = *g.offset_min + (*g.offset_max - *g.offset_min) / 2;
    }
    g.wall_origin_us = process.wall_origin_us.value_or(process.timeline.wall_origin_us);
  }

  // 4. Encode.
  if (absl::Status s = Encode(generations, ticks); !s.ok()) return s;

  // 5. Drop the window's lines; the look-ahead becomes the next window.
  lines.erase(lines.begin(), lines.begin() + window);
  line_process.erase(line_process.begin(), line_process.begin() + window);
  line_thread.erase(line_thread.begin(), line_thread.begin() + window);
  for (size_t i = 0; i < window; ++i) buffered_bytes -= line_bytes[i];
  line_bytes.erase(line_bytes.begin(), line_bytes.begin() + window);
  return absl::OkStatus();
}

absl::Status Trace2Importer::State::Encode(const std::vector<Generation>& generations,
                                           const std::vector<uint64_t>& ticks) {
  for (const Generation& g : generations) {
    Process& process = processes[g.process];
    std::vector<ThreadState>& threads = process.threads;
    format::GenerationEncoder encoder(g.number);
    // The clocks at the generation's first event, whose "time" is a Unix time (the process
    // start, g.wall_origin_us, may precede 1970 when the wall clock jumped back).
    const uint64_t sync_tick = ticks[g.lines.front()];
    const __int128 wall_ns =
        std::max<__int128>(0, static_cast<__int128>(g.wall_origin_us) * kTicksPerMicro +
                                  static_cast<__int128>(sync_tick - process.start_tick));
    format::ClockSync sync;
    sync.freq = 1'000'000'000;
    sync.trace_time = sync_tick;
    sync.mono_ns = sync_tick;
    sync.wall_sec = static_cast<uint64_t>(wall_ns / 1'000'000'000);
    sync.wall_nsec = static_cast<uint64_t>(wall_ns % 1'000'000'000);
    sync.utc_offset_sec = options.utc_offset_sec;
    encoder.SetClockSync(sync);

    // Restate the threads already running, and name new threads that have no thread_start.
    std::vector<std::optional<size_t>> first_line(threads.size());
    for (size_t i : g.lines) {
      if (!first_line[line_thread[i]].has_value()) first_line[line_thread[i]] = i;
    }
    for (uint32_t t = 0; t < threads.size(); ++t) {
      ThreadState& state = threads[t];
      const std::optional<size_t>& first = first_line[t];
      if (!state.seen) {
        if (!first.has_value() || lines[*first].type == EventType::kThreadStart) continue;
        state.seen = true;
        state.live = true;
      } else if (!state.live) {
        continue;
      }
      uint64_t tick =
          first.has_value() ? ticks[*first] - (state.regions.size() + 1) : state.last_tick + 1;
      const uint64_t status_args[] = {encoder.String(process.thread_names[t]), state.start_tick};
      if (absl::Status s = encoder.Event(t, EventType::kThreadStatus, tick++, status_args);
          !s.ok()) {
        return s;
      }
      for (const OpenRegion& region : state.regions) {
        const uint64_t active_args[] = {encoder.InternSite(region.site),
                                        encoder.OptionalString(region.msg), region.enter_tick};
        if (absl::Status s = encoder.Event(t, EventType::kRegionActive, tick++, active_args);
            !s.ok()) {
          return s;
        }
      }
      state.last_tick = tick - 1;
    }

    // The events.
    std::vector<uint64_t> args;
    for (size_t i : g.lines) {
      const Trace2Line& line = lines[i];
      const uint32_t t = line_thread[i];
      ThreadState& state = threads[t];
      const format::EventSpec* spec = format::LookupSpec(line.type);
      args.clear();
      args.push_back(encoder.InternSite(line.site));
      for (size_t a = 0; a < line.args.size(); ++a) {
        const ImportArg& arg = line.args[a];
        switch (spec->args[a + 2].type) {
          case format::ArgType::kString:
            args.push_back(encoder.OptionalString(arg.text));
            break;
          case format::ArgType::kStringList:
            args.push_back(encoder.StringList(arg.list));
            break;
          default:
            args.push_back(arg.number);
            break;
        }
      }
      if (absl::Status s = encoder.Event(t, line.type, ticks[i], args); !s.ok()) {
        return absl::InternalError(
            absl::StrFormat("line %d: cannot encode: %s", line.line_number, s.message()));
      }
      if (!state.seen) {
        state.seen = true;
        state.live = true;
        state.start_tick = ticks[i];  // a thread_start
      }
      state.last_tick = ticks[i];
      switch (line.type) {
        case EventType::kRegionEnter:
          state.regions.push_back(OpenRegion{ticks[i], line.site, line.args[0].text});
          break;
        case EventType::kRegionLeave:
          if (!state.regions.empty()) state.regions.pop_back();
          break;
        case EventType::kThreadExit:
          state.live = false;
          break;
        case EventType::kCmdName:
          process.name = line.args[0].text;
          process.hierarchy = line.args[1].text;
          break;
        default:
          break;
      }
      if (UnwindsRegions(line.type)) state.regions.clear();
    }

    format::ProcessInfo info;
    info.sid = process.sid;
    info.pid = process.pid;
    info.start_time = process.start_tick;
    info.name = process.name;
    info.hierarchy = process.hierarchy;
    encoder.SetProcessInfo(info);
    if (absl::Status s = encoder.Finish(&out, options.compress); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ImportTrace2Event(absl::string_view text,
                                              const ImportOptions& options) {
  Trace2Importer importer(options);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == absl::string_view::npos) end = text.size();
    if (absl::Status s = importer.AddLine(text.substr(pos, end - pos)); !s.ok()) return s;
    pos = end + 1;
  }
  if (absl::Status s = importer.Finish(); !s.ok()) return s;
  std::string out;
  importer.TakeOutput(&out);
  if (absl::Status s = CheckImportedTrace(out, "imported trace"); !s.ok()) return s;
  return out;
}

}  // namespace tracewire::tools
