// DecodeOutput: where `tracewire decode` writes what its formatter produces: a file (or
// stdout), an OTLP/HTTP receiver (--otlp-endpoint, with the otlp format), or both. The
// perfetto format's packets go to the file in zlib-compressed chunks (compressed_packets,
// as Perfetto's service writes them).
//
//   auto out = DecodeOutput::Open(options);
//   formatter->Write(event, (*out)->buffer());
//   if (absl::Status s = (*out)->Commit(); !s.ok()) …   // after each Write
//   …
//   absl::Status s = (*out)->Close();      // write errors
//   bool delivered = (*out)->ReportExport();  // what the receiver did not get, on stderr
#ifndef TRACEWIRE_TOOLS_COMMANDS_DECODE_OUTPUT_H_
#define TRACEWIRE_TOOLS_COMMANDS_DECODE_OUTPUT_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "reader/targets/perfetto/packet_compressor.h"
#include "tools/cli/output_file.h"
#include "tools/commands/decode.h"
#include "tools/otlp/otlp_http_exporter.h"
#include "tools/otlp/otlp_sender.h"

namespace tracewire::tools {

class DecodeOutput {
 public:
  // The file output unless options.otlp.endpoint is set without options.output; the
  // OTLP/HTTP export if the endpoint is set. Errors: the file cannot be opened, the
  // endpoint is not usable, the file is one of `inputs` (see CheckOutputIsNotAnInput).
  static absl::StatusOr<std::unique_ptr<DecodeOutput>> Open(
      const DecodeOptions& options, absl::Span<const std::string> inputs = {});

  // The buffer the formatter appends to (complete lines only): the file's own buffer when
  // there is no export, so that text is not copied twice.
  std::string* buffer() {
    if (compressor_ != nullptr) return compressor_->pending();
    return sender_ == nullptr ? file_->buffer() : &buffer_;
  }
  // Hands what the buffer holds to the file and the export (sending full requests).
  absl::Status Commit();
  // Commit, then hands `text` (complete lines) to the file and the export; the file
  // writes it without copying it into its buffer.
  absl::Status Write(absl::string_view text);
  // Commit, then write the file through and send whatever is batched (for --follow,
  // before waiting for the trace to grow).
  absl::Status Flush();
  // Flush, then close the file; returns the file's write errors.
  absl::Status Close();

  // With an export: prints on stderr what was not delivered (and partial rejections were
  // logged as they happened); true if everything was delivered, or there is no export.
  bool ReportExport();

 private:
  DecodeOutput() = default;

  std::string buffer_;
  std::unique_ptr<OutputFile> file_;
  std::unique_ptr<OtlpHttpExporter> exporter_;
  std::unique_ptr<OtlpSender> sender_;
  std::unique_ptr<targets::PacketCompressor> compressor_;  // perfetto: the packets to compress
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_DECODE_OUTPUT_H_
