#include "tools/go_import/go_trace_source.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tools/go_import/go_generation.h"
#include "tools/go_import/go_import.h"

namespace tracewire::go_trace {
namespace {

// The error of a conversion, as readers report it (a fault of the trace, named so).
absl::Status Wrapped(const absl::Status& status) {
  return absl::Status(status.code(), absl::StartsWith(status.message(), "Go execution trace")
                                         ? std::string(status.message())
                                         : absl::StrCat("Go execution trace: ", status.message()));
}

// The tracewire trace converted from a Go trace as it is read: a generation is converted
// when the reader has taken the previous one (GoImporter), so that memory stays bounded by
// a generation. If the conversion fails, the read that needed it fails with its error, so
// that readers report it where they report damage of the trace.
class ConvertingSource : public reader::ByteSource {
 public:
  ConvertingSource(absl::StatusOr<std::unique_ptr<GoImporter>> importer, std::string name)
      : name_(std::move(name)) {
    if (importer.ok()) {
      importer_ = std::move(*importer);
    } else {
      status_ = Wrapped(importer.status());
    }
  }
  absl::StatusOr<size_t> Read(char* buffer, size_t size) override {
    while (pos_ == out_.size()) {
      if (!status_.ok()) return status_;
      if (done_) return 0;
      out_.clear();
      pos_ = 0;
      absl::StatusOr<bool> more = importer_->Next(&out_);
      if (!more.ok()) {
        status_ = Wrapped(more.status());
      } else if (!*more) {
        done_ = true;
        for (const std::string& damage : importer_->damage()) {
          std::fprintf(stderr, "tracewire: %s: Go execution trace: lost: %s\n", name_.c_str(),
                       damage.c_str());
        }
      }
    }
    const size_t n = std::min(size, out_.size() - pos_);
    std::memcpy(buffer, out_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  std::string Name() const override { return name_; }

 private:
  std::unique_ptr<GoImporter> importer_;
  std::string name_;
  absl::Status status_;
  std::string out_;  // the converted generation being read
  size_t pos_ = 0;
  bool done_ = false;
};

// The bytes read to look at a stream's start, then the rest of the stream.
class PrefixedSource : public reader::ByteSource {
 public:
  PrefixedSource(std::string prefix, std::unique_ptr<reader::ByteSource> rest)
      : prefix_(std::move(prefix)), rest_(std::move(rest)) {}
  absl::StatusOr<size_t> Read(char* buffer, size_t size) override {
    if (pos_ < prefix_.size()) {
      const size_t n = std::min(size, prefix_.size() - pos_);
      std::memcpy(buffer, prefix_.data() + pos_, n);
      pos_ += n;
      return n;
    }
    return rest_->Read(buffer, size);
  }
  std::optional<uint64_t> Size() const override { return rest_->Size(); }
  std::string Name() const override { return rest_->Name(); }

 private:
  std::string prefix_;
  size_t pos_ = 0;
  std::unique_ptr<reader::ByteSource> rest_;
};

}  // namespace

bool IsGoTraceFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[5] = {};
  if (!in.read(head, sizeof(head))) return false;
  return LooksLikeGoTrace(absl::string_view(head, sizeof(head)));
}

absl::StatusOr<std::unique_ptr<reader::ByteSource>> ConvertedGoTrace(std::string bytes,
                                                                     const std::string& name,
                                                                     bool salvage) {
  GoImportOptions options;
  options.salvage = salvage;
  return std::make_unique<ConvertingSource>(GoImporter::Open(std::move(bytes), options), name);
}

absl::StatusOr<std::unique_ptr<reader::ByteSource>> PeekGoTrace(
    std::unique_ptr<reader::ByteSource> source, bool* is_go) {
  constexpr size_t kLook = 5;  // "go 1."
  std::string head;
  char chunk[kLook];
  while (head.size() < kLook) {
    absl::StatusOr<size_t> n = source->Read(chunk, kLook - head.size());
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    head.append(chunk, *n);
  }
  *is_go = head.size() == kLook && LooksLikeGoTrace(head);
  return std::make_unique<PrefixedSource>(std::move(head), std::move(source));
}

absl::StatusOr<std::string> ReadWhole(reader::ByteSource* source) {
  std::string bytes;
  char chunk[1 << 16];
  while (true) {
    absl::StatusOr<size_t> n = source->Read(chunk, sizeof(chunk));
    if (!n.ok()) return n.status();
    if (*n == 0) return bytes;
    bytes.append(chunk, *n);
  }
}

absl::StatusOr<std::unique_ptr<reader::ByteSource>> DetectGoTrace(
    std::unique_ptr<reader::ByteSource> source, bool salvage, bool* is_go) {
  bool go = false;
  absl::StatusOr<std::unique_ptr<reader::ByteSource>> peeked = PeekGoTrace(std::move(source), &go);
  if (!peeked.ok()) return peeked.status();
  if (is_go != nullptr) *is_go = go;
  if (!go) return peeked;
  const std::string name = (*peeked)->Name();
  GoImportOptions options;
  options.salvage = salvage;
  return std::make_unique<ConvertingSource>(GoImporter::Open(std::move(*peeked), options), name);
}

absl::StatusOr<std::unique_ptr<reader::ByteSource>> OpenGoTraceFile(const std::string& path,
                                                                    bool salvage) {
  absl::StatusOr<std::unique_ptr<reader::ByteSource>> file = reader::OpenFileSource(path);
  if (!file.ok()) return file.status();
  GoImportOptions options;
  options.salvage = salvage;
  return std::make_unique<ConvertingSource>(GoImporter::Open(std::move(*file), options), path);
}

}  // namespace tracewire::go_trace
