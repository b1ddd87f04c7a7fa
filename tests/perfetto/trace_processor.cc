#include "tests/perfetto/trace_processor.h"

#include <stdlib.h>
#include <unistd.h>

#include <climits>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "tests/export/export_support.h"

namespace tracewire::testing {
namespace {

std::string Dirname(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? "/" : path.substr(0, slash);
}

bool IsExecutable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

// Runs argv with stdout to a file; returns the exit code and the output.
int RunCapturing(const std::vector<std::string>& argv, std::string* out, std::string* err) {
  static int runs = 0;
  const std::string dir = TempDir(absl::StrCat("capture", ++runs));
  std::vector<std::string> sh = {
      "/bin/sh", "-c",         "out=$1; err=$2; shift 2; exec \"$@\" >\"$out\" 2>\"$err\"",
      "sh",      dir + "/out", dir + "/err"};
  sh.insert(sh.end(), argv.begin(), argv.end());
  const int code = RunTool(sh, {});
  *out = ReadWholeFile(dir + "/out");
  *err = ReadWholeFile(dir + "/err");
  return code;
}

}  // namespace

std::optional<std::string> FindTraceProcessor(const std::string& source_in_runfiles) {
  if (const char* env = getenv("TRACEWIRE_TRACE_PROCESSOR"); env != nullptr && *env != '\0') {
    return IsExecutable(env) ? std::optional<std::string>(env) : std::nullopt;
  }
  char real[PATH_MAX];
  if (realpath(source_in_runfiles.c_str(), real) == nullptr) return std::nullopt;
  // The source's real path is in the repository; shared/ is beside it or beside a folder
  // above it.
  for (std::string dir = Dirname(real); dir != "/"; dir = Dirname(dir)) {
    const std::string shell = absl::StrCat(Dirname(dir), Dirname(dir) == "/" ? "" : "/",
                                           "shared/tools/perfetto/trace_processor_shell");
    if (IsExecutable(shell)) return shell;
  }
  return std::nullopt;
}

const std::string& TraceProcessorFor(const std::string& source) {
  static const std::string* shell = new std::string(FindTraceProcessor(Tool(source)).value_or(""));
  return *shell;
}

Rows ParseCsv(const std::string& text) {
  Rows rows;
  std::vector<std::string> row;
  std::string cell;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = any = true;
    } else if (c == ',') {
      row.push_back(std::move(cell));
      cell.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      row.push_back(std::move(cell));
      cell.clear();
      rows.push_back(std::move(row));
      row.clear();
      any = false;
    } else {
      cell += c;
      any = true;
    }
  }
  if (any || !cell.empty() || !row.empty()) {
    row.push_back(std::move(cell));
    rows.push_back(std::move(row));
  }
  if (!rows.empty()) rows.erase(rows.begin());  // the header
  return rows;
}

Rows TraceProcessorQuery(const std::string& shell, const std::string& trace,
                         const std::string& sql) {
  static int queries = 0;
  const std::string file = absl::StrCat(TempDir(absl::StrCat("tpq", ++queries)), "/q.sql");
  std::ofstream(file) << sql << "\n";
  std::string out, err;
  const int code = RunCapturing({shell, "-q", file, trace}, &out, &err);
  EXPECT_EQ(code, 0) << sql << "\n" << err;
  if (code != 0) return {};
  return ParseCsv(out);
}

Rows TracewireQuery(const std::string& input, const std::string& sql,
                    const std::vector<std::string>& flags, int expected_exit) {
  std::vector<std::string> argv = {Tool("tools/tracewire"), "query", "--format=csv"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-c", sql, input});
  std::string out, err;
  const int code = RunCapturing(argv, &out, &err);
  EXPECT_EQ(code, expected_exit) << sql << "\n" << err;
  Rows rows = ParseCsv(out);
  // tracewire writes NULL as an empty cell; the trace processor as [NULL].
  for (auto& row : rows) {
    for (auto& cell : row) {
      if (cell.empty()) cell = "[NULL]";
    }
  }
  return rows;
}

}  // namespace tracewire::testing
