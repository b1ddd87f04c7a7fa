#include "tools/go_import/go_trace_source.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tools/go_import/go_generation.h"
#include "tools/go_import/go_import.h"

namespace tracewire::go_trace {
namespace {

// A byte source over a string it owns.
class OwnedSource : public reader::ByteSource {
 public:
  OwnedSource(std::string bytes, std::string name)
      : bytes_(std::move(bytes)), name_(std::move(name)) {}
  absl::StatusOr<size_t> Read(char* buffer, size_t size) override {
    const size_t n = std::min(size, bytes_.size() - pos_);
    std::memcpy(buffer, bytes_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  std::optional<uint64_t> Size() const override { return bytes_.size(); }
  std::string Name() const override { return name_; }

 private:
  std::string bytes_;
  std::string name_;
  size_t pos_ = 0;
};

// A source whose first read fails with the conversion's error, so that the reader reports
// it where it reports damage (a trace error, not a failure to open the file).
class FailedSource : public reader::ByteSource {
 public:
  FailedSource(absl::Status status, std::string name)
      : status_(std::move(status)), name_(std::move(name)) {}
  absl::StatusOr<size_t> Read(char*, size_t) override { return status_; }
  std::optional<uint64_t> Size() const override { return std::nullopt; }
  std::string Name() const override { return name_; }

 private:
  absl::Status status_;
  std::string name_;
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
  absl::StatusOr<GoImportResult> result = ImportGoTrace(std::move(bytes), options);
  if (!result.ok()) {
    return std::make_unique<FailedSource>(
        absl::Status(result.status().code(),
                     absl::StartsWith(result.status().message(), "Go execution trace")
                         ? std::string(result.status().message())
                         : absl::StrCat("Go execution trace: ", result.status().message())),
        name);
  }
  for (const std::string& damage : result->damage) {
    std::fprintf(stderr, "tracewire: %s: Go execution trace: lost: %s\n", name.c_str(),
                 damage.c_str());
  }
  return std::make_unique<OwnedSource>(std::move(result->trace), name);
}

absl::StatusOr<std::unique_ptr<reader::ByteSource>> OpenGoTraceFile(const std::string& path,
                                                                    bool salvage) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return absl::UnknownError(absl::StrCat(path, ": read error"));
  return ConvertedGoTrace(std::move(bytes), path, salvage);
}

}  // namespace tracewire::go_trace
