// wordfreq: counts word frequencies in the files named on its command line, one worker
// thread per file, traced with tracewire's C++ layer: RAII scopes for the regions, the
// worker threads and a stopwatch timer, and typed data. The program states its own
// version in the settings it initializes tracewire with.
//
//   TRACEWIRE=/tmp/traces ./wordfreq FILE...
//   tracewire decode --format=perf /tmp/traces
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <tracewire/tracewire.hpp>

namespace {

constexpr char kVersion[] = "1.0.0";

using Counts = std::map<std::string, long>;

Counts CountWords(const std::string& path, int scan_timer) {
  tracewire::ThreadScope thread("count");  // names the thread thNN:count
  tracewire::RegionScope region("wordfreq", "count");
  Counts counts;
  std::ifstream in(path);
  if (!in) {
    tw_cmd_error("cannot open '%s'", path.c_str());
    return counts;
  }
  tracewire::TimerScope timing(scan_timer);
  std::string word;
  while (in >> word) {
    word.erase(std::remove_if(word.begin(), word.end(),
                              [](unsigned char c) { return !std::isalnum(c); }),
               word.end());
    if (!word.empty()) ++counts[word];
  }
  tracewire::Data("wordfreq", "path", path);
  tracewire::Data("wordfreq", "distinct", static_cast<std::int64_t>(counts.size()));
  return counts;
}

}  // namespace

int main(int argc, const char** argv) {
  tw_initialize_clock();
  tw_settings settings{};
  settings.target = std::getenv("TRACEWIRE");  // unset: tracing off
  settings.app_version = kVersion;              // the `version` event's exe
  tw_initialize_with(&settings);
  tw_cmd_start(argv);
  tw_cmd_name("wordfreq");

  const int scan_timer = tw_timer_define("wordfreq", "scan", /*per_thread=*/1);
  std::vector<Counts> per_file(argc > 1 ? argc - 1 : 0);
  {
    tracewire::RegionScope region("wordfreq", "scan-files");
    std::vector<std::thread> workers;
    for (int i = 1; i < argc; ++i) {
      workers.emplace_back([&, i] { per_file[i - 1] = CountWords(argv[i], scan_timer); });
    }
    for (std::thread& worker : workers) worker.join();
  }

  Counts total;
  {
    tracewire::RegionScope region("wordfreq", "merge");
    for (const Counts& counts : per_file) {
      for (const auto& [word, n] : counts) total[word] += n;
    }
    tracewire::Data("wordfreq", "distinct", static_cast<std::int64_t>(total.size()));
  }
  std::vector<std::pair<std::string, long>> top(total.begin(), total.end());
  std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (top.size() > 10) top.resize(10);
  for (const auto& [word, n] : top) std::cout << n << ' ' << word << '\n';
  return tw_cmd_exit(0);
}
