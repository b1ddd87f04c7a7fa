// The `process` table: one row per process (sid) of the input, written at the end of the
// load from what its events told (start, cmd_name, exit, atexit, signal).
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reader/sid_parts.h"
#include "tools/query/row_text.h"
#include "tools/query/table_writer.h"

namespace tracewire::tools::query {
namespace {

constexpr char kSchema[] = R"sql(
CREATE TABLE process (
  upid INTEGER PRIMARY KEY,
  pid INTEGER,
  sid TEXT,
  parent_upid INTEGER,
  name TEXT,
  hierarchy TEXT,
  cmdline TEXT,
  start_ts INTEGER,
  end_ts INTEGER,
  exit_code INTEGER,
  host TEXT
);
)sql";

constexpr char kInsert[] =
    "INSERT INTO process (upid, pid, sid, parent_upid, name, hierarchy, cmdline, start_ts, "
    "end_ts, exit_code, host) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";

class ProcessTable : public TableWriter {
 public:
  using TableWriter::TableWriter;

  absl::string_view Schema() const override { return kSchema; }
  absl::Status Prepare() override { return PrepareInsert(kInsert, &insert_); }
  std::vector<reader::EventKind> Kinds() const override {
    using reader::EventKind;
    return {EventKind::kStart, EventKind::kCmdName, EventKind::kExit, EventKind::kAtexit,
            EventKind::kSignal};
  }

  void OnEvent(const reader::Event& e, const reader::EventTracks& at) override {
    if (at.process >= processes_.size()) processes_.resize(at.process + 1);
    ProcessRow& row = processes_[at.process];
    switch (e.kind) {
      case reader::EventKind::kStart: {
        row.cmdline = CommandLineOf(e);
        const double ns = e.t_abs * 1e9;
        row.start_ts = LoadContext::Ns(e.time) - (std::fabs(ns) < 9.2e18 ? std::llround(ns) : 0);
        if (!e.argv.empty()) {
          const absl::string_view exe = e.argv[0];
          row.argv0 = std::string(exe.substr(exe.rfind('/') + 1));
        }
        break;
      }
      case reader::EventKind::kCmdName:
        row.name = std::string(e.cmd_name);
        if (e.cmd_hierarchy.has_value()) row.hierarchy = std::string(*e.cmd_hierarchy);
        break;
      case reader::EventKind::kExit:
      case reader::EventKind::kAtexit:
        row.exit_code = e.code;
        row.end_ts = LoadContext::Ns(e.time);
        break;
      case reader::EventKind::kSignal:
        row.exit_code = 128 + static_cast<int64_t>(e.signo);
        row.end_ts = LoadContext::Ns(e.time);
        break;
      default:
        break;
    }
  }

  void Finish() override {
    const reader::TrackModel& tracks = context().tracks();
    for (const reader::ProcessTrack& process : tracks.processes()) {
      const ProcessRow empty;
      const ProcessRow& row = process.index < processes_.size() ? processes_[process.index] : empty;
      const absl::string_view sid = process.sid;
      insert_.BindInt(1, LoadContext::Upid(process.index));
      if (std::optional<uint32_t> pid =
              reader::PidFromSidComponent(reader::SidLastComponent(sid))) {
        insert_.BindInt(2, int64_t{*pid});
      } else {
        insert_.BindNull(2);
      }
      insert_.BindText(3, sid);
      std::optional<int64_t> parent;
      if (const size_t slash = sid.rfind('/'); slash != absl::string_view::npos) {
        if (std::optional<uint32_t> p = tracks.FindProcess(sid.substr(0, slash))) {
          parent = LoadContext::Upid(*p);
        }
      }
      insert_.BindOptionalInt(4, parent);
      if (row.name.has_value()) {
        insert_.BindText(5, *row.name);
      } else {
        insert_.BindOptionalText(5, row.argv0);
      }
      insert_.BindOptionalText(6, row.hierarchy);
      insert_.BindOptionalText(7, row.cmdline);
      insert_.BindInt(8, row.start_ts.value_or(LoadContext::Ns(process.first_time)));
      insert_.BindInt(9, row.end_ts.value_or(LoadContext::Ns(process.last_time)));
      insert_.BindOptionalInt(10, row.exit_code);
      const absl::string_view host = HostOfSid(sid);
      if (host.empty()) {
        insert_.BindNull(11);
      } else {
        insert_.BindText(11, host);
      }
      insert_.Run();
    }
  }

 private:
  // What the events of one process told.
  struct ProcessRow {
    std::optional<std::string> name;
    std::optional<std::string> argv0;  // base name, the name if there is no cmd_name
    std::optional<std::string> hierarchy;
    std::optional<std::string> cmdline;
    std::optional<int64_t> start_ts;
    std::optional<int64_t> end_ts;
    std::optional<int64_t> exit_code;
  };
  RowInserter insert_;
  std::vector<ProcessRow> processes_;  // by process index
};

}  // namespace

std::unique_ptr<TableWriter> MakeProcessTable(LoadContext* context) {
  return std::make_unique<ProcessTable>(context);
}

}  // namespace tracewire::tools::query
