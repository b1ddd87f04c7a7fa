#include "tests/fuzz/fuzz_input_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace tracewire::fuzz {

absl::StatusOr<std::vector<std::string>> InputFiles(const std::string& path) {
  std::error_code error;
  std::vector<std::string> files;
  if (!std::filesystem::exists(path, error)) return files;
  if (!std::filesystem::is_directory(path, error)) {
    files.push_back(path);
    return files;
  }
  for (auto it = std::filesystem::recursive_directory_iterator(path, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    if (it->is_regular_file(error)) files.push_back(it->path().string());
  }
  if (error) return absl::UnknownError(absl::StrCat(path, ": ", error.message()));
  std::sort(files.begin(), files.end());
  return files;
}

absl::StatusOr<std::string> ReadInput(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::ostringstream content;
  content << file.rdbuf();
  if (file.bad()) return absl::UnknownError(absl::StrCat(path, ": read error"));
  return content.str();
}

}  // namespace tracewire::fuzz
