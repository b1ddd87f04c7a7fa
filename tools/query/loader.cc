#include "tools/query/loader.h"

#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tools/cli/event_loop.h"
#include "tools/cli/output_file.h"
#include "tools/cli/progress.h"
#include "tools/cli/trace_input.h"
#include "tools/query/table_list.h"

namespace tracewire::tools::query {
namespace {

// Events loaded per transaction: large enough that committing costs nothing per event.
constexpr uint64_t kEventsPerTransaction = uint64_t{1} << 22;

}  // namespace

// The track model's listener: keeps the context's ids, then calls the writers that asked.
class Loader::Dispatch : public reader::TrackListener {
 public:
  Dispatch(LoadContext* context, const std::vector<std::unique_ptr<TableWriter>>& writers)
      : context_(context) {
    for (const std::unique_ptr<TableWriter>& writer : writers) {
      all_.push_back(writer.get());
      if (writer->wants_slices()) slices_.push_back(writer.get());
      for (reader::EventKind kind : writer->Kinds()) {
        by_kind_[static_cast<size_t>(kind)].push_back(writer.get());
      }
    }
  }

  void OnProcessBegin(const reader::ProcessTrack& process, const reader::Event& first) {
    for (TableWriter* writer : all_) writer->OnProcessBegin(process, first);
  }
  void OnSliceBegin(const reader::Slice& slice, const reader::Event& e) {
    context_->BeginSlice(slice);
    for (TableWriter* writer : slices_) writer->OnSliceBegin(slice, e);
  }
  void OnSliceEnd(const reader::Slice& slice, const reader::SliceEnding& end) {
    const EndedSlice row = context_->EndSlice(slice, end);
    for (TableWriter* writer : slices_) writer->OnSliceEnd(slice, end, row);
  }
  void OnEvent(const reader::Event& e, const reader::EventTracks& at) {
    for (TableWriter* writer : by_kind_[static_cast<size_t>(e.kind)]) writer->OnEvent(e, at);
  }
  void OnSample(const reader::Event& e, const reader::SampleContext& at) {
    for (TableWriter* writer : by_kind_[static_cast<size_t>(e.kind)]) writer->OnSample(e, at);
  }

 private:
  LoadContext* context_;
  std::vector<TableWriter*> all_;
  std::vector<TableWriter*> slices_;
  std::array<std::vector<TableWriter*>, reader::kNumEventKinds> by_kind_;
};

Loader::Loader(SqliteDatabase* db)
    : db_(db), context_(db, &tracks_), writers_(MakeTableWriters(&context_)) {
  dispatch_ = std::make_unique<Dispatch>(&context_, writers_);
}

Loader::~Loader() = default;

absl::Status Loader::CreateSchema() {
  std::string schema;
  for (const std::unique_ptr<TableWriter>& writer : writers_)
    absl::StrAppend(&schema, writer->Schema());
  if (absl::Status s = db_->Execute(schema); !s.ok()) {
    return absl::InternalError(absl::StrCat("creating the schema: ", s.message()));
  }
  for (const std::unique_ptr<TableWriter>& writer : writers_) {
    if (absl::Status s = writer->Prepare(); !s.ok()) return s;
  }
  return db_->Execute("BEGIN");
}

absl::Status Loader::Commit(bool begin_again) {
  context_.FlushInserters();
  if (!db_->load_status().ok()) return db_->load_status();
  if (absl::Status s = db_->Execute(begin_again ? "COMMIT; BEGIN" : "COMMIT"); !s.ok()) {
    return absl::InternalError(absl::StrCat("committing: ", s.message()));
  }
  events_since_commit_ = 0;
  return absl::OkStatus();
}

absl::Status Loader::Load(const std::string& path, const LoadOptions& options,
                          LoadSummary* summary) {
  reader::ParallelOptions parallel;
  parallel.jobs = DecodingJobs(options.jobs);
  reader::ReaderOptions reader_options;
  reader_options.salvage = options.salvage;
  absl::StatusOr<std::unique_ptr<TraceInput>> input =
      TraceInput::Open(path, reader_options, /*keep_stdin=*/false, &parallel);
  if (!input.ok()) return input.status();
  if (!options.db_path.empty()) {
    if (absl::Status s = CheckOutputIsNotAnInput(options.db_path, (*input)->files()); !s.ok()) {
      return s;
    }
  }
  Progress progress("query");
  absl::Status commit_error;
  const absl::Status trace_error = ReadEvents(
      input->get(), &progress,
      [&](const reader::Event& event) {
        tracks_.Add(event, *dispatch_);
        if (++events_since_commit_ < kEventsPerTransaction) return true;
        commit_error = db_->load_status();
        if (commit_error.ok()) commit_error = Commit(/*begin_again=*/true);
        return commit_error.ok();
      },
      &summary->events);
  if (!commit_error.ok()) return commit_error;
  progress.Finish();
  if (!db_->load_status().ok()) return db_->load_status();
  if (!trace_error.ok()) return trace_error;
  if (options.salvage && ReportLosses("query", **input)) summary->lost = true;
  if (ReportSkippedFiles("query", **input)) summary->skipped = true;
  return absl::OkStatus();
}

absl::Status Loader::Finish() {
  tracks_.Finish(*dispatch_);
  context_.FlushInserters();
  for (const std::unique_ptr<TableWriter>& writer : writers_) writer->Finish();
  if (!db_->load_status().ok()) return db_->load_status();
  if (absl::Status s = Commit(/*begin_again=*/false); !s.ok()) return s;
  for (const std::unique_ptr<TableWriter>& writer : writers_) {
    if (absl::Status s = db_->Execute(writer->SessionSchema()); !s.ok()) {
      return absl::InternalError(absl::StrCat("creating the session's views: ", s.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace tracewire::tools::query
