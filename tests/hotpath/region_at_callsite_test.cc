// The region hot path (tw_region_enter_site / tw_region_leave_site) in the cases its fast
// path hands to the full path or must get exactly right: one literal call site called
// with changing repos (and a repo below -1), a region entered with a message and left at a
// literal site, regions nested past the open-region stack's first size, a filtered
// category, many events across batches and generations (cut by tw_flush), call sites that
// share an entry of the thread's hot-site cache, a call site's storage reused for
// another site, site IDs past one varint byte, and leaves with no open region. Checked
// with format/'s decoder.
#include <cstdio>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/runtime/trace_file.h"
#include "tests/runtime/traced_child.h"
#include "tracewire/tracewire.h"

namespace tracewire::testing {
namespace {

constexpr int kNested = 100;    // past the open-region stack's first capacity (32)
constexpr int kPairs = 60'000;  // 240 KB of region events: several batches
constexpr int kPairsPerFlush = 10'000;

// One literal call site, whatever the repo.
void EnterLeave(int repo) {
  tw_region_enter("hot", "site", repo);
  tw_region_leave("hot", "site", repo);
}

void Nested(int depth) {
  if (depth == 0) return;
  tw_region_enter("hot", "nest", TW_NO_REPO);
  Nested(depth - 1);
  tw_region_leave("hot", "nest", TW_NO_REPO);
}

constexpr int kSharedSlotRounds = 1'000;
constexpr size_t kHotTableSpan = 64;  // call sites 64 words apart share a hot-site entry

// Call sites 0, 1 and 64 of `sites`: 0 and 64 share an entry of the thread's hot-site
// cache, 0 and 1 are neighbours; called in turn, each event keeps its own site.
void SharedSlots() {
  static tw_callsite sites[kHotTableSpan + 1];
  for (int i = 0; i < kSharedSlotRounds; ++i) {
    tw_region_enter_site(&sites[0], __FILE__, 1, "hot", "slot_a", TW_NO_REPO);
    tw_region_enter_site(&sites[kHotTableSpan], __FILE__, 2, "hot", "slot_b", TW_NO_REPO);
    tw_region_enter_site(&sites[1], __FILE__, 3, "hot", "slot_c", TW_NO_REPO);
    tw_region_leave_site(&sites[1], __FILE__, 3, "hot", "slot_c", TW_NO_REPO);
    tw_region_leave_site(&sites[kHotTableSpan], __FILE__, 2, "hot", "slot_b", TW_NO_REPO);
    tw_region_leave_site(&sites[0], __FILE__, 1, "hot", "slot_a", TW_NO_REPO);
  }
}

// One call site's storage reused for another site, as when a library is unloaded and
// another loaded at its address: the new storage starts zeroed.
void ReusedStorage() {
  static tw_callsite site;
  for (int i = 0; i < 10; ++i) {
    tw_region_enter_site(&site, __FILE__, 10, "hot", "before_reuse", TW_NO_REPO);
    tw_region_leave_site(&site, __FILE__, 10, "hot", "before_reuse", TW_NO_REPO);
  }
  site = tw_callsite{};
  for (int i = 0; i < 10; ++i) {
    tw_region_enter_site(&site, __FILE__, 20, "hot", "after_reuse", TW_NO_REPO);
    tw_region_leave_site(&site, __FILE__, 20, "hot", "after_reuse", TW_NO_REPO);
  }
}

constexpr int kManySites = 200;  // site IDs past 127: two varint bytes

// kManySites call sites in one generation, each entered and left twice in a row (the
// second time through the hot path).
void ManySites() {
  static tw_callsite sites[kManySites];
  static char labels[kManySites][16];  // never freed or changed once set, as literals
  tw_flush();  // a new generation: the IDs below are given in order from here
  for (int i = 0; i < kManySites; ++i) {
    snprintf(labels[i], sizeof(labels[i]), "site_%d", i);
    for (int k = 0; k < 2; ++k) {
      tw_region_enter_site(&sites[i], __FILE__, 30, "many", labels[i], TW_NO_REPO);
      tw_region_leave_site(&sites[i], __FILE__, 30, "many", labels[i], TW_NO_REPO);
    }
  }
}

constexpr int kUnmatchedLeaves = 3;

// Leaves at a literal call site with no region open.
void UnmatchedLeaves() {
  for (int i = 0; i < kUnmatchedLeaves; ++i) tw_region_leave("hot", "unmatched", TW_NO_REPO);
}

int Workload() {
  tw_initialize_clock();
  tw_initialize();
  const int repo = tw_def_repo("/work/tree");  // repo ID 1
  for (int r : {TW_NO_REPO, repo, TW_NO_REPO, -5, repo}) EnterLeave(r);
  tw_region_enter_printf("hot", "msg", TW_NO_REPO, "with %s", "message");
  tw_region_leave("hot", "msg", TW_NO_REPO);
  Nested(kNested);
  tw_region_enter("filtered", "never", TW_NO_REPO);
  tw_region_leave("filtered", "never", TW_NO_REPO);
  // Past the macros' inline test: the function itself meets the filtered call-site word,
  // also with a repo below -1 (whose tag matches the filtered word's high half).
  static tw_callsite direct;
  for (int i = 0; i < 3; ++i)
    tw_region_enter_site(&direct, __FILE__, __LINE__, "filtered", "direct", -2);
  for (int i = 0; i < kPairs; ++i) {
    if (i % kPairsPerFlush == 0) tw_flush();  // a new generation: the site is interned again
    tw_region_enter("hot", "many", TW_NO_REPO);
    tw_region_leave("hot", "many", TW_NO_REPO);
  }
  SharedSlots();
  ReusedStorage();
  ManySites();
  UnmatchedLeaves();
  return 0;
}

class RegionAtCallsiteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string dir = MakeTempDir("region_at_callsite");
    const std::string path = dir + "/trace.tw";
    const int status = RunInChild(
        ChildEnv({{"TRACEWIRE", path}, {"TRACEWIRE_CATEGORIES", "*,-filtered"}}), Workload);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    auto trace = DecodeTraceFile(path);
    ASSERT_TRUE(trace.ok()) << trace.status();
    ASSERT_TRUE(trace->tail_status.ok()) << trace->tail_status;
    trace_ = *std::move(trace);
  }

  // The events named `name` whose site has `label`.
  std::vector<DecodedEvent> WithLabel(const char* name, const char* label) const {
    std::vector<DecodedEvent> out;
    for (const DecodedEvent& e : trace_.Events(name)) {
      if (e.site.label == label) out.push_back(e);
    }
    return out;
  }

  DecodedTrace trace_;
};

TEST_F(RegionAtCallsiteTest, OneCallSiteKeepsEachCallsRepo) {
  const std::vector<DecodedEvent> enters = WithLabel("region_enter", "site");
  const std::vector<DecodedEvent> leaves = WithLabel("region_leave", "site");
  ASSERT_EQ(enters.size(), 5u);
  ASSERT_EQ(leaves.size(), 5u);
  // A site's repo is stored plus one (0: none); -5 is no repo as -1 is.
  const std::vector<uint64_t> want = {0, 2, 0, 0, 2};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(enters[i].site.repo, want[i]) << i;
    EXPECT_EQ(leaves[i].site.repo, want[i]) << i;
    EXPECT_EQ(enters[i].site.category, "hot");
  }
}

TEST_F(RegionAtCallsiteTest, MessageRegionLeftAtALiteralSite) {
  const std::vector<DecodedEvent> enters = WithLabel("region_enter", "msg");
  const std::vector<DecodedEvent> leaves = WithLabel("region_leave", "msg");
  ASSERT_EQ(enters.size(), 1u);
  ASSERT_EQ(leaves.size(), 1u);
  EXPECT_EQ(enters[0].Str("msg_string"), "with message");
  EXPECT_EQ(leaves[0].Str("msg_string"), std::nullopt);
}

TEST_F(RegionAtCallsiteTest, DeepNestingAndManyEventsAreAllRecordedInOrder) {
  EXPECT_EQ(WithLabel("region_enter", "nest").size(), static_cast<size_t>(kNested));
  EXPECT_EQ(WithLabel("region_leave", "nest").size(), static_cast<size_t>(kNested));
  const std::vector<DecodedEvent> enters = WithLabel("region_enter", "many");
  const std::vector<DecodedEvent> leaves = WithLabel("region_leave", "many");
  ASSERT_EQ(enters.size(), static_cast<size_t>(kPairs));
  ASSERT_EQ(leaves.size(), static_cast<size_t>(kPairs));
  for (int i = 0; i < kPairs; ++i) {
    ASSERT_LT(enters[i].time, leaves[i].time) << i;
    if (i > 0) ASSERT_LT(leaves[i - 1].time, enters[i].time) << i;
  }
  EXPECT_GE(trace_.generations.size(), static_cast<size_t>(kPairs / kPairsPerFlush));
}

TEST_F(RegionAtCallsiteTest, CallSitesSharingAHotEntryKeepTheirOwnSites) {
  std::vector<std::string> labels;
  for (const DecodedEvent& e : trace_.AllEvents()) {
    if (e.name != "region_enter" && e.name != "region_leave") continue;
    const std::string label = e.site.label.value_or("");
    if (label.rfind("slot_", 0) == 0) labels.push_back(e.name + ":" + label);
  }
  const std::vector<std::string> round = {"region_enter:slot_a", "region_enter:slot_b",
                                          "region_enter:slot_c", "region_leave:slot_c",
                                          "region_leave:slot_b", "region_leave:slot_a"};
  ASSERT_EQ(labels.size(), round.size() * kSharedSlotRounds);
  for (size_t i = 0; i < labels.size(); ++i) ASSERT_EQ(labels[i], round[i % round.size()]) << i;
}

TEST_F(RegionAtCallsiteTest, ReusedCallSiteStorageRecordsTheNewSite) {
  EXPECT_EQ(WithLabel("region_enter", "before_reuse").size(), 10u);
  EXPECT_EQ(WithLabel("region_leave", "before_reuse").size(), 10u);
  const std::vector<DecodedEvent> after = WithLabel("region_enter", "after_reuse");
  ASSERT_EQ(after.size(), 10u);
  EXPECT_EQ(WithLabel("region_leave", "after_reuse").size(), 10u);
  EXPECT_EQ(after[0].site.line, 20u);
}

TEST_F(RegionAtCallsiteTest, SiteIdsPastOneVarintByteKeepTheirSites) {
  std::vector<std::string> got;
  for (const DecodedEvent& e : trace_.AllEvents()) {
    if (e.site.category != "many") continue;
    got.push_back(e.name + ":" + e.site.label.value_or(""));
  }
  std::vector<std::string> want;
  for (int i = 0; i < kManySites; ++i) {
    const std::string label = "site_" + std::to_string(i);
    for (int k = 0; k < 2; ++k) {
      want.push_back("region_enter:" + label);
      want.push_back("region_leave:" + label);
    }
  }
  EXPECT_EQ(got, want);
}

TEST_F(RegionAtCallsiteTest, LeavesWithNoOpenRegionAreRecorded) {
  EXPECT_EQ(WithLabel("region_leave", "unmatched").size(), static_cast<size_t>(kUnmatchedLeaves));
}

TEST_F(RegionAtCallsiteTest, FilteredCategoryRecordsNothing) {
  for (const DecodedEvent& e : trace_.AllEvents()) EXPECT_NE(e.site.category, "filtered");
}

}  // namespace
}  // namespace tracewire::testing
