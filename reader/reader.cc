#include "reader/reader.h"

#include <utility>

#include "absl/base/optimization.h"
#include "absl/strings/str_cat.h"
#include "format/constants.h"
#include "format/raw_decoder.h"
#include "format/raw_event.h"

namespace tracewire::reader {

bool IsTraceError(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kDataLoss:
    case absl::StatusCode::kUnimplemented:
    case absl::StatusCode::kResourceExhausted:
      return true;
    default:
      return false;
  }
}

uint64_t CountEventRecords(const RawGeneration& gen) {
  uint64_t count = 0;
  format::RawEvent raw;
  for (const Frame& frame : gen.frames) {
    if (frame.type != format::EventType::kEventBatch) continue;
    format::RecordDecoder decoder(frame.payload, frame.payload_offset, format::Scope::kEventBody,
                                  gen.version);
    while (true) {
      absl::StatusOr<bool> decoded = decoder.Next(&raw);
      if (!decoded.ok() || !*decoded) break;
      // Trace2 events and experimental ones; not re-statements or stack references, which
      // are never delivered as events.
      if (raw.spec == nullptr || !raw.spec->trace2_event.empty()) ++count;
    }
  }
  return count;
}

Reader::Reader(std::unique_ptr<ByteSource> source, ReaderOptions options)
    : source_(std::move(source)),
      options_(options),
      name_(source_->Name()),
      frames_(source_.get(), options.chunk_size) {
  decoder_.set_fill_events(!options_.count_only);
  if (options_.salvage) {
    validator_ = std::make_unique<GenerationDecoder>();
    validator_->set_fill_events(false);  // its events are not delivered
  }
  if (options_.parallel != nullptr) {
    parallel_ = std::make_unique<ParallelDecoding>(options_.parallel, options_.salvage);
  }
}

absl::StatusOr<std::unique_ptr<Reader>> Reader::OpenFile(const std::string& path,
                                                         ReaderOptions options) {
  absl::StatusOr<std::unique_ptr<ByteSource>> source = OpenFileSource(path);
  if (!source.ok()) return source.status();
  return std::make_unique<Reader>(std::move(*source), options);
}

absl::Status Reader::Named(const absl::Status& status) const {
  if (name_.empty()) return status;
  return absl::Status(status.code(), absl::StrCat(name_, ": ", status.message()));
}

absl::StatusOr<const Event*> Reader::NextSlow() {
  while (true) {
    if (speculating_) {
      if (const Event* event = parallel_->Next(); event != nullptr) {
        ++events_;
        return event;
      }
      speculating_ = false;
      events_ += parallel_->committed_events();
      if (parallel_->completed()) {
        ++report_.generations_delivered;
        continue;
      }
      // The worker's part ended early: decode the generation here, after the events
      // already delivered.
      if (absl::Status s = decoder_.Start(raw_, &states_); !s.ok()) {
        return Fail(s, /*framing=*/false);
      }
      for (uint64_t n = parallel_->delivered_events(); n > 0; --n) decoder_.Next();
      decoding_ = true;
    }
    if (decoding_) {
      const Event* event = decoder_.Next();
      if (event != nullptr) {
        ++events_;
        return event;
      }
      if (!decoder_.status().ok()) return Fail(decoder_.status(), /*framing=*/false);
      decoding_ = false;
      ++report_.generations_delivered;
    }
    if (done_) {
      if (!error_.ok()) return error_;
      return nullptr;
    }
    absl::StatusOr<bool> loaded = LoadGeneration();
    if (!loaded.ok()) return Fail(loaded.status(), /*framing=*/!start_failed_);
    if (!*loaded) {
      done_ = true;
      FinishReport();
      return nullptr;
    }
  }
}

absl::StatusOr<bool> Reader::LoadGeneration() {
  while (!header_read_) {
    absl::StatusOr<uint32_t> version = frames_.ReadHeader();
    if (version.ok()) {
      header_read_ = true;
      version_ = *version;
      break;
    }
    absl::StatusOr<bool> resynced = SalvageFraming(version.status());
    if (!resynced.ok()) return resynced.status();
    if (!*resynced) return false;
    if (!frames_.resumed_at_header()) {
      // Frames with no header before them: read them as this reader's format version.
      header_read_ = true;
      version_ = format::kFormatVersion;
    }
  }
  while (true) {
    absl::StatusOr<bool> more =
        parallel_ != nullptr ? parallel_->NextFramed(&frames_, &raw_) : frames_.Next(&raw_);
    if (!more.ok()) {
      absl::StatusOr<bool> resynced = SalvageFraming(more.status());
      if (!resynced.ok()) return resynced.status();
      if (!*resynced) return false;
      if (parallel_ != nullptr) parallel_->Resynchronized();
      continue;
    }
    if (!*more) return false;
    if (parallel_ != nullptr && parallel_->Begin(&states_)) {
      in_weak_resync_ = false;  // a generation that validates ends the resynchronisation
      speculating_ = true;
      ++generations_started_;
      return true;
    }
    if (options_.salvage) {
      ProcessStates trial = states_.Clone();
      absl::Status status = validator_->Start(raw_, &trial);
      if (status.ok()) {
        while (validator_->Next() != nullptr) {
        }
        status = validator_->status();
      }
      if (!status.ok()) {
        // Right after resuming at an inferred generation boundary, the generation may be
        // the rest of the damaged one: the same damage, already reported.
        if (!in_weak_resync_) {
          report_.errors.push_back(Named(status));
          ++report_.generations_lost;
        }
        report_.lost_events += CountEventRecords(raw_);
        skipped_bytes_ += raw_.file_bytes;
        states_ = ProcessStates();  // what follows is read as a standalone suffix
        continue;
      }
    }
    in_weak_resync_ = false;
    // In salvage mode this cannot fail: the same checks passed on the trial state.
    if (absl::Status s = decoder_.Start(raw_, &states_); !s.ok()) {
      start_failed_ = true;
      return s;
    }
    decoding_ = true;
    ++generations_started_;
    return true;
  }
}

absl::StatusOr<bool> Reader::SalvageFraming(const absl::Status& status) {
  // Strict mode, and I/O errors (nothing to resynchronise on): the read ends here.
  if (!options_.salvage || !IsTraceError(status)) return status;
  // A failure right after resuming at an inferred generation boundary means the boundary
  // was data that looked like one: the same damage goes on, already reported.
  if (!in_weak_resync_) {
    report_.errors.push_back(Named(status));
    report_.lost_events += frames_.CountPartialEvents();
    report_.lost_events_exact = false;
    ++report_.generations_lost;
  }
  absl::StatusOr<bool> resynced = frames_.Resync();
  if (!resynced.ok()) {
    if (!IsTraceError(resynced.status())) return resynced.status();
    report_.errors.push_back(Named(resynced.status()));  // gave up: the rest is lost
    return false;
  }
  // What follows the damage is read as a standalone suffix: live state is reset.
  if (*resynced) states_ = ProcessStates();
  in_weak_resync_ = *resynced && !frames_.resumed_at_header();
  return *resynced;
}

absl::StatusOr<const Event*> Reader::Fail(const absl::Status& status, bool framing) {
  decoding_ = false;
  done_ = true;
  if (!options_.salvage) {
    error_ = Named(status);
    return error_;
  }
  report_.errors.push_back(Named(status));
  if (framing) {
    report_.lost_events += frames_.CountPartialEvents();
    report_.lost_events_exact = false;
    if (header_read_) ++report_.generations_lost;
  } else {
    ++report_.generations_lost;
  }
  FinishReport();
  return nullptr;
}

void Reader::FinishReport() {
  absl::StatusOr<uint64_t> total = frames_.TotalSize();
  report_.delivered_bytes = frames_.complete_bytes() - skipped_bytes_;
  const uint64_t seen = frames_.complete_bytes() + frames_.skipped_bytes();
  report_.total_bytes = total.ok() ? std::max(*total, seen) : seen;
  report_.lost_bytes = report_.total_bytes - report_.delivered_bytes;
  report_.lost_percent = report_.total_bytes == 0
                             ? 0
                             : 100.0 * static_cast<double>(report_.lost_bytes) /
                                   static_cast<double>(report_.total_bytes);
  if (!total.ok()) report_.errors.push_back(Named(total.status()));
}

}  // namespace tracewire::reader
