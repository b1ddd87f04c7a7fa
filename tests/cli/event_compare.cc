#include "tests/cli/event_compare.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "tests/cli/cli_runner.h"

namespace tracewire::cli_test {

std::string MaskEventTimes(const std::string& line) {
  static const std::regex time_value("\"time\":\"[^\"]*\"");
  static const std::regex number_value("\"(t_abs|t_rel)\":-?[0-9.]+");
  std::string masked = std::regex_replace(line, time_value, "\"time\":_");
  return std::regex_replace(masked, number_value, "\"$1\":_");
}

std::vector<std::string> CompareLines(
    const std::string& expected, const std::string& actual,
    absl::FunctionRef<void(size_t, const std::string&, const std::string&,
                           std::vector<std::string>*)>
        compare_line) {
  std::vector<std::string> problems;
  const std::vector<std::string> want = Lines(expected);
  const std::vector<std::string> got = Lines(actual);
  if (want.size() != got.size()) {
    problems.push_back(absl::StrCat("expected ", want.size(), " lines, got ", got.size()));
  }
  for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
    compare_line(i + 1, want[i], got[i], &problems);
  }
  return problems;
}

std::vector<std::string> CompareEventStreams(const std::string& expected, const std::string& actual,
                                             double time_tolerance_us, double stated_tolerance_us) {
  return CompareLines(
      expected, actual,
      [time_tolerance_us, stated_tolerance_us](size_t number, const std::string& want,
                                               const std::string& got,
                                               std::vector<std::string>* problems) {
        const std::string where = absl::StrCat("line ", number, ": ");
        if (MaskEventTimes(want) != MaskEventTimes(got)) {
          problems->push_back(
              absl::StrCat(where, "differs\n  expected: ", want, "\n  actual:   ", got));
          return;
        }
        // Only the time values are read from here on: bytes that are not ASCII (git writes
        // them raw, not always UTF-8) are replaced so that the JSON parser accepts the line.
        auto ascii = [](std::string line) {
          for (char& c : line) {
            if (static_cast<unsigned char>(c) >= 0x80) c = '?';
          }
          return line;
        };
        const nlohmann::json a = nlohmann::json::parse(ascii(want), nullptr, false);
        const nlohmann::json b = nlohmann::json::parse(ascii(got), nullptr, false);
        if (a.is_discarded() || b.is_discarded()) {
          problems->push_back(absl::StrCat(where, "not JSON"));
          return;
        }
        for (const char* key : {"t_abs", "t_rel"}) {
          if (!a.contains(key)) continue;
          const int64_t diff = std::llabs(std::llround(a[key].get<double>() * 1e6) -
                                          std::llround(b[key].get<double>() * 1e6));
          if (diff > stated_tolerance_us)
            problems->push_back(absl::StrCat(where, key, " differs by ", diff, " us"));
        }
        if (a.contains("time")) {
          absl::Time ta, tb;
          std::string error;
          const char* format = "%Y-%m-%dT%H:%M:%E*S%Ez";
          if (!absl::ParseTime(format, a["time"].get<std::string>(), &ta, &error) ||
              !absl::ParseTime(format, b["time"].get<std::string>(), &tb, &error)) {
            problems->push_back(absl::StrCat(where, "bad time: ", error));
          } else if (absl::AbsDuration(ta - tb) > absl::Microseconds(time_tolerance_us)) {
            problems->push_back(absl::StrCat(where, "time differs by ",
                                             absl::FormatDuration(absl::AbsDuration(ta - tb))));
          }
        }
      });
}

}  // namespace tracewire::cli_test
