#include "tools/output_file.h"

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace tracewire::tools {

absl::StatusOr<std::unique_ptr<OutputFile>> OutputFile::Open(const std::string& path) {
  if (path.empty() || path == "-") {
    return std::unique_ptr<OutputFile>(new OutputFile(stdout, "<stdout>", false));
  }
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return absl::UnknownError(
        absl::StrCat(path, ": cannot open for writing: ", std::strerror(errno)));
  }
  return std::unique_ptr<OutputFile>(new OutputFile(file, path, true));
}

OutputFile::~OutputFile() {
  if (owned_ && file_ != nullptr) std::fclose(file_);
}

absl::Status OutputFile::Flush() {
  if (file_ == nullptr) return absl::FailedPreconditionError(absl::StrCat(name_, ": closed"));
  if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
    return absl::UnknownError(absl::StrCat(name_, ": write failed: ", std::strerror(errno)));
  }
  buffer_.clear();
  if (std::fflush(file_) != 0) {
    return absl::UnknownError(absl::StrCat(name_, ": write failed: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status OutputFile::Close() {
  absl::Status status = Flush();
  if (std::fflush(file_) != 0 && status.ok()) {
    status = absl::UnknownError(absl::StrCat(name_, ": write failed: ", std::strerror(errno)));
  }
  if (owned_) {
    if (std::fclose(file_) != 0 && status.ok()) {
      status = absl::UnknownError(absl::StrCat(name_, ": close failed: ", std::strerror(errno)));
    }
  }
  file_ = nullptr;
  return status;
}

}  // namespace tracewire::tools
