// The Go trace reader and importer on real traces committed as fixtures (written by
// tests/go_import/goprog under Go 1.22.12 and 1.23.5; the .events.zst files are what
// `go tool trace -d=1` of the same toolchain printed for them), and on damaged copies.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "tests/go_import/go_compare.h"
#include "tools/go_import/go_import.h"
#include "tools/go_import/go_trace_reader.h"

namespace tracewire::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kData[] = "tests/go_import/testdata/";

class GoFixtureTest : public ::testing::TestWithParam<const char*> {
 protected:
  std::string Trace() {
    absl::StatusOr<std::string> t = ReadTestFile(absl::StrCat(kData, GetParam(), ".trace"));
    EXPECT_TRUE(t.ok()) << t.status();
    return t.value_or("");
  }
  std::vector<std::string> GoEvents() {
    absl::StatusOr<std::string> t = ReadTestFile(absl::StrCat(kData, GetParam(), ".events.zst"));
    EXPECT_TRUE(t.ok()) << t.status();
    return GoRecords(t.value_or(""));
  }
};

TEST_P(GoFixtureTest, ReaderMatchesGosParser) {
  const std::vector<std::string> go = GoEvents();
  ASSERT_GT(go.size(), 1000u);
  absl::StatusOr<std::vector<std::string>> ours = ReadGoRecords(Trace());
  ASSERT_TRUE(ours.ok()) << ours.status();
  EXPECT_EQ(CompareRecords(go, *ours), "");
  // In the very order Go's parser printed them (nothing here depends on how Go's map
  // iteration happened to order the M streams at a generation's start).
  ASSERT_EQ(go.size(), ours->size());
  for (size_t i = 0; i < go.size(); ++i) {
    ASSERT_EQ(go[i], (*ours)[i]) << "event " << i;
  }
  // The workload's features are all there.
  const GoSummary s = SummarizeGo(go);
  for (const char* kind : {"TaskBegin", "TaskEnd", "RegionBegin", "RegionEnd", "Log", "Metric",
                           "RangeBegin", "RangeEnd", "StackSample", "StateTransition", "Sync"}) {
    EXPECT_GT(s.kinds.count(kind), 0u) << kind;
  }
  EXPECT_GE(s.kinds.at("Sync"), 2u) << "several generations";
  EXPECT_GE(s.goroutines.size(), 500u);
}

TEST_P(GoFixtureTest, ImportKeepsTasksRegionsLogsSamplesAndGoroutines) {
  absl::StatusOr<go_trace::GoImportResult> imported = go_trace::ImportGoTrace(Trace(), {});
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_GE(imported->generations, 2u);
  const GoSummary go = SummarizeGo(GoEvents());
  absl::StatusOr<GoSummary> ours = SummarizeImported(imported->trace);
  ASSERT_TRUE(ours.ok()) << ours.status();
  EXPECT_EQ(CompareImported(go, *ours), "");
  EXPECT_FALSE(go.samples.empty());
  // Not vacuous: goroutines are created by others, and regions and logs belong to tasks.
  EXPECT_GE(go.creations, 500u);
  size_t in_task = 0;
  for (const std::string& event : go.user_events) {
    in_task += (absl::StartsWith(event, "RegionBegin ") || absl::StartsWith(event, "Log ")) &&
               !absl::StrContains(event, " T0 ");
  }
  EXPECT_GE(in_task, 40u);
}

TEST_P(GoFixtureTest, ImportNamesGoroutinesByStartFunction) {
  absl::StatusOr<go_trace::GoImportResult> imported = go_trace::ImportGoTrace(Trace(), {});
  ASSERT_TRUE(imported.ok()) << imported.status();
  // Go names each created goroutine's start function in its creation's transition stack.
  std::map<uint64_t, std::string> go_names;
  for (const std::string& r : GoEvents()) {
    const size_t at = r.find(" NotExist->");
    if (at == std::string::npos || !absl::StrContains(r, "Resource=Goroutine")) continue;
    const size_t id = r.find("GoID=") + 5;
    const size_t stack = r.find("TransitionStack=\n\t");
    if (stack == std::string::npos) continue;
    const std::string func = r.substr(stack + 18, r.find(" @ ", stack) - stack - 18);
    go_names[std::stoull(r.substr(id, r.find(' ', id) - id))] = func;
  }
  ASSERT_GE(go_names.size(), 500u);
  reader::Reader reader(reader::MemorySource(imported->trace, "imported"));
  size_t checked = 0;
  while (true) {
    absl::StatusOr<const reader::Event*> e = reader.Next();
    ASSERT_TRUE(e.ok()) << e.status();
    if (*e == nullptr) break;
    if ((*e)->kind != reader::EventKind::kThreadStart) continue;
    ASSERT_TRUE(go_names.contains((*e)->thread_id)) << (*e)->thread_id;
    EXPECT_EQ((*e)->thread_name, go_names[(*e)->thread_id]);
    ++checked;
  }
  EXPECT_EQ(checked, go_names.size());
}

TEST_P(GoFixtureTest, TruncatedTracesFailNamingTheDamageAndSalvageKeepsWholeGenerations) {
  const std::string trace = Trace();
  absl::StatusOr<go_trace::GoImportResult> whole = go_trace::ImportGoTrace(trace, {});
  ASSERT_TRUE(whole.ok());
  // Every cut, at a stride: never a crash; an error names a byte offset or a generation.
  for (size_t cut = 16; cut < trace.size(); cut += 97) {
    absl::StatusOr<go_trace::GoImportResult> r = go_trace::ImportGoTrace(trace.substr(0, cut), {});
    if (r.ok()) continue;  // a cut between generations leaves a whole trace
    EXPECT_TRUE(absl::StrContains(r.status().message(), "byte ") ||
                absl::StrContains(r.status().message(), "generation "))
        << r.status();
    EXPECT_TRUE(absl::IsDataLoss(r.status())) << r.status();
    go_trace::GoImportOptions salvage;
    salvage.salvage = true;
    absl::StatusOr<go_trace::GoImportResult> kept =
        go_trace::ImportGoTrace(trace.substr(0, cut), salvage);
    ASSERT_TRUE(kept.ok()) << cut << ": " << kept.status();
    EXPECT_FALSE(kept->damage.empty());
    EXPECT_LE(kept->generations, whole->generations);
  }
  // Cut inside the last generation: the first is kept whole.
  go_trace::GoImportOptions salvage;
  salvage.salvage = true;
  absl::StatusOr<go_trace::GoImportResult> kept =
      go_trace::ImportGoTrace(trace.substr(0, trace.size() - 5), salvage);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_GE(kept->generations, 1u);
  EXPECT_THAT(kept->damage.front(), HasSubstr("truncated batch"));
}

TEST_P(GoFixtureTest, CorruptedBytesNeverCrash) {
  const std::string trace = Trace();
  for (size_t at = 16; at < trace.size(); at += 131) {
    for (char flip : {'\x01', '\x80', '\xff'}) {
      std::string bad = trace;
      bad[at] ^= flip;
      go_trace::GoImportOptions options;
      options.salvage = (at & 1) != 0;
      absl::StatusOr<go_trace::GoImportResult> r = go_trace::ImportGoTrace(bad, options);
      if (!r.ok()) {
        EXPECT_FALSE(absl::IsInternal(r.status())) << at << ": " << r.status();
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Versions, GoFixtureTest, ::testing::Values("go122", "go123"));

TEST(GoHeaderTest, OtherVersionsAreRefusedNamingTheVersion) {
  for (const char* header :
       {"go 1.21 trace\0\0\0", "go 1.24 trace\0\0\0", "go 1.5 trace\0\0\0\0"}) {
    absl::StatusOr<go_trace::GoImportResult> r =
        go_trace::ImportGoTrace(std::string(header, 16) + "\x01\x01\x01\x01\x00", {});
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(absl::IsUnimplemented(r.status())) << r.status();
    EXPECT_THAT(r.status().message(), HasSubstr(std::string(header).substr(0, 7)));
  }
  EXPECT_TRUE(absl::IsInvalidArgument(go_trace::ImportGoTrace("not a trace", {}).status()));
}

}  // namespace
}  // namespace tracewire::testing
