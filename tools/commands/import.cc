#include "tools/commands/import.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "tools/cli/exit_codes.h"
#include "tools/cli/output_file.h"
#include "tools/cli/progress.h"
#include "tools/commands/import_outcome.h"
#include "tools/trace2_import/imported_trace_check.h"

namespace tracewire::tools {
namespace {

// Splits a byte stream into lines, holding one line (and one read chunk) at a time.
class LineReader {
 public:
  // Reserves room for the longest line once: address space only (pages are touched as
  // bytes arrive), and a long line is never copied while the buffer grows.
  explicit LineReader(reader::ByteSource* source) : source_(source) { buf_.reserve(kMaxBuffer); }

  // The next line without its '\n' (valid until the next call), nullopt at the end. A line
  // above kMaxTrace2LineBytes is an InvalidArgument error naming it.
  absl::StatusOr<std::optional<absl::string_view>> Next() {
    size_t scanned = pos_;  // no '\n' in [pos_, scanned)
    while (true) {
      const absl::string_view data(buf_.data(), len_);
      const size_t newline = data.find('\n', scanned);
      if (newline != absl::string_view::npos) {
        const absl::string_view line = data.substr(pos_, newline - pos_);
        pos_ = newline + 1;
        ++line_;
        return line;
      }
      scanned = len_;
      if (len_ - pos_ > kMaxTrace2LineBytes) {
        return absl::InvalidArgumentError(absl::StrCat("line ", line_ + 1, ": longer than ",
                                                       kMaxTrace2LineBytes,
                                                       " bytes (not a Trace2 EVENT stream?)"));
      }
      if (eof_) {
        if (pos_ == len_) return std::nullopt;
        const absl::string_view line = data.substr(pos_);
        pos_ = len_;
        ++line_;
        return line;
      }
      // Drop the lines already returned, then read more (buf_ only grows: no zero-fill
      // per read).
      std::memmove(buf_.data(), buf_.data() + pos_, len_ - pos_);
      len_ -= pos_;
      scanned -= pos_;
      pos_ = 0;
      if (buf_.size() - len_ < kChunk / 2) {
        buf_.resize(std::min(std::max(2 * buf_.size(), len_ + kChunk), kMaxBuffer));
      }
      absl::StatusOr<size_t> n = source_->Read(buf_.data() + len_, buf_.size() - len_);
      if (!n.ok()) return n.status();
      len_ += *n;
      bytes_ += *n;
      if (*n == 0) eof_ = true;
    }
  }

  uint64_t bytes() const { return bytes_; }

 private:
  static constexpr size_t kChunk = size_t{1} << 20;
  static constexpr size_t kMaxBuffer = kMaxTrace2LineBytes + 2 * kChunk;
  reader::ByteSource* source_;
  std::string buf_;  // buf_[pos_, len_) are unread bytes
  size_t len_ = 0;
  size_t pos_ = 0;
  uint64_t bytes_ = 0;
  uint64_t line_ = 0;
  bool eof_ = false;
};

}  // namespace

int Import(const std::string& input, const std::string& output, ImportOptions options) {
  absl::StatusOr<std::unique_ptr<reader::ByteSource>> source = reader::OpenFileSource(input);
  if (!source.ok()) {
    std::fprintf(stderr, "tracewire import: %s\n", std::string(source.status().message()).c_str());
    return kExitUsage;
  }
  return Import(std::move(*source), input, output, std::move(options));
}

int Import(std::unique_ptr<reader::ByteSource> opened, const std::string& input,
           const std::string& output, ImportOptions options) {
  std::unique_ptr<reader::ByteSource>* source = &opened;
  absl::StatusOr<std::unique_ptr<OutputFile>> out = OutputFile::Open(output, {input});
  if (!out.ok()) {
    std::fprintf(stderr, "tracewire import: %s\n", std::string(out.status().message()).c_str());
    return kExitUsage;
  }
  const std::optional<uint64_t> total = (*source)->Size();
  LineReader lines(source->get());
  Progress progress("import", "lines");
  options.progress = [&](uint64_t bytes, uint64_t count) {
    progress.Report(lines.bytes(), total, count);
  };
  Trace2Importer importer(options);

  // The trace is produced as the reader pulls it: each chunk is written out and validated
  // (memory: the importer's window and the reader's generation). A failure of the input
  // or of the importer ends the chunks; the reader then stops too.
  absl::Status input_error;   // reading the input or writing the output
  absl::Status import_error;  // the stream is not a valid EVENT stream
  std::string chunk;
  bool done = false;
  auto next_chunk = [&]() -> absl::StatusOr<absl::string_view> {
    chunk.clear();
    while (chunk.empty() && !done) {
      absl::StatusOr<std::optional<absl::string_view>> line = lines.Next();
      if (!line.ok()) {
        (absl::IsInvalidArgument(line.status()) ? import_error : input_error) = line.status();
        done = true;
      } else if (!line->has_value()) {
        import_error = importer.Finish();
        done = true;
      } else {
        import_error = importer.AddLine(**line);
        done = !import_error.ok();
      }
      if (!import_error.ok() || !input_error.ok()) return absl::string_view();
      importer.TakeOutput(&chunk);
    }
    out->get()->buffer()->append(chunk);
    if (absl::Status s = (*out)->MaybeFlush(); !s.ok()) {
      input_error = s;
      done = true;
      return absl::string_view();
    }
    return absl::string_view(chunk);
  };
  reader::Reader check(reader::ChunkSource(next_chunk, "imported trace"));
  const absl::Status check_error = ReadToEnd(&check);
  progress.Finish();
  return FinishImport(input,
                      {.output_error = input_error,
                       .import_error = import_error,
                       .import_exit = kExitInvalid,
                       .check_error = check_error},
                      **out);
}

}  // namespace tracewire::tools
