#include "tools/cli/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"

namespace tracewire::tools {
namespace {

bool IsStdio(const std::string& path) { return path.empty() || path == "-"; }

// The stat of a regular file, or nullopt (not a regular file, or not there).
std::optional<struct stat> RegularFile(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return st;
}
std::optional<struct stat> RegularFile(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return st;
}

// Fails if the regular file `output` (named `name`) is one of `inputs`.
absl::Status CheckNotAnInput(const struct stat& output, const std::string& name,
                             absl::Span<const std::string> inputs) {
  for (const std::string& input : inputs) {
    const std::optional<struct stat> in =
        input == "-" ? RegularFile(STDIN_FILENO) : RegularFile(input);
    if (in.has_value() && in->st_dev == output.st_dev && in->st_ino == output.st_ino) {
      return absl::FailedPreconditionError(absl::StrCat(
          name, ": the output is the input ", input == "-" ? "<stdin>" : input,
          "; writing it would destroy the trace being read (choose another output)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckOutputIsNotAnInput(const std::string& output,
                                     absl::Span<const std::string> inputs) {
  const std::optional<struct stat> out =
      IsStdio(output) ? RegularFile(STDOUT_FILENO) : RegularFile(output);
  if (!out.has_value()) return absl::OkStatus();
  return CheckNotAnInput(*out, IsStdio(output) ? "<stdout>" : output, inputs);
}

absl::StatusOr<std::unique_ptr<OutputFile>> OutputFile::Open(
    const std::string& path, absl::Span<const std::string> inputs) {
  if (IsStdio(path)) {
    if (absl::Status s = CheckOutputIsNotAnInput(path, inputs); !s.ok()) return s;
    return std::unique_ptr<OutputFile>(new OutputFile(stdout, "<stdout>", false));
  }
  // Open without truncating, check, then truncate: the check sees the very file written.
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    return absl::UnknownError(
        absl::StrCat(path, ": cannot open for writing: ", std::strerror(errno)));
  }
  if (const std::optional<struct stat> out = RegularFile(fd); out.has_value()) {
    if (absl::Status s = CheckNotAnInput(*out, path, inputs); !s.ok()) {
      close(fd);
      return s;
    }
    if (ftruncate(fd, 0) != 0) {
      const int error = errno;
      close(fd);
      return absl::UnknownError(absl::StrCat(path, ": cannot truncate: ", std::strerror(error)));
    }
  }
  std::FILE* file = fdopen(fd, "wb");
  if (file == nullptr) {
    const int error = errno;
    close(fd);
    return absl::UnknownError(
        absl::StrCat(path, ": cannot open for writing: ", std::strerror(error)));
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

absl::Status OutputFile::Write(absl::string_view bytes) {
  if (file_ == nullptr) return absl::FailedPreconditionError(absl::StrCat(name_, ": closed"));
  if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
    return absl::UnknownError(absl::StrCat(name_, ": write failed: ", std::strerror(errno)));
  }
  buffer_.clear();
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
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

void OutputFile::Discard() {
  buffer_.clear();
  if (!owned_ || file_ == nullptr) return;
  std::fclose(file_);
  file_ = nullptr;
  unlink(name_.c_str());
}

}  // namespace tracewire::tools
