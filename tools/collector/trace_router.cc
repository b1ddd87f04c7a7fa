#include "tools/collector/trace_router.h"

#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/constants.h"
#include "format/file_header.h"

namespace tracewire::tools {
namespace {

// The first bytes of a stream, for messages about what a client sent.
std::string Preview(absl::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes.substr(0, 16)) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppendFormat(&out, "\\x%02x", c);
    }
  }
  return out;
}

}  // namespace

TraceRouter::TraceRouter(const CollectorOptions& options, CollectorCounters& counters,
                         RateLimitedLog& log)
    : options_(options),
      counters_(counters),
      log_(log),
      store_(options.out_dir),
      file_header_(format::EncodeFileHeader(format::kFormatVersion)) {}

bool TraceRouter::Drain(GenerationSplitter& splitter, UnreportedSids& unreported,
                        absl::string_view received) {
  while (true) {
    absl::StatusOr<std::optional<SplitGeneration>> gen = splitter.Next();
    if (!gen.ok()) {
      // What was pending is lost with the stream.
      if (absl::IsResourceExhausted(gen.status())) {
        MemoryLimitHit(absl::StrCat("a stream (", gen.status().message(), ")"));
      } else {
        ++counters_.stream_errors;
        Log(absl::StrCat("a stream dropped: ", gen.status().message(), " (received \"",
                         Preview(received),
                         "\"; listen takes the tracewire runtime's "
                         "af_unix targets and git's GIT_TRACE2_EVENT=af_unix:…)"));
      }
      return false;
    }
    if (!gen->has_value()) return true;
    Store(**gen, unreported);
  }
}

void TraceRouter::Store(const SplitGeneration& gen, UnreportedSids& unreported) {
  if (gen.sid.empty()) {
    ++counters_.invalid_generations;
    return;
  }
  // The generation's own format version: a stream of an older writer stays readable.
  const std::string older_header =
      gen.version == format::kFormatVersion ? std::string() : format::EncodeFileHeader(gen.version);
  if (!Write(gen.sid, older_header.empty() ? file_header_ : older_header, gen.frames)) return;
  ++counters_.generations_written;
  if (!options_.on_process_complete) return;
  const absl::StatusOr<bool> ends =
      GenerationEndsProcess(gen.frames, options_.max_generation_size, gen.version);
  if (ends.ok() && *ends) {
    unreported.erase(gen.sid);
    Complete(gen.sid);
  } else {
    unreported.insert(gen.sid);
  }
}

bool TraceRouter::Write(const std::string& sid, absl::string_view first, absl::string_view second) {
  const absl::Status status = store_.Append(sid, first, second);
  if (!status.ok()) {
    if (absl::IsFailedPrecondition(status)) {
      ++counters_.unsafe_files;
    } else {
      ++counters_.write_errors;
    }
    Log(std::string(status.message()));
    return false;
  }
  counters_.bytes_written += first.size() + second.size();
  return true;
}

void TraceRouter::Complete(const std::string& sid) {
  if (options_.on_process_complete) options_.on_process_complete({sid, store_.FileFor(sid)});
}

void TraceRouter::ReportAll(UnreportedSids& unreported) {
  for (const std::string& sid : unreported) Complete(sid);
  unreported.clear();
}

void TraceRouter::StoreCompletedGit(Trace2EventStream* stream) {
  if (stream == nullptr) return;
  for (Trace2EventStream::Completed& done : stream->TakeCompleted()) {
    if (!done.trace.ok()) {
      ++counters_.git_invalid;
      Log(absl::StrCat("git process ", done.sid, " (", done.lines,
                       " EVENT lines) not converted: ", done.trace.status().message()));
      continue;
    }
    if (!Write(done.sid, *done.trace, "")) continue;
    ++counters_.git_processes;
    Complete(done.sid);
  }
}

void TraceRouter::MemoryLimitHit(const std::string& what) {
  ++counters_.memory_limit_drops;
  Log(absl::StrCat(what, " dropped: over the memory limit (", options_.max_generation_size,
                   " bytes per connection, ", options_.max_total_buffered, " in all)"));
}

}  // namespace tracewire::tools
