// Reader: the streaming trace reader. It pulls a trace from a ByteSource generation by
// generation (memory: one generation plus the live process state), validates it and
// yields semantic Trace2 events in time order.
//
//   auto reader = tracewire::reader::Reader::OpenFile("trace.twr");
//   while (true) {
//     absl::StatusOr<const Event*> event = (*reader)->Next();
//     if (!event.ok()) { /* report event.status() */ break; }
//     if (*event == nullptr) break;  // end of trace
//     Use(**event);
//   }
//
// Errors are absl::Status values whose message starts with the source name (if any) and
// names the generation, thread, event index and byte offset (see GenerationDecoder and
// FrameReader). Codes: OutOfRange = the input ends inside a generation (truncated),
// DataLoss = malformed or invalid data, Unimplemented = unsupported format version,
// ResourceExhausted = a generation above kMaxGenerationSize, others = I/O errors.
// Every event of every complete generation before the failing one is delivered before the
// error.
#ifndef TRACEWIRE_READER_READER_H_
#define TRACEWIRE_READER_READER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "reader/byte_source.h"
#include "reader/event.h"
#include "reader/frame_reader.h"
#include "reader/generation_decoder.h"
#include "reader/generation_info.h"
#include "reader/loss_report.h"
#include "reader/parallel_decoding.h"
#include "reader/process_state.h"

namespace tracewire::reader {

struct ReaderOptions {
  // Salvage mode: never fail. Deliver every complete generation that validates, skip a
  // generation that frames correctly but fails validation, resynchronise after bytes that
  // do not frame (a damaged or truncated generation, garbage, a bad file header) on the
  // next file header or generation boundary (FrameReader::Resync), read what follows as a
  // standalone suffix (live state is reset), and describe what was lost in loss_report().
  // Each generation is validated before any of its events is delivered, which costs a
  // second decoding pass.
  bool salvage = false;
  // Bytes requested from the source per read.
  size_t chunk_size = size_t{1} << 20;
  // Only count and validate: the events Next() returns have only kind, wire_type, gen,
  // sid, depth, thread_id and ticks set (GenerationDecoder::set_fill_events), which makes
  // reading cheaper for callers that look at nothing else. Validation is unchanged.
  bool count_only = false;
  // Parallel decoding across generations on these workers (reader/parallel_decoding.h);
  // nullptr: serial. Events, errors and the loss report are the same either way.
  std::shared_ptr<WorkerPool> parallel;
};

class Reader {
 public:
  // Reads from `source`. Nothing is read until the first Next().
  explicit Reader(std::unique_ptr<ByteSource> source, ReaderOptions options = {});

  // Opens the file at `path` ("-" = stdin).
  static absl::StatusOr<std::unique_ptr<Reader>> OpenFile(const std::string& path,
                                                          ReaderOptions options = {});

  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // The next event, nullptr at the end of the trace. The event and its views are valid
  // until the next call. After an error every further call returns the same error. In
  // salvage mode it never fails (errors go to loss_report()).
  absl::StatusOr<const Event*> Next() {
    if (ABSL_PREDICT_TRUE(decoding_)) {
      if (const Event* event = decoder_.Next(); ABSL_PREDICT_TRUE(event != nullptr)) {
        ++events_;
        return event;
      }
    }
    return NextSlow();
  }

  // Like Next() up to `max` times (max >= 1), without returning the events: the number
  // of events passed, all of one generation, whose process is then in *sid (valid like an
  // event's views); 0 at the end of the trace. Errors as Next(); an error after some
  // events comes at the next call.
  absl::StatusOr<uint64_t> SkipEvents(uint64_t max, absl::string_view* sid) {
    if (ABSL_PREDICT_TRUE(decoding_)) {
      uint64_t n = 0;
      // The events are not returned: decode them without filling them (cheaper).
      decoder_.set_fill_events(false);
      while (n < max && decoder_.Next() != nullptr) ++n;
      decoder_.set_fill_events(!options_.count_only);
      if (ABSL_PREDICT_TRUE(n > 0)) {
        events_ += n;
        *sid = decoder_.info().sid;
        return n;
      }
    }
    absl::StatusOr<const Event*> event = NextSlow();
    if (!event.ok()) return event.status();
    if (*event == nullptr) return 0;
    *sid = (*event)->sid;
    return 1;
  }

  // The generation the last event came from; nullptr before the first generation and for
  // events a parallel worker decoded.
  const GenerationInfo* generation() const { return decoding_ ? &decoder_.info() : nullptr; }

  // Format version from the file header (0 until read).
  uint32_t format_version() const { return version_; }

  // Events delivered so far.
  uint64_t events_delivered() const { return events_; }

  // Generations started so far: changes whenever Next() moves on to the events of another
  // generation (all the events of one generation have the same sid).
  uint64_t generations_started() const { return generations_started_; }

  // Calls `f(sid)` for every process whose generations were read, a generation without
  // events included (since the last resynchronisation in salvage mode).
  template <typename F>
  void ForEachProcess(F f) const {
    states_.ForEachSid(f);
  }

  // Salvage mode: what was lost; complete once Next() returned nullptr.
  const LossReport& loss_report() const { return report_; }

  // Source name used as the prefix of error messages (may be empty).
  const std::string& name() const { return name_; }

 private:
  // Next() after the current generation's events: errors, the next generation, the end.
  absl::StatusOr<const Event*> NextSlow();
  // Reads, checks and starts the next generation; false at the end of the trace.
  absl::StatusOr<bool> LoadGeneration();
  // After a framing error: in salvage mode, records the loss and resynchronises (true if
  // the trace goes on); otherwise returns the error.
  absl::StatusOr<bool> SalvageFraming(const absl::Status& status);
  // Handles an error: returns it, or in salvage mode records it and ends the read.
  absl::StatusOr<const Event*> Fail(const absl::Status& status, bool framing);
  absl::Status Named(const absl::Status& status) const;
  void FinishReport();

  std::unique_ptr<ByteSource> source_;
  ReaderOptions options_;
  std::string name_;
  FrameReader frames_;
  RawGeneration raw_;
  ProcessStates states_;
  GenerationDecoder decoder_;
  std::unique_ptr<GenerationDecoder> validator_;  // salvage mode
  std::unique_ptr<ParallelDecoding> parallel_;
  bool header_read_ = false;
  bool decoding_ = false;
  bool speculating_ = false;  // the current generation comes from parallel_
  bool done_ = false;
  bool start_failed_ = false;
  bool in_weak_resync_ = false;  // since a Resync() that did not resume at a file header
  absl::Status error_;
  uint32_t version_ = 0;
  uint64_t events_ = 0;
  uint64_t generations_started_ = 0;
  uint64_t skipped_bytes_ = 0;
  LossReport report_;
};

// True for the errors that blame the trace's bytes (OutOfRange, DataLoss, Unimplemented,
// ResourceExhausted), false for I/O errors of the source.
bool IsTraceError(const absl::Status& status);

// Number of Trace2 (and experimental) event records in the event batches of `gen`, for loss
// accounting: re-statements and stack references are not counted.
uint64_t CountEventRecords(const RawGeneration& gen);

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_READER_H_
