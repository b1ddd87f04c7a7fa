#include "tools/trace2_import.h"

#include <algorithm>
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
#include "tools/import_timeline.h"
#include "tools/trace2_line.h"

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

struct Process {
  std::string sid;
  uint64_t pid = 0;
  std::vector<std::string> thread_names = {"main"};
  absl::flat_hash_map<std::string, uint32_t> thread_index = {{"main", 0}};
  std::vector<size_t> lines;  // indices into the parsed lines, in stream order
  Timeline timeline;
  uint64_t start_tick = 0;  // trace-clock process start
};

// One planned generation: consecutive lines of one process.
struct Generation {
  size_t process = 0;
  uint64_t number = 0;
  std::vector<size_t> lines;
  std::optional<int64_t> offset_min, offset_max;  // wall time - monotonic time, µs
  int64_t wall_origin_us = 0;                     // wall time of the process start
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

// The bookkeeping the reader checks across events of one process (children, execs,
// threads), checked here so that errors name the input line.
absl::Status CheckBookkeeping(const std::vector<Trace2Line>& lines,
                              const std::vector<size_t>& process_lines,
                              const std::vector<uint32_t>& line_thread,
                              const std::vector<std::string>& thread_names) {
  bool saw_start = false;
  absl::flat_hash_set<uint64_t> children, execs;
  std::vector<bool> started(thread_names.size(), false), exited(thread_names.size(), false);
  for (size_t index : process_lines) {
    const Trace2Line& line = lines[index];
    const uint32_t t = line_thread[index];
    auto error = [&](absl::string_view message) {
      return absl::InvalidArgumentError(absl::StrFormat("line %d: %s", line.line_number, message));
    };
    if (exited[t]) {
      return error(
          absl::StrFormat("an event of thread \"%s\" after its thread_exit", thread_names[t]));
    }
    const uint64_t id = line.args.empty() ? 0 : line.args[0].number;
    switch (line.type) {
      case EventType::kVersion:
      case EventType::kStart:
        saw_start = true;
        break;
      case EventType::kChildStart:
        if (!children.insert(id).second) {
          return error(
              absl::StrFormat("child_start for child_id %d, which is already running", id));
        }
        break;
      case EventType::kChildExit:
      case EventType::kChildReady: {
        const bool known =
            line.type == EventType::kChildExit ? children.erase(id) > 0 : children.contains(id);
        if (!known && saw_start) {
          return error(absl::StrFormat("child %d has no child_start in this process", id));
        }
        break;
      }
      case EventType::kExec:
        if (!execs.insert(id).second) {
          return error(absl::StrFormat("exec for exec_id %d, which is already pending", id));
        }
        break;
      case EventType::kExecResult:
        if (execs.erase(id) == 0 && saw_start) {
          return error(
              absl::StrFormat("exec_result for exec_id %d has no exec in this process", id));
        }
        break;
      case EventType::kThreadStart:
        if (started[t]) {
          return error(absl::StrFormat("a second thread_start of thread \"%s\"", thread_names[t]));
        }
        started[t] = true;
        break;
      case EventType::kThreadExit:
        exited[t] = true;
        break;
      default:
        break;
    }
  }
  return absl::OkStatus();
}

// Reads the imported trace back with the reader: an error here is a bug of the importer.
absl::Status SelfCheck(const std::string& trace) {
  reader::Reader reader(reader::MemorySource(trace, "imported trace"));
  while (true) {
    absl::StatusOr<const reader::Event*> event = reader.Next();
    if (!event.ok()) {
      return absl::InternalError(
          absl::StrCat("the imported trace does not decode (a bug in tracewire import): ",
                       event.status().message()));
    }
    if (*event == nullptr) return absl::OkStatus();
  }
}

}  // namespace

absl::StatusOr<std::string> ImportTrace2Event(absl::string_view text,
                                              const ImportOptions& options) {
  // 1. Parse every line; group them by process and thread.
  std::vector<Trace2Line> lines;
  std::vector<uint32_t> line_process, line_thread;
  std::vector<Process> processes;
  absl::flat_hash_map<std::string, size_t> process_index;
  int line_number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == absl::string_view::npos) end = text.size();
    const absl::string_view raw = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    if (options.progress && (line_number & 4095) == 0) options.progress(pos, line_number);
    if (absl::StripAsciiWhitespace(raw).empty()) continue;
    absl::StatusOr<Trace2Line> line = ParseTrace2Line(raw, line_number);
    if (!line.ok()) return line.status();
    auto [it, inserted] = process_index.try_emplace(line->sid, processes.size());
    if (inserted) {
      Process& process = processes.emplace_back();
      process.sid = line->sid;
      process.pid = reader::PidFromSidComponent(reader::SidLastComponent(line->sid)).value_or(0);
    }
    Process& process = processes[it->second];
    auto [thread, new_thread] =
        process.thread_index.try_emplace(line->thread, process.thread_names.size());
    if (new_thread) process.thread_names.push_back(line->thread);
    process.lines.push_back(lines.size());
    line_process.push_back(static_cast<uint32_t>(it->second));
    line_thread.push_back(thread->second);
    lines.push_back(std::move(*line));
  }

  // 2. Monotonic times per process.
  for (Process& process : processes) {
    if (absl::Status s = CheckBookkeeping(lines, process.lines, line_thread, process.thread_names);
        !s.ok()) {
      return s;
    }
    std::vector<TimelineEvent> events;
    events.reserve(process.lines.size());
    for (size_t index : process.lines) {
      const Trace2Line& line = lines[index];
      events.push_back(TimelineEvent{line.line_number, line.type, line_thread[index], line.time_us,
                                     line.t_abs_us, line.t_rel_us, line.nesting});
    }
    absl::StatusOr<Timeline> timeline = BuildTimeline(events, process.thread_names);
    if (!timeline.ok()) return timeline.status();
    process.timeline = std::move(*timeline);
    // Ticks are Unix nanoseconds of the process's wall-clock start plus monotonic time.
    process.start_tick = static_cast<uint64_t>(
        std::max<int64_t>(process.timeline.wall_origin_us, 1000000) * kTicksPerMicro);
  }
  std::vector<int64_t> micros(lines.size());
  for (Process& process : processes) {
    for (size_t i = 0; i < process.lines.size(); ++i) {
      micros[process.lines[i]] = process.timeline.micros[i];
    }
  }

  // 3. Ticks and generations, in stream order.
  std::vector<uint64_t> ticks(lines.size());
  std::vector<Generation> generations;
  std::vector<uint64_t> generation_count(processes.size(), 0);
  std::vector<std::vector<uint64_t>> thread_last(processes.size());
  for (size_t p = 0; p < processes.size(); ++p) {
    thread_last[p].assign(processes[p].thread_names.size(), 0);
  }
  uint64_t generation_last = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t p = line_process[i];
    const uint32_t t = line_thread[i];
    const uint64_t candidate =
        processes[p].start_tick + static_cast<uint64_t>(micros[i]) * kTicksPerMicro + kTickOffset;
    std::optional<int64_t> offset;
    if (lines[i].time_us.has_value()) offset = *lines[i].time_us - micros[i];
    Generation* current = generations.empty() ? nullptr : &generations.back();
    bool cut = current == nullptr || current->process != p ||
               current->lines.size() >= kMaxLinesPerGeneration;
    uint64_t tick = 0;
    if (!cut) {
      tick = std::max({candidate, generation_last + 1, thread_last[p][t] + 1});
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
      next.number = ++generation_count[p];
      current = &next;
      tick = std::max(candidate, thread_last[p][t] + 1);
    }
    if (offset.has_value()) {
      current->offset_min = std::min(current->offset_min.value_or(*offset), *offset);
      current->offset_max = std::max(current->offset_max.value_or(*offset), *offset);
    }
    current->lines.push_back(i);
    ticks[i] = tick;
    generation_last = tick;
    thread_last[p][t] = tick;
  }
  {
    std::vector<int64_t> origin(processes.size());
    for (size_t p = 0; p < processes.size(); ++p) origin[p] = processes[p].timeline.wall_origin_us;
    for (Generation& g : generations) {
      if (g.offset_min.has_value()) {
        origin[g.process] = *g.offset_min + (*g.offset_max - *g.offset_min) / 2;
      }
      g.wall_origin_us = origin[g.process];
    }
  }

  // 4. Encode.
  std::string out = format::EncodeFileHeader(format::kFormatVersion);
  std::vector<std::vector<ThreadState>> states(processes.size());
  std::vector<std::optional<std::string>> names(processes.size()), hierarchies(processes.size());
  for (size_t p = 0; p < processes.size(); ++p) {
    states[p].resize(processes[p].thread_names.size());
  }
  for (const Generation& g : generations) {
    const Process& process = processes[g.process];
    std::vector<ThreadState>& threads = states[g.process];
    format::GenerationEncoder encoder(g.number);
    format::ClockSync sync;
    sync.freq = 1'000'000'000;
    sync.trace_time = process.start_tick;
    sync.mono_ns = process.start_tick;
    const int64_t wall_us = std::max<int64_t>(g.wall_origin_us, 0);
    sync.wall_sec = static_cast<uint64_t>(wall_us / 1000000);
    sync.wall_nsec = static_cast<uint64_t>(wall_us % 1000000) * 1000;
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
        state.start_tick = process.start_tick +
                           static_cast<uint64_t>(process.timeline.thread_start[t]) * kTicksPerMicro;
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
          names[g.process] = line.args[0].text;
          hierarchies[g.process] = line.args[1].text;
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
    info.name = names[g.process];
    info.hierarchy = hierarchies[g.process];
    encoder.SetProcessInfo(info);
    if (absl::Status s = encoder.Finish(&out, options.compress); !s.ok()) return s;
  }
  if (options.progress) options.progress(text.size(), line_number);
  if (absl::Status s = SelfCheck(out); !s.ok()) return s;
  return out;
}

}  // namespace tracewire::tools
