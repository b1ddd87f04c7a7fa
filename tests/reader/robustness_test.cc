// Robustness: truncation at every byte offset, random byte flips, and salvage mode.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "tests/reader/trace_builder.h"

namespace tracewire::reader {
namespace {

using ::tracewire::testing::GenBuilder;
using ::tracewire::testing::ReadAll;
using ::tracewire::testing::ReadResult;
using ::tracewire::testing::Trace;
using E = format::EventType;

// Three generations of one process; a region stays open across both boundaries and a
// worker thread lives in generations 2 and 3.
std::vector<std::string> SmallGenerations(bool compress) {
  std::vector<std::string> gens;
  {
    GenBuilder g(1);
    g.Ev(0, E::kVersion, 1100, g.Site("common-main.c", 50), {g.S("2.39.5")});
    g.Ev(0, E::kStart, 1200, g.Site("common-main.c", 51), {g.L({"demo", "x"})});
    g.Ev(0, E::kRegionEnter, 1300, g.Site("d.c", 1, "c", "r"), {g.S("m")});
    g.Ev(0, E::kData, 1400, g.Site("d.c", 2, "c", "k"), {g.S("v")});
    gens.push_back(g.Finish(compress));
  }
  {
    GenBuilder g(2, "SID0", 4242, 1000, 2000);
    g.Raw(0, E::kThreadStatus, 2000, {g.S("main"), 1000});
    g.Raw(0, E::kRegionActive, 2001, {g.Site("d.c", 1, "c", "r"), g.S("m"), 1300});
    g.Ev(0, E::kData, 2100, g.Site("d.c", 3, "c", "k2"), {g.S("v2")});
    g.Ev(1, E::kThreadStart, 2200, g.Site("t.c", 1), {g.S("th01:w")});
    g.Ev(1, E::kDataJson, 2300, g.Site("t.c", 2, "c", "j"), {g.S("[1]")});
    gens.push_back(g.Finish(compress));
  }
  {
    GenBuilder g(3, "SID0", 4242, 1000, 3000);
    g.Raw(0, E::kThreadStatus, 3000, {g.S("main"), 1000});
    g.Raw(0, E::kRegionActive, 3001, {g.Site("d.c", 1, "c", "r"), g.S("m"), 1300});
    g.Ev(0, E::kRegionLeave, 3100, g.Site("d.c", 4, "c", "r"), {0});
    g.Raw(1, E::kThreadStatus, 3000, {g.S("th01:w"), 2200});
    g.Ev(1, E::kThreadExit, 3200, g.Site("t.c", 3));
    g.Ev(0, E::kExit, 3300, g.Site("git.c", 9), {0});
    g.Ev(0, E::kAtexit, 3400, g.Site("git.c", 10), {0});
    gens.push_back(g.Finish(compress));
  }
  return gens;
}

// With `repeat_headers`, a file header precedes every generation, as the runtime writes.
void CheckTruncations(bool compress, bool repeat_headers) {
  const std::vector<std::string> gens = SmallGenerations(compress);
  std::string trace = Trace({});
  std::vector<uint64_t> ends;        // byte offset where each generation ends
  std::vector<uint64_t> boundaries;  // offsets where a cut leaves a clean trace
  boundaries.push_back(trace.size());
  for (size_t i = 0; i < gens.size(); ++i) {
    if (repeat_headers && i > 0) {
      trace += Trace({});
      boundaries.push_back(trace.size());
    }
    trace += gens[i];
    ends.push_back(trace.size());
    boundaries.push_back(trace.size());
  }
  const ReadResult full = ReadAll(trace);
  ASSERT_TRUE(full.status.ok()) << full.status;
  ASSERT_EQ(full.generations, std::vector<uint64_t>({1, 2, 3}));

  for (size_t cut = 0; cut <= trace.size(); ++cut) {
    SCOPED_TRACE(absl::StrCat("cut at ", cut, " of ", trace.size()));
    const std::string prefix = trace.substr(0, cut);
    uint64_t complete = 0;
    while (complete < ends.size() && ends[complete] <= cut) ++complete;
    std::vector<uint64_t> expected_gens;
    for (uint64_t g = 1; g <= complete; ++g) expected_gens.push_back(g);
    uint64_t delivered = 0;
    for (uint64_t b : boundaries) {
      if (b <= cut) delivered = b;
    }
    const bool at_boundary = delivered == cut && cut > 0;

    const ReadResult strict = ReadAll(prefix);
    EXPECT_EQ(strict.generations, expected_gens);
    if (at_boundary) {
      EXPECT_TRUE(strict.status.ok()) << strict.status;
    } else {
      EXPECT_EQ(strict.status.code(), absl::StatusCode::kOutOfRange) << strict.status;
    }

    ReaderOptions options;
    options.salvage = true;
    Reader r(MemorySource(prefix), options);
    std::vector<uint64_t> salvaged;
    while (true) {
      absl::StatusOr<const Event*> e = r.Next();
      ASSERT_TRUE(e.ok()) << e.status();
      if (*e == nullptr) break;
      if (salvaged.empty() || salvaged.back() != (*e)->gen) salvaged.push_back((*e)->gen);
    }
    EXPECT_EQ(salvaged, expected_gens);
    const LossReport& report = r.loss_report();
    EXPECT_EQ(report.total_bytes, cut);
    EXPECT_EQ(report.delivered_bytes, delivered);
    EXPECT_EQ(report.lost_bytes, cut - delivered);
    EXPECT_EQ(report.generations_delivered, complete);
    EXPECT_EQ(report.clean(), at_boundary) << report.Summary();
    if (!at_boundary && cut > 0) {
      EXPECT_NEAR(report.lost_percent, 100.0 * (cut - delivered) / cut, 1e-9);
      EXPECT_FALSE(report.lost_events_exact);
    }
  }
}

TEST(RobustnessTest, TruncationAtEveryByteSalvagesExactlyTheCompleteGenerations) {
  CheckTruncations(/*compress=*/false, /*repeat_headers=*/false);
}

TEST(RobustnessTest, TruncationWithAHeaderBeforeEveryGeneration) {
  CheckTruncations(/*compress=*/false, /*repeat_headers=*/true);
}

TEST(RobustnessTest, TruncationOfCompressedTraceAtEveryByte) {
  CheckTruncations(/*compress=*/true, /*repeat_headers=*/true);
}

TEST(RobustnessTest, TruncatedTailReportsTheEventsItCouldFrame) {
  const std::vector<std::string> gens = SmallGenerations(false);
  std::string trace = Trace(gens);
  trace.resize(trace.size() - 2);  // generation 3 loses its end_of_generation only
  ReaderOptions options;
  options.salvage = true;
  Reader r(MemorySource(trace), options);
  uint64_t events = 0;
  while (true) {
    absl::StatusOr<const Event*> e = r.Next();
    ASSERT_TRUE(e.ok());
    if (*e == nullptr) break;
    ++events;
  }
  const LossReport& report = r.loss_report();
  EXPECT_EQ(events, 7u);              // generations 1 and 2
  EXPECT_EQ(report.lost_events, 7u);  // all records of generation 3 were framed
  EXPECT_EQ(report.generations_lost, 1u);
  EXPECT_EQ(report.lost_bytes, gens[2].size() - 2);
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0].code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(report.Summary().find("lost "), std::string::npos);
}

TEST(RobustnessTest, SalvageSkipsAnInvalidGenerationAndReadsTheRestAsASuffix) {
  std::vector<std::string> gens = SmallGenerations(false);
  {
    // Generation 2 replaced by one whose region_leave has no open region (after the
    // re-statement says none is open).
    GenBuilder g(2, "SID0", 4242, 1000, 2000);
    g.Raw(0, E::kThreadStatus, 2000, {g.S("main"), 1000});
    g.Ev(0, E::kRegionLeave, 2100, g.Site("d.c", 3, "c", "r"), {0});
    g.Ev(0, E::kRegionLeave, 2200, g.Site("d.c", 3, "c", "r"), {0});
    gens[1] = g.Finish();
  }
  const std::string trace = Trace(gens);
  const ReadResult strict = ReadAll(trace);
  EXPECT_EQ(strict.status.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(strict.generations, std::vector<uint64_t>({1}));

  ReaderOptions options;
  options.salvage = true;
  Reader r(MemorySource(trace), options);
  std::vector<uint64_t> seen;
  std::vector<int> nesting;
  while (true) {
    absl::StatusOr<const Event*> e = r.Next();
    ASSERT_TRUE(e.ok()) << e.status();
    if (*e == nullptr) break;
    if (seen.empty() || seen.back() != (*e)->gen) seen.push_back((*e)->gen);
    if ((*e)->gen == 3) nesting.push_back((*e)->nesting);
  }
  EXPECT_EQ(seen, std::vector<uint64_t>({1, 3}));
  // Generation 3 re-states the open region itself: region_leave, thread_exit, exit, atexit.
  EXPECT_EQ(nesting, std::vector<int>({1, 1, 1, 1}));
  const LossReport& report = r.loss_report();
  EXPECT_EQ(report.generations_delivered, 2u);
  EXPECT_EQ(report.generations_lost, 1u);
  EXPECT_EQ(report.lost_bytes, gens[1].size());
  // The two region_leave events; the thread_status re-statement is not an event.
  EXPECT_EQ(report.lost_events, 2u);
  EXPECT_TRUE(report.lost_events_exact);
  EXPECT_EQ(report.total_bytes, trace.size());
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0].code(), absl::StatusCode::kDataLoss);
}

TEST(RobustnessTest, SalvageOfAnUnreadableHeaderLosesEverything) {
  const std::string trace = "definitely not a trace file";
  ReaderOptions options;
  options.salvage = true;
  Reader r(MemorySource(trace), options);
  absl::StatusOr<const Event*> e = r.Next();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(*e, nullptr);
  EXPECT_EQ(r.loss_report().lost_bytes, trace.size());
  EXPECT_DOUBLE_EQ(r.loss_report().lost_percent, 100.0);
}

void FlipBytes(bool compress, uint32_t seed) {
  const std::string trace = Trace(SmallGenerations(compress));
  std::mt19937 rng(seed);
  for (int i = 0; i < 10000; ++i) {
    std::string bad = trace;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) {
      const size_t pos = rng() % bad.size();
      bad[pos] = static_cast<char>(bad[pos] ^ (1 + rng() % 255));
    }
    if (i % 7 == 0) bad.resize(rng() % bad.size());
    ReadAll(bad);  // must not crash, hang or leak
    ReaderOptions options;
    options.salvage = true;
    Reader r(MemorySource(bad), options);
    uint64_t events = 0;
    while (true) {
      absl::StatusOr<const Event*> e = r.Next();
      ASSERT_TRUE(e.ok());
      if (*e == nullptr) break;
      (*e)->DebugString();
      ++events;
    }
    const LossReport& report = r.loss_report();
    ASSERT_EQ(report.delivered_bytes + report.lost_bytes, report.total_bytes);
    ASSERT_LE(report.delivered_bytes, bad.size());
  }
}

TEST(RobustnessTest, TenThousandRandomByteFlipsNeverCrash) { FlipBytes(false, 1); }

TEST(RobustnessTest, TenThousandRandomByteFlipsOfCompressedTraceNeverCrash) { FlipBytes(true, 2); }

}  // namespace
}  // namespace tracewire::reader
