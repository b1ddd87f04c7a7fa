#include "tests/perfetto/perfetto_checker.h"

#include <zlib.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "reader/targets/perfetto/perfetto_trace.pb.h"

namespace tracewire::testing {
namespace {

namespace pb = ::tracewire::perfetto;

constexpr uint32_t kRealtime = 1;
constexpr uint32_t kFirstSequenceClock = 64;
constexpr uint32_t kLastSequenceClock = 127;

// A sequence-scoped clock: its value and the REALTIME time it was defined at.
struct SequenceClock {
  bool incremental = false;
  uint64_t defined_value = 0;
  uint64_t realtime_at_definition = 0;
  uint64_t value = 0;
};

struct SequenceState {
  bool started = false;
  std::map<uint64_t, std::string> names, categories, annotation_names;
  std::map<uint64_t, std::string> functions;
  std::map<uint64_t, std::vector<std::string>> callstacks;  // iid -> functions, outermost first
  std::map<uint64_t, std::string> frames;                   // iid -> function
  std::map<uint64_t, std::string> mapping_paths;
  std::map<uint64_t, std::string> mappings;  // iid -> path
  std::optional<uint64_t> default_track;
  std::optional<uint32_t> default_clock;
  std::map<uint32_t, SequenceClock> clocks;
};

enum class TrackKind { kProcess, kThread, kCounter, kOther };

struct TrackInfo {
  TrackKind kind = TrackKind::kOther;
  int32_t pid = 0;
  std::string name;
};

struct EventRecord {
  uint64_t track = 0;
  pb::TrackEvent::Type type = pb::TrackEvent::TYPE_UNSPECIFIED;
  int64_t ts = 0;
  size_t index = 0;  // packet index
  std::string name;
  std::string category;
  std::map<std::string, std::string> args;
  double value = 0;
};

std::string ValueText(const pb::DebugAnnotation& a) {
  switch (a.value_case()) {
    case pb::DebugAnnotation::kBoolValue:
      return a.bool_value() ? "true" : "false";
    case pb::DebugAnnotation::kUintValue:
      return absl::StrCat(a.uint_value());
    case pb::DebugAnnotation::kIntValue:
      return absl::StrCat(a.int_value());
    case pb::DebugAnnotation::kDoubleValue:
      return absl::StrCat(a.double_value());
    case pb::DebugAnnotation::kStringValue:
      return a.string_value();
    case pb::DebugAnnotation::kLegacyJsonValue:
      return a.legacy_json_value();
    default:
      break;
  }
  std::vector<std::string> items;
  for (const pb::DebugAnnotation& item : a.array_values()) items.push_back(ValueText(item));
  return absl::StrCat("[", absl::StrJoin(items, ","), "]");
}

class Checker {
 public:
  explicit Checker(CheckedTrace* out) : out_(*out) {}

  void Run(absl::string_view bytes) {
    pb::Trace trace;
    if (!trace.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      Problem("the bytes do not parse as a Trace");
      return;
    }
    for (int i = 0; i < trace.packet_size(); ++i) {
      const pb::TracePacket& packet = trace.packet(i);
      if (!packet.has_compressed_packets()) {
        index_ = out_.packets++;
        Packet(packet);
        continue;
      }
      // Packets compressed with zlib: the packets of a serialized Trace, in order.
      ++out_.compressed_chunks;
      pb::Trace inner;
      const std::optional<std::string> raw = Inflate(packet.compressed_packets());
      if (!raw.has_value() || !inner.ParseFromString(*raw)) {
        Problem("compressed_packets that do not inflate to a Trace");
        continue;
      }
      for (const pb::TracePacket& p : inner.packet()) {
        if (p.has_compressed_packets()) Problem("compressed_packets inside compressed_packets");
        index_ = out_.packets++;
        Packet(p);
      }
    }
    out_.sequences = sequences_.size();
    Tracks();
    Flows();
    std::sort(out_.slices.begin(), out_.slices.end());
  }

 private:
  static std::optional<std::string> Inflate(const std::string& compressed) {
    z_stream z{};
    if (inflateInit(&z) != Z_OK) return std::nullopt;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
    z.avail_in = static_cast<uInt>(compressed.size());
    std::string out;
    int status = Z_OK;
    while (status == Z_OK) {
      const size_t at = out.size();
      out.resize(at + 65536);
      z.next_out = reinterpret_cast<Bytef*>(out.data() + at);
      z.avail_out = 65536;
      status = inflate(&z, Z_NO_FLUSH);
      out.resize(at + 65536 - z.avail_out);
    }
    inflateEnd(&z);
    if (status != Z_STREAM_END) return std::nullopt;
    return out;
  }

  void Problem(const std::string& what) {
    if (out_.problems.size() < 50)
      out_.problems.push_back(absl::StrCat("packet ", index_, ": ", what));
  }

  std::string TrackName(uint64_t uuid) {
    const TrackInfo& t = tracks_[uuid];
    return absl::StrCat(t.pid, "/", t.name);
  }

  void Intern(std::map<uint64_t, std::string>& table, uint64_t iid, const std::string& value,
              const char* what) {
    if (iid == 0) Problem(absl::StrCat(what, " with iid 0"));
    auto [it, inserted] = table.emplace(iid, value);
    if (!inserted && it->second != value) {
      Problem(
          absl::StrCat(what, " iid ", iid, " redefined: '", it->second, "' then '", value, "'"));
    }
    if (inserted) ++out_.interned_strings;
  }

  std::string Lookup(const std::map<uint64_t, std::string>& table, uint64_t iid, const char* what) {
    auto it = table.find(iid);
    if (it == table.end()) {
      Problem(absl::StrCat(what, " iid ", iid, " used before it is defined on the sequence"));
      return "";
    }
    return it->second;
  }

  void Packet(const pb::TracePacket& p) {
    if (!p.has_trusted_packet_sequence_id() || p.trusted_packet_sequence_id() == 0) {
      Problem("no packet sequence");
      return;
    }
    if (p.has_process_tree()) {
      for (const pb::ProcessTree::Process& process : p.process_tree().processes()) {
        if (process.cmdline_size() == 0) Problem("a process tree entry without a cmdline");
        if (process.cmdline_size() > 0) out_.process_names[process.pid()] = process.cmdline(0);
        out_.cmdlines[process.pid()] = absl::StrJoin(process.cmdline(), " ");
      }
    }
    SequenceState& seq = sequences_[p.trusted_packet_sequence_id()];
    const uint32_t flags = p.sequence_flags();
    const bool cleared = (flags & pb::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED) != 0;
    const bool needs = (flags & pb::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE) != 0;
    if (!seq.started && !cleared) {
      Problem(absl::StrCat("the first packet of sequence ", p.trusted_packet_sequence_id(),
                           " does not clear the incremental state"));
    }
    seq.started = true;
    if (cleared) seq = SequenceState{.started = true};
    bool uses_state = p.has_interned_data();
    if (p.has_trace_packet_defaults()) {
      const pb::TracePacketDefaults& d = p.trace_packet_defaults();
      if (d.has_timestamp_clock_id()) seq.default_clock = d.timestamp_clock_id();
      if (d.has_track_event_defaults() && d.track_event_defaults().has_track_uuid()) {
        seq.default_track = d.track_event_defaults().track_uuid();
      }
    }
    // Time.
    int64_t ts = 0;
    if (p.has_timestamp()) {
      uint32_t clock = p.has_timestamp_clock_id() ? p.timestamp_clock_id() : 6;
      if (!p.has_timestamp_clock_id() && seq.default_clock.has_value()) {
        clock = *seq.default_clock;
        uses_state = true;
      }
      if (clock == kRealtime) {
        ts = static_cast<int64_t>(p.timestamp());
      } else if (clock >= kFirstSequenceClock && clock <= kLastSequenceClock) {
        uses_state = true;
        auto it = seq.clocks.find(clock);
        if (it == seq.clocks.end()) {
          Problem(absl::StrCat("clock ", clock, " is not defined on the sequence"));
        } else {
          SequenceClock& c = it->second;
          if (c.incremental) {
            if (p.timestamp() > (uint64_t{1} << 63)) Problem("the incremental clock goes back");
            c.value += p.timestamp();
          } else {
            c.value = p.timestamp();
          }
          ts = static_cast<int64_t>(c.realtime_at_definition + (c.value - c.defined_value));
        }
      } else {
        Problem(absl::StrCat("timestamp in clock ", clock, " (not REALTIME or the sequence's)"));
      }
    }
    if (p.has_clock_snapshot()) {
      const pb::ClockSnapshot& s = p.clock_snapshot();
      if (s.primary_trace_clock() != kRealtime) Problem("the primary trace clock is not REALTIME");
      std::optional<uint64_t> realtime;
      for (const auto& c : s.clocks()) {
        if (c.clock_id() == kRealtime) realtime = c.timestamp();
      }
      if (!realtime.has_value()) Problem("a clock snapshot without REALTIME");
      for (const auto& c : s.clocks()) {
        if (c.clock_id() < kFirstSequenceClock || c.clock_id() > kLastSequenceClock) continue;
        if (c.has_unit_multiplier_ns() && c.unit_multiplier_ns() != 1) {
          Problem("a sequence clock in units other than ns");
        }
        seq.clocks[c.clock_id()] =
            SequenceClock{c.is_incremental(), c.timestamp(), realtime.value_or(0), c.timestamp()};
      }
    }
    if (p.has_interned_data()) {
      const pb::InternedData& d = p.interned_data();
      for (const auto& e : d.event_names()) Intern(seq.names, e.iid(), e.name(), "event name");
      for (const auto& e : d.event_categories()) {
        Intern(seq.categories, e.iid(), e.name(), "category");
      }
      for (const auto& e : d.debug_annotation_names()) {
        Intern(seq.annotation_names, e.iid(), e.name(), "annotation name");
      }
      // Profiling tables: a frame names a defined function, a callstack defined frames.
      for (const auto& e : d.function_names()) Intern(seq.functions, e.iid(), e.str(), "function");
      for (const auto& e : d.mapping_paths()) {
        Intern(seq.mapping_paths, e.iid(), e.str(), "mapping path");
      }
      for (const auto& e : d.mappings()) {
        if (e.iid() == 0 || seq.mappings.contains(e.iid())) {
          Problem("a mapping iid 0 or defined twice");
        }
        std::string path;
        for (uint64_t id : e.path_string_ids()) {
          absl::StrAppend(&path, "/", Lookup(seq.mapping_paths, id, "mapping path"));
        }
        seq.mappings[e.iid()] = path;
      }
      for (const auto& e : d.frames()) {
        if (e.iid() == 0 || seq.frames.contains(e.iid())) Problem("a frame iid 0 or defined twice");
        if (e.mapping_id() != 0) {
          Lookup(seq.mappings, e.mapping_id(), "mapping");
          if (!e.has_rel_pc()) Problem("a frame with a mapping and no rel_pc");
        }
        seq.frames[e.iid()] = Lookup(seq.functions, e.function_name_id(), "function name");
      }
      for (const auto& e : d.callstacks()) {
        if (e.iid() == 0 || seq.callstacks.contains(e.iid())) {
          Problem("a callstack iid 0 or defined twice");
        }
        std::vector<std::string>& frames = seq.callstacks[e.iid()];
        for (uint64_t id : e.frame_ids()) frames.push_back(Lookup(seq.frames, id, "frame"));
      }
    }
    if (p.has_track_descriptor()) Descriptor(p.track_descriptor());
    if (p.has_perf_sample()) {
      const pb::PerfSample& sample = p.perf_sample();
      uses_state = true;
      if (!p.has_timestamp()) Problem("a CPU sample without a time");
      auto stack = seq.callstacks.find(sample.callstack_iid());
      if (stack == seq.callstacks.end()) {
        Problem(absl::StrCat("callstack iid ", sample.callstack_iid(),
                             " used before it is defined on the sequence"));
      }
      auto thread =
          threads_.find({static_cast<int32_t>(sample.pid()), static_cast<int32_t>(sample.tid())});
      if (thread == threads_.end()) {
        Problem("a CPU sample of a thread no thread track describes");
      } else {
        ++out_.samples_by_thread[thread->second];
        if (stack != seq.callstacks.end()) {
          out_.sample_stacks[absl::StrJoin(stack->second, ";")] += 1;
        }
      }
    }
    if (p.has_track_event()) {
      if (!p.has_timestamp()) Problem("a track event without a time");
      uses_state |= TrackEvent(p.track_event(), seq, ts);
    }
    if (uses_state && !needs && !cleared) {
      Problem("uses incremental state without SEQ_NEEDS_INCREMENTAL_STATE");
    }
  }

  void Descriptor(const pb::TrackDescriptor& d) {
    if (!d.has_uuid() || d.uuid() == 0) Problem("a track descriptor without a uuid");
    TrackInfo info;
    if (d.has_process()) {
      info.kind = TrackKind::kProcess;
      info.pid = d.process().pid();
      info.name = "process";
      out_.process_names.try_emplace(info.pid, d.process().process_name());
    } else {
      auto parent = tracks_.find(d.parent_uuid());
      if (!d.has_parent_uuid() || parent == tracks_.end()) {
        Problem(absl::StrCat("track ", d.uuid(), " has no described parent"));
      } else {
        info.pid = parent->second.pid;
      }
      if (d.has_thread()) {
        info.kind = TrackKind::kThread;
        info.name = d.thread().thread_name();
        if (d.thread().pid() != info.pid) Problem("a thread's pid is not its process's");
        if (d.thread().tid() == 0) Problem("a thread with tid 0 (the idle task's)");
        if (!described_.contains(d.uuid())) {
          out_.thread_tracks.push_back(absl::StrCat(info.pid, "/", info.name));
        }
        threads_[{info.pid, d.thread().tid()}] = absl::StrCat(info.pid, "/", info.name);
      } else {
        info.kind = d.has_counter() ? TrackKind::kCounter : TrackKind::kOther;
        info.name = d.name();
      }
    }
    auto [it, inserted] = tracks_.emplace(d.uuid(), info);
    if (!inserted && it->second.kind != info.kind) Problem("a track described as two kinds");
    it->second = info;
    described_.emplace(d.uuid(), true);
  }

  // Returns true if the event used the sequence's state.
  bool TrackEvent(const pb::TrackEvent& e, SequenceState& seq, int64_t ts) {
    bool uses_state = false;
    ++out_.track_events;
    EventRecord r;
    r.ts = ts;
    r.index = index_;
    r.type = e.type();
    if (e.has_track_uuid()) {
      r.track = e.track_uuid();
    } else if (seq.default_track.has_value()) {
      r.track = *seq.default_track;
      uses_state = true;
    } else {
      Problem("a track event with no track");
    }
    auto track = tracks_.find(r.track);
    if (track == tracks_.end()) {
      Problem(absl::StrCat("track ", r.track, " is used before it is described"));
      return uses_state;
    }
    const bool counter_track = track->second.kind == TrackKind::kCounter;
    if (r.type == pb::TrackEvent::TYPE_COUNTER) {
      if (!counter_track) Problem("a counter value on a track that is no counter track");
      r.value = e.has_double_counter_value() ? e.double_counter_value()
                                             : static_cast<double>(e.counter_value());
    } else if (counter_track) {
      Problem("a slice or instant on a counter track");
    }
    if (r.type == pb::TrackEvent::TYPE_UNSPECIFIED) Problem("a track event without a type");
    if (e.has_name_iid()) {
      r.name = Lookup(seq.names, e.name_iid(), "event name");
      uses_state = true;
    } else {
      r.name = e.name();
    }
    for (uint64_t iid : e.category_iids()) {
      r.category = Lookup(seq.categories, iid, "category");
      uses_state = true;
    }
    for (const pb::DebugAnnotation& a : e.debug_annotations()) {
      std::string name = a.name();
      if (a.has_name_iid()) {
        name = Lookup(seq.annotation_names, a.name_iid(), "annotation name");
        uses_state = true;
      }
      r.args[name] = ValueText(a);
    }
    for (uint64_t id : e.flow_ids()) flow_starts_[id].push_back(ts);
    for (uint64_t id : e.terminating_flow_ids()) flow_ends_[id].push_back(ts);
    events_[r.track].push_back(std::move(r));
    return uses_state;
  }

  void Tracks() {
    for (auto& [uuid, events] : events_) {
      std::stable_sort(events.begin(), events.end(),
                       [](const EventRecord& a, const EventRecord& b) { return a.ts < b.ts; });
      std::vector<const EventRecord*> open;
      const std::string track = TrackName(uuid);
      for (const EventRecord& e : events) {
        index_ = e.index;
        switch (e.type) {
          case pb::TrackEvent::TYPE_SLICE_BEGIN:
            open.push_back(&e);
            break;
          case pb::TrackEvent::TYPE_SLICE_END: {
            if (open.empty()) {
              Problem(absl::StrCat("SLICE_END with no open slice on track ", track));
              break;
            }
            const EventRecord& b = *open.back();
            open.pop_back();
            CheckedSlice s{track, b.name, b.category, b.ts, e.ts - b.ts, b.args, uuid};
            for (const auto& [k, v] : e.args) s.args[k] = v;
            out_.slices.push_back(std::move(s));
            break;
          }
          case pb::TrackEvent::TYPE_INSTANT:
            out_.instants.push_back(CheckedInstant{track, e.name, e.category, e.ts, e.args});
            break;
          case pb::TrackEvent::TYPE_COUNTER:
            out_.counters.push_back(CheckedCounter{track, e.ts, e.value});
            break;
          default:
            break;
        }
      }
      if (!open.empty()) {
        index_ = open.back()->index;
        Problem(absl::StrCat(open.size(), " slices left open on track ", track));
      }
    }
  }

  // A flow's events are connected in time order: the first with the id in flow_ids starts
  // it, later ones with it in flow_ids are its steps, the one with it in
  // terminating_flow_ids ends it.
  void Flows() {
    for (const auto& [id, starts] : flow_starts_) {
      auto ends = flow_ends_.find(id);
      if (ends == flow_ends_.end() || ends->second.size() != 1) {
        Problem(absl::StrCat("flow ", id, " does not end exactly once"));
        continue;
      }
      const int64_t last_step = *std::max_element(starts.begin(), starts.end());
      if (ends->second[0] < last_step) {
        Problem(absl::StrCat("flow ", id, " ends before its start or a step"));
      }
      ++out_.flows;
      out_.flow_events[id] = starts.size() + 1;
    }
    for (const auto& [id, ends] : flow_ends_) {
      if (!flow_starts_.contains(id)) Problem(absl::StrCat("flow ", id, " ends but never starts"));
    }
  }

  CheckedTrace& out_;
  size_t index_ = 0;
  std::map<uint32_t, SequenceState> sequences_;
  std::map<uint64_t, TrackInfo> tracks_;
  std::map<std::pair<int32_t, int32_t>, std::string> threads_;  // (pid, tid) -> track name
  absl::flat_hash_map<uint64_t, bool> described_;
  std::map<uint64_t, std::vector<EventRecord>> events_;  // by track, in file order
  std::map<uint64_t, std::vector<int64_t>> flow_starts_, flow_ends_;
};

}  // namespace

bool CheckedSlice::operator<(const CheckedSlice& o) const {
  return std::tie(track, ts, dur, name) < std::tie(o.track, o.ts, o.dur, o.name);
}

CheckedTrace CheckPerfettoTrace(absl::string_view bytes) {
  CheckedTrace out;
  Checker(&out).Run(bytes);
  return out;
}

}  // namespace tracewire::testing
