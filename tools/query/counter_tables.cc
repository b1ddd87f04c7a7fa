// The `counter_track` and `counter` tables: Trace2 timers and counters (timer, th_timer,
// counter, th_counter, reported at thread exit and process exit), one track per process
// (or thread), kind and name, one counter row per report; and gauges, one track per gauge
// track of the track model (process, category, name), one counter row per sample; and CPU
// samples lost (cpu_samples_lost), one track per thread, one counter row per report. Track
// ids are shared with the thread and process tracks (LoadContext::NewTrackId), as in Perfetto.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "tools/query/table_writer.h"

namespace tracewire::tools::query {
namespace {

constexpr char kSchema[] = R"sql(
CREATE TABLE counter_track (
  id INTEGER PRIMARY KEY,
  type TEXT,
  category TEXT,
  name TEXT,
  upid INTEGER,
  utid INTEGER,
  unit TEXT
);
CREATE TABLE counter (
  id INTEGER PRIMARY KEY,
  ts INTEGER,
  track_id INTEGER,
  value REAL,
  intervals INTEGER,
  min_value REAL,
  max_value REAL
);
)sql";

constexpr char kInsertTrack[] =
    "INSERT INTO counter_track (id, type, category, name, upid, utid, unit) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
constexpr char kInsertCounter[] =
    "INSERT INTO counter (ts, track_id, value, intervals, min_value, max_value) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)";

// The kinds of tracks written by name (gauge tracks are written apart), and their type and
// unit columns.
enum class TrackType : uint8_t { kTimer, kCounter, kSamplesLost };
struct TrackTypeInfo {
  absl::string_view name;
  absl::string_view unit;
};
constexpr TrackTypeInfo kTrackTypes[] = {
    {"timer", "ns"}, {"counter", "count"}, {"cpu_samples_lost", "samples"}};

// Seconds as nanoseconds (a REAL column: timers' totals keep their fraction).
double SecondsToNs(double seconds) { return std::isfinite(seconds) ? seconds * 1e9 : 0; }

class CounterTables : public TableWriter {
 public:
  using TableWriter::TableWriter;

  absl::string_view Schema() const override { return kSchema; }
  absl::Status Prepare() override {
    if (absl::Status s = PrepareInsert(kInsertTrack, &insert_track_); !s.ok()) return s;
    return PrepareInsert(kInsertCounter, &insert_counter_);
  }
  std::vector<reader::EventKind> Kinds() const override {
    using reader::EventKind;
    return {EventKind::kTimer,     EventKind::kThTimer, EventKind::kCounter,
            EventKind::kThCounter, EventKind::kGauge,   EventKind::kCpuSamplesLost};
  }

  void OnEvent(const reader::Event& e, const reader::EventTracks& at) override {
    using reader::EventKind;
    if (e.kind == EventKind::kGauge) {
      AddGaugeSample(e, at);
      return;
    }
    if (e.kind == EventKind::kCpuSamplesLost) {
      insert_counter_.BindInt(1, LoadContext::Ns(e.time));
      insert_counter_.BindInt(
          2, Track(at.process, at.thread, TrackType::kSamplesLost, "", "cpu_samples_lost"));
      insert_counter_.BindDouble(3, static_cast<double>(e.count));
      insert_counter_.BindNull(4);
      insert_counter_.BindNull(5);
      insert_counter_.BindNull(6);
      insert_counter_.Run();
      return;
    }
    const bool timer = e.kind == EventKind::kTimer || e.kind == EventKind::kThTimer;
    const bool per_thread = e.kind == EventKind::kThTimer || e.kind == EventKind::kThCounter;
    const int64_t track =
        Track(at.process, per_thread ? at.thread : reader::kNoIndex,
              timer ? TrackType::kTimer : TrackType::kCounter, e.category, e.label);
    insert_counter_.BindInt(1, LoadContext::Ns(e.time));
    insert_counter_.BindInt(2, track);
    if (timer) {
      insert_counter_.BindDouble(3, SecondsToNs(e.t_total));
      insert_counter_.BindInt(4, static_cast<int64_t>(e.intervals));
      insert_counter_.BindDouble(5, SecondsToNs(e.t_min));
      insert_counter_.BindDouble(6, SecondsToNs(e.t_max));
    } else {
      insert_counter_.BindDouble(3, static_cast<double>(e.count));
      insert_counter_.BindNull(4);
      insert_counter_.BindNull(5);
      insert_counter_.BindNull(6);
    }
    insert_counter_.Run();
  }

 private:
  using TrackKey = std::tuple<uint32_t, uint32_t, TrackType, std::string, std::string>;

  // The id of the track, written when new.
  int64_t Track(uint32_t process, uint32_t thread, TrackType type, absl::string_view category,
                absl::string_view name) {
    TrackKey key(process, thread, type, std::string(category), std::string(name));
    auto [it, inserted] = tracks_.try_emplace(std::move(key), 0);
    if (inserted) {
      it->second = context().NewTrackId();
      const TrackTypeInfo& info = kTrackTypes[static_cast<size_t>(type)];
      insert_track_.BindInt(1, it->second);
      insert_track_.BindText(2, info.name);
      if (type == TrackType::kSamplesLost) {
        insert_track_.BindNull(3);  // not a Trace2 category
      } else {
        insert_track_.BindText(3, category);
      }
      insert_track_.BindText(4, name);
      insert_track_.BindInt(5, LoadContext::Upid(process));
      if (thread == reader::kNoIndex) {
        insert_track_.BindNull(6);
      } else {
        insert_track_.BindInt(6, LoadContext::Utid(thread));
      }
      insert_track_.BindText(7, info.unit);
      insert_track_.Run();
    }
    return it->second;
  }

  // A gauge sample: a counter row on the gauge's track (written when new).
  void AddGaugeSample(const reader::Event& e, const reader::EventTracks& at) {
    if (at.gauge == reader::kNoIndex) return;
    if (at.gauge >= gauge_tracks_.size()) gauge_tracks_.resize(at.gauge + 1, 0);
    int64_t& track = gauge_tracks_[at.gauge];
    if (track == 0) {
      const reader::GaugeTrack& gauge = context().tracks().gauges()[at.gauge];
      track = context().NewTrackId();
      insert_track_.BindInt(1, track);
      insert_track_.BindText(2, "gauge");
      insert_track_.BindText(3, gauge.category);
      insert_track_.BindText(4, gauge.name);
      insert_track_.BindInt(5, LoadContext::Upid(gauge.process));
      insert_track_.BindNull(6);
      if (gauge.unit.empty()) {
        insert_track_.BindNull(7);
      } else {
        insert_track_.BindText(7, gauge.unit);
      }
      insert_track_.Run();
    }
    insert_counter_.BindInt(1, LoadContext::Ns(e.time));
    insert_counter_.BindInt(2, track);
    insert_counter_.BindDouble(3, static_cast<double>(e.value_int));
    insert_counter_.BindNull(4);
    insert_counter_.BindNull(5);
    insert_counter_.BindNull(6);
    insert_counter_.Run();
  }

  RowInserter insert_track_;
  RowInserter insert_counter_;
  absl::flat_hash_map<TrackKey, int64_t> tracks_;  // timers and counters
  std::vector<int64_t> gauge_tracks_;              // by gauge track index, 0: not yet written
};

}  // namespace

std::unique_ptr<TableWriter> MakeCounterTables(LoadContext* context) {
  return std::make_unique<CounterTables>(context);
}

}  // namespace tracewire::tools::query
