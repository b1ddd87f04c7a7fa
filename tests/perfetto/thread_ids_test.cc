// Kernel thread ids: a multi-threaded program's threads each record the id gettid() gave
// them (a data event, and a file of "<thread> <tid>" lines), and the trace's thread ids are
// exactly those, as Perfetto's trace processor reads the Perfetto export (`thread.tid`), in
// the Chrome export (`tid`) and in `tracewire query` (`thread.tid`). A trace of the
// previous format version (a committed fixture recorded by that version's runtime) still
// reads, its threads with ids of the reader's own.
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/export/export_support.h"
#include "tests/perfetto/trace_processor.h"

namespace tracewire::testing {
namespace {

using nlohmann::json;

const std::string& Shell() { return TraceProcessorFor("tests/perfetto/thread_ids_test.cc"); }

std::string Decode(const std::string& input, const std::string& format) {
  static int runs = 0;
  const std::string out = absl::StrCat(TempDir("decode"), "/out", ++runs, ".", format);
  const std::vector<std::string> argv = {
      Tool("tools/tracewire"), "decode", absl::StrCat("--format=", format), input, "-o", out};
  EXPECT_EQ(RunTool(argv, {}), 0) << absl::StrJoin(argv, " ");
  return out;
}

int64_t Int(const std::string& cell) {
  int64_t v = 0;
  EXPECT_TRUE(absl::SimpleAtoi(cell, &v)) << cell;
  return v;
}

// "th03:w1" -> "w1", "main" -> "main".
std::string BaseName(const std::string& name) {
  const size_t colon = name.find(':');
  return colon == std::string::npos ? name : name.substr(colon + 1);
}

// Thread name -> tid from the Chrome export's thread_name metadata; *pid: their process's.
std::map<std::string, int64_t> ChromeThreads(const std::string& path, int64_t* pid) {
  std::map<std::string, int64_t> threads;
  for (absl::string_view line : absl::StrSplit(ReadWholeFile(path), '\n')) {
    if (!absl::StartsWith(line, "{\"name\"")) continue;  // one event per line
    std::string l(line);
    if (absl::EndsWith(l, ",")) l.pop_back();
    const json e = json::parse(l, nullptr, false);
    if (e.is_discarded() || e["ph"] != "M" || e["name"] != "thread_name") continue;
    const std::string name = e["args"]["name"];
    if (absl::StartsWith(name, "children") || absl::StartsWith(name, "tasks")) continue;
    EXPECT_TRUE(threads.emplace(name, e["tid"].get<int64_t>()).second) << name;
    *pid = e["pid"].get<int64_t>();
  }
  return threads;
}

TEST(ThreadIdsTest, EveryExportShowsTheIdsTheThreadsSaw) {
  ASSERT_FALSE(Shell().empty())
      << "Perfetto's trace_processor_shell not found: set TRACEWIRE_TRACE_PROCESSOR or put "
         "shared/tools/perfetto/ beside the repository";
  const std::string dir = TempDir("thread_ids");
  const std::string trace = dir + "/ids.twr";
  const std::string seen_path = dir + "/seen.txt";
  // Small generations: the threads are re-stated (thread_status with the tid) in several.
  ASSERT_EQ(RunTool({Tool("tests/perfetto/thread_ids_program"), seen_path, "4", "300"},
                    {{"TRACEWIRE", trace}, {"TRACEWIRE_GENERATION_BYTES", "4096"}}),
            0);

  // What each thread saw: base name -> gettid().
  std::map<std::string, int64_t> seen;
  for (absl::string_view line : absl::StrSplit(ReadWholeFile(seen_path), '\n', absl::SkipEmpty())) {
    const std::vector<std::string> parts = absl::StrSplit(line, ' ');
    ASSERT_EQ(parts.size(), 2u) << line;
    seen[parts[0]] = Int(parts[1]);
  }
  ASSERT_EQ(seen.size(), 6u);  // main, w0..w3, unknown
  std::set<int64_t> distinct;
  for (const auto& [name, tid] : seen) distinct.insert(tid);
  EXPECT_EQ(distinct.size(), seen.size());  // the threads ran at once: distinct ids

  // tracewire query: each thread's tid is the one its own data event recorded.
  const Rows recorded =
      TracewireQuery(trace,
                     "select t.name, t.tid, d.int_value from data d join thread t using (utid) "
                     "where d.key = 'gettid'");
  ASSERT_EQ(recorded.size(), seen.size());
  for (const auto& row : recorded) {
    EXPECT_EQ(row[1], row[2]) << absl::StrJoin(row, ",");
    EXPECT_EQ(Int(row[1]), seen[BaseName(row[0])]) << absl::StrJoin(row, ",");
  }

  // Perfetto's trace processor on the Perfetto export.
  const std::string pftrace = Decode(trace, "perfetto");
  const auto tp = [&](const std::string& sql) {
    return TraceProcessorQuery(Shell(), pftrace, sql);
  };
  EXPECT_EQ(tp("select name, idx, severity, value from stats where value > 0 and "
               "(severity = 'error' or severity = 'data_loss')"),
            Rows());
  std::map<std::string, int64_t> from_tp;
  int64_t tp_pid = 0;
  for (const auto& row : tp("select t.name, t.tid, p.pid from thread t join process p using "
                            "(upid) where t.utid != 0")) {
    EXPECT_TRUE(from_tp.emplace(BaseName(row[0]), Int(row[1])).second) << row[0];
    tp_pid = Int(row[2]);
  }
  EXPECT_EQ(from_tp, seen);
  EXPECT_EQ(tp_pid, seen["main"]);  // the main thread's id is the process's pid
  EXPECT_EQ(tp("select name from thread where is_main_thread = 1 and utid != 0"), Rows{{"main"}});

  // The Chrome export.
  int64_t chrome_pid = 0;
  std::map<std::string, int64_t> from_chrome;
  for (const auto& [name, tid] : ChromeThreads(Decode(trace, "chrome"), &chrome_pid)) {
    from_chrome[BaseName(name)] = tid;
  }
  EXPECT_EQ(from_chrome, seen);
  EXPECT_EQ(chrome_pid, seen["main"]);
}

// The committed fixture: the thread pool example (30 requests) recorded by the runtime of
// format version 3, whose thread records have no tid.
std::string Fixture() { return Tool("tests/perfetto/testdata/threadpool_v3.twr"); }

TEST(ThreadIdsTest, PreviousFormatVersionStillReads) {
  const std::string header = ReadWholeFile(Fixture()).substr(0, 16);
  ASSERT_EQ(header.size(), 16u);
  EXPECT_EQ(static_cast<unsigned char>(header[8]), 3);  // format version 3, little-endian

  // tracewire query: the threads, with no kernel tid but the main thread's (its pid).
  const Rows threads =
      TracewireQuery(Fixture(), "select name, tid, is_main_thread from thread order by name");
  ASSERT_EQ(threads.size(), 7u);  // main, acceptor, four workers, writer
  for (const auto& row : threads) {
    if (row[2] == "1") {
      EXPECT_EQ(row[0], "main");
      EXPECT_NE(row[1], "[NULL]");
    } else {
      EXPECT_EQ(row[1], "[NULL]") << row[0];
    }
  }

  // Chrome: the thread numbers as tids (main 0).
  int64_t pid = 0;
  const std::map<std::string, int64_t> chrome = ChromeThreads(Decode(Fixture(), "chrome"), &pid);
  ASSERT_EQ(chrome.size(), 7u);
  ASSERT_TRUE(chrome.contains("main"));
  EXPECT_EQ(chrome.at("main"), 0);
  std::set<int64_t> numbers;
  for (const auto& [name, tid] : chrome) numbers.insert(tid);
  EXPECT_EQ(numbers, (std::set<int64_t>{0, 1, 2, 3, 4, 5, 6}));

  // Perfetto: loads without an error; main's tid is the pid, the others' synthetic ones
  // from 2^30.
  ASSERT_FALSE(Shell().empty());
  const std::string pftrace = Decode(Fixture(), "perfetto");
  const auto tp = [&](const std::string& sql) {
    return TraceProcessorQuery(Shell(), pftrace, sql);
  };
  EXPECT_EQ(tp("select name, idx, severity, value from stats where value > 0 and "
               "(severity = 'error' or severity = 'data_loss')"),
            Rows());
  const Rows tp_threads =
      tp("select t.name, t.tid, p.pid from thread t join process p using (upid) where t.utid != 0");
  ASSERT_EQ(tp_threads.size(), 7u);
  for (const auto& row : tp_threads) {
    if (row[0] == "main") {
      EXPECT_EQ(row[1], row[2]);
    } else {
      EXPECT_GE(Int(row[1]), int64_t{1} << 30) << row[0];
    }
  }
}

}  // namespace
}  // namespace tracewire::testing
