#include "tools/commands/decode_output.h"

#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"

namespace tracewire::tools {

absl::StatusOr<std::unique_ptr<DecodeOutput>> DecodeOutput::Open(
    const DecodeOptions& options, absl::Span<const std::string> inputs) {
  std::unique_ptr<DecodeOutput> out(new DecodeOutput());
  const bool export_otlp = !options.otlp.endpoint.empty();
  if (export_otlp) {
    if (options.format != "otlp") {
      return absl::InvalidArgumentError("--otlp-endpoint needs --format=otlp");
    }
    absl::StatusOr<std::unique_ptr<OtlpHttpExporter>> exporter =
        OtlpHttpExporter::Create(options.otlp);
    if (!exporter.ok()) return exporter.status();
    out->exporter_ = std::move(*exporter);
    out->sender_ = std::make_unique<OtlpSender>(*out->exporter_, [](const std::string& line) {
      std::fprintf(stderr, "tracewire decode: %s\n", line.c_str());
    });
  }
  if (!export_otlp || !options.output.empty()) {
    absl::StatusOr<std::unique_ptr<OutputFile>> file = OutputFile::Open(options.output, inputs);
    if (!file.ok()) return file.status();
    out->file_ = std::move(*file);
  }
  if (options.format == "perfetto" && out->file_ != nullptr) {
    out->compressor_ = std::make_unique<targets::PacketCompressor>();
  }
  return out;
}

absl::Status DecodeOutput::Commit() {
  if (compressor_ != nullptr) {
    compressor_->MaybeFlush(file_->buffer());
    return file_->MaybeFlush();
  }
  if (sender_ == nullptr) return file_->MaybeFlush();
  if (!buffer_.empty()) sender_->Add(buffer_);
  if (file_ != nullptr) {
    file_->buffer()->append(buffer_);
    buffer_.clear();
    return file_->MaybeFlush();
  }
  buffer_.clear();
  return absl::OkStatus();
}

absl::Status DecodeOutput::Write(absl::string_view text) {
  if (compressor_ != nullptr) {
    compressor_->pending()->append(text.data(), text.size());
    return Commit();
  }
  if (sender_ == nullptr) return file_->Write(text);
  buffer_.append(text.data(), text.size());
  return Commit();
}

absl::Status DecodeOutput::Flush() {
  if (compressor_ != nullptr) compressor_->Flush(file_->buffer());
  absl::Status status = Commit();
  if (sender_ != nullptr) sender_->Flush();
  if (file_ != nullptr && status.ok()) status = file_->Flush();
  return status;
}

absl::Status DecodeOutput::Close() {
  absl::Status status = Flush();
  if (file_ != nullptr) {
    if (absl::Status s = file_->Close(); status.ok()) status = s;
  }
  return status;
}

bool DecodeOutput::ReportExport() {
  if (sender_ == nullptr) return true;
  const OtlpTotals& t = sender_->totals();
  if (t.complete()) return true;
  std::string message =
      absl::StrCat("tracewire decode: not delivered to ", exporter_->url(), ": ", t.failed_spans,
                   " of ", t.spans + t.failed_spans, " spans (", t.failed_requests, " of ",
                   t.requests + t.failed_requests, " requests)");
  if (t.rejected_spans > 0) {
    absl::StrAppend(&message, "; rejected by the receiver: ", t.rejected_spans, " spans");
  }
  std::fprintf(stderr, "%s\n", message.c_str());
  return false;
}

}  // namespace tracewire::tools
