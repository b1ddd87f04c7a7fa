#include "tools/cli/trace_input.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <sstream>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "reader/byte_source.h"
#include "tools/go_import/go_generation.h"
#include "tools/go_import/go_trace_source.h"

namespace tracewire::tools {
namespace {

// Counts the bytes its source delivers into a shared counter.
class CountingSource : public reader::ByteSource {
 public:
  CountingSource(std::unique_ptr<reader::ByteSource> source, std::shared_ptr<uint64_t> counter)
      : source_(std::move(source)), counter_(std::move(counter)) {}

  absl::StatusOr<size_t> Read(char* buffer, size_t size) override {
    absl::StatusOr<size_t> n = source_->Read(buffer, size);
    if (n.ok()) *counter_ += *n;
    return n;
  }
  std::optional<uint64_t> Size() const override { return source_->Size(); }
  std::string Name() const override { return source_->Name(); }

 private:
  std::unique_ptr<reader::ByteSource> source_;
  std::shared_ptr<uint64_t> counter_;
};

}  // namespace

int DecodingJobs(int jobs) {
  if (jobs > 0) return jobs;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

bool IsIoError(const absl::Status& status) { return !status.ok() && !reader::IsTraceError(status); }

absl::StatusOr<std::vector<std::string>> TraceFilesOf(const std::string& path) {
  std::error_code error;
  if (path == "-" || !std::filesystem::is_directory(path, error)) return std::vector{path};
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(path, error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code type_error;
    if (!entry.is_regular_file(type_error)) continue;
    files.push_back(entry.path().string());
  }
  if (error) {
    return absl::UnknownError(absl::StrCat(path, ": cannot list the directory: ", error.message()));
  }
  if (files.empty()) {
    return absl::NotFoundError(absl::StrCat(path, ": the directory holds no trace file"));
  }
  std::sort(files.begin(), files.end());
  return files;
}

absl::StatusOr<std::unique_ptr<TraceInput>> TraceInput::Open(
    const std::string& path, reader::ReaderOptions options, bool keep_stdin,
    const reader::ParallelOptions* parallel) {
  std::unique_ptr<TraceInput> input(new TraceInput());
  std::error_code error;
  const bool directory = path != "-" && std::filesystem::is_directory(path, error);
  // The merge of a directory orders the events by their wall time.
  if (directory) options.count_only = false;
  if (parallel != nullptr && parallel->jobs >= 2) {
    reader::ParallelOptions workers = *parallel;
    if (directory) {
      workers.make_work = nullptr;
      workers.commit = nullptr;
      workers.count_only = false;
    } else if (workers.commit) {
      workers.commit = [input = input.get(),
                        commit = std::move(workers.commit)](reader::CommittedBlock block) {
        if (block.events > 0) input->NoteSid(block.sid);
        commit(std::move(block));
      };
    }
    options.parallel = std::make_shared<reader::WorkerPool>(std::move(workers));
  }
  absl::StatusOr<std::vector<std::string>> files = TraceFilesOf(path);
  if (!files.ok()) return files.status();
  input->files_ = std::move(*files);
  input->salvage_ = options.salvage;
  if (directory) {
    input->pool_ = std::make_unique<reader::FileSourcePool>();
  } else if (path == "-" && keep_stdin) {
    std::ostringstream buffer;
    buffer << std::cin.rdbuf();
    input->stdin_copy_ = buffer.str();
    input->stdin_kept_ = true;
  }
  uint64_t total = 0;
  bool total_known = true;
  std::vector<std::unique_ptr<reader::Reader>> readers;
  input->skipped_files_.assign(input->files_.size(), false);
  for (size_t i = 0; i < input->files_.size(); ++i) {
    absl::StatusOr<std::unique_ptr<reader::ByteSource>> source = input->Reopen(i);
    if (!source.ok()) {
      if (!directory) return source.status();
      // One file that cannot be opened does not hide the others.
      input->skipped_.push_back(SkippedFile{input->files_[i], source.status(), 0});
      input->skipped_files_[i] = true;
      continue;
    }
    const std::optional<uint64_t> size = (*source)->Size();
    if (size.has_value()) {
      total += *size;
    } else {
      total_known = false;
    }
    auto reader = std::make_unique<reader::Reader>(
        std::make_unique<CountingSource>(std::move(*source), input->bytes_read_), options);
    input->readers_.push_back(reader.get());
    input->reader_files_.push_back(i);
    readers.push_back(std::move(reader));
  }
  if (total_known) input->total_bytes_ = total;
  if (readers.size() == 1 && !directory) {
    input->single_ = std::move(readers[0]);
  } else {
    input->pending_ = std::move(readers);
  }
  return input;
}

absl::StatusOr<std::unique_ptr<reader::ByteSource>> TraceInput::Reopen(size_t index) const {
  const std::string& file = files_[index];
  // A Go execution trace is read as the tracewire trace it converts into.
  if (file == "-" && stdin_kept_) {
    if (go_trace::LooksLikeGoTrace(stdin_copy_)) {
      return go_trace::ConvertedGoTrace(stdin_copy_, "<stdin>", salvage_);
    }
    return reader::MemorySource(stdin_copy_, "<stdin>");
  }
  if (file == "-") {
    absl::StatusOr<std::unique_ptr<reader::ByteSource>> in = reader::OpenFileSource(file);
    if (!in.ok()) return in.status();
    return go_trace::DetectGoTrace(std::move(*in), salvage_);
  }
  if (go_trace::IsGoTraceFile(file)) return go_trace::OpenGoTraceFile(file, salvage_);
  if (pool_ != nullptr) return pool_->Open(file);
  return reader::OpenFileSource(file);
}

void TraceInput::NoteSid(absl::string_view sid) {
  if ((sids_.empty() || sids_.back() != sid) &&
      std::find(sids_.begin(), sids_.end(), sid) == sids_.end()) {
    sids_.emplace_back(sid);
  }
}

absl::StatusOr<const reader::Event*> TraceInput::Next() {
  if (closed_processes_.has_value()) return nullptr;
  if (single_ != nullptr) {
    absl::StatusOr<const reader::Event*> event = single_->Next();
    // The events of a generation share its process: note it once per generation.
    if (event.ok() && *event != nullptr && single_->generations_started() != noted_generation_) {
      noted_generation_ = single_->generations_started();
      NoteSid((*event)->sid);
    }
    return event;
  }
  if (tree_ == nullptr) {
    reader::ProcessTreeOptions tree_options;
    tree_options.skip_failed_inputs = true;  // pending_ holds the files of a directory
    absl::StatusOr<std::unique_ptr<reader::ProcessTreeReader>> tree =
        reader::ProcessTreeReader::Create(std::move(pending_), tree_options);
    if (!tree.ok()) {
      readers_.clear();  // Create destroyed them
      return tree.status();
    }
    tree_ = std::move(*tree);
  }
  absl::StatusOr<const reader::Event*> event = tree_->Next();
  if (tree_->skipped().size() != tree_skipped_seen_) CollectSkipped();
  return event;
}

void TraceInput::CollectSkipped() {
  const std::vector<reader::SkippedInput>& skipped = tree_->skipped();
  for (; tree_skipped_seen_ < skipped.size(); ++tree_skipped_seen_) {
    const reader::SkippedInput& input = skipped[tree_skipped_seen_];
    const size_t file = reader_files_[input.input];
    skipped_files_[file] = true;
    skipped_.push_back(SkippedFile{files_[file], input.status, input.events_delivered});
  }
}

std::vector<SkippedFile> TraceInput::SkippedFiles() const { return skipped_; }

bool TraceInput::skipped(size_t index) const {
  return index < skipped_files_.size() && skipped_files_[index];
}

bool ReportSkippedFiles(absl::string_view command, const TraceInput& input) {
  const std::vector<SkippedFile> skipped = input.SkippedFiles();
  for (const SkippedFile& file : skipped) {
    if (file.events_delivered == 0) {
      std::fprintf(stderr, "tracewire %s: skipped a file: %s\n", std::string(command).c_str(),
                   std::string(file.status.message()).c_str());
    } else {
      std::fprintf(stderr, "tracewire %s: skipped the rest of a file after %llu events: %s\n",
                   std::string(command).c_str(),
                   static_cast<unsigned long long>(file.events_delivered),
                   std::string(file.status.message()).c_str());
    }
  }
  if (!skipped.empty()) {
    std::fprintf(stderr, "tracewire %s: %zu of %zu files could not be read; the others were read\n",
                 std::string(command).c_str(), skipped.size(), input.files().size());
  }
  return !skipped.empty();
}

absl::StatusOr<uint64_t> TraceInput::SkipEvents(uint64_t max) {
  if (closed_processes_.has_value()) return 0;
  if (single_ != nullptr) {
    absl::string_view sid;
    absl::StatusOr<uint64_t> n = single_->SkipEvents(max, &sid);
    if (n.ok() && *n > 0 && single_->generations_started() != noted_generation_) {
      noted_generation_ = single_->generations_started();
      NoteSid(sid);
    }
    return n;
  }
  // A directory: the merge delivers one event at a time.
  absl::StatusOr<const reader::Event*> event = Next();
  if (!event.ok()) return event.status();
  return *event == nullptr ? 0 : 1;
}

std::vector<std::pair<std::string, reader::LossReport>> TraceInput::LossReports() const {
  std::vector<std::pair<std::string, reader::LossReport>> reports;
  for (size_t i = 0; i < readers_.size(); ++i) {
    if (!readers_[i]->loss_report().clean()) {
      reports.emplace_back(files_[reader_files_[i]], readers_[i]->loss_report());
    }
  }
  return reports;
}

uint64_t TraceInput::generations() const {
  uint64_t total = 0;
  for (const reader::Reader* reader : readers_)
    total += reader->loss_report().generations_delivered;
  return total;
}

size_t TraceInput::num_processes() const {
  if (closed_processes_.has_value()) return *closed_processes_;
  // The processes of the events, and those whose generations hold none (a generation
  // written before any event, e.g. cut inside tw_initialize).
  absl::flat_hash_set<std::string> sids;
  if (tree_ != nullptr) {
    for (const reader::ProcessNode& node : tree_->processes()) sids.insert(node.sid);
  } else {
    sids.insert(sids_.begin(), sids_.end());
  }
  for (const reader::Reader* reader : readers_) {
    reader->ForEachProcess([&](absl::string_view sid) { sids.emplace(sid); });
  }
  return sids.size();
}

void TraceInput::CloseReaders() {
  closed_processes_ = num_processes();
  if (tree_ != nullptr) CollectSkipped();
  readers_.clear();
  tree_.reset();
  pending_.clear();
  single_.reset();
}

}  // namespace tracewire::tools
