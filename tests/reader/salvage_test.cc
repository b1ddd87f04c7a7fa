// Salvage resynchronisation: after damage, the reader finds the next file header or
// generation boundary and delivers every complete generation after it.
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "tests/reader/trace_builder.h"

namespace tracewire::reader {
namespace {

using ::tracewire::testing::GenBuilder;
using ::tracewire::testing::Trace;
using E = format::EventType;

// One generation of process `sid`: version, start, a region with data, and (when `last`)
// exit and atexit.
std::string ProcessGeneration(const std::string& sid, uint64_t gen, uint64_t t, bool last) {
  GenBuilder g(gen, sid, 100 + gen, 1000, t);
  if (gen == 1) {
    g.Ev(0, E::kVersion, t + 1, g.Site("common-main.c", 50), {g.S("2.39.5")});
    g.Ev(0, E::kStart, t + 2, g.Site("common-main.c", 51), {g.L({"prog", sid})});
  } else {
    g.Raw(0, E::kThreadStatus, t, {g.S("main"), 1000});
  }
  g.Ev(0, E::kRegionEnter, t + 3, g.Site("w.c", 1, "work", "step"), {g.S(sid)});
  g.Ev(0, E::kData, t + 4, g.Site("w.c", 2, "work", "key"), {g.S(absl::StrCat("value ", gen))});
  g.Ev(0, E::kRegionLeave, t + 5, g.Site("w.c", 3, "work", "step"), {0});
  if (last) {
    g.Ev(0, E::kExit, t + 6, g.Site("git.c", 9), {0});
    g.Ev(0, E::kAtexit, t + 7, g.Site("git.c", 10), {0});
  }
  return g.Finish();
}

// A whole process as the runtime writes it: a file header before every generation.
std::string ProcessTrace(const std::string& sid, int generations) {
  std::string out;
  for (int gen = 1; gen <= generations; ++gen) {
    out += Trace({}) + ProcessGeneration(sid, gen, 10000 * gen, gen == generations);
  }
  return out;
}

struct Salvaged {
  std::vector<std::pair<std::string, uint64_t>> generations;  // (sid, gen) in order
  uint64_t events = 0;
  LossReport report;
};

Salvaged Salvage(absl::string_view bytes, size_t chunk_size = 1 << 20) {
  ReaderOptions options;
  options.salvage = true;
  options.chunk_size = chunk_size;
  Reader reader(MemorySource(bytes), options);
  Salvaged out;
  while (true) {
    absl::StatusOr<const Event*> event = reader.Next();
    EXPECT_TRUE(event.ok()) << event.status();
    if (!event.ok() || *event == nullptr) break;
    ++out.events;
    const std::pair<std::string, uint64_t> key(std::string((*event)->sid), (*event)->gen);
    if (out.generations.empty() || out.generations.back() != key) out.generations.push_back(key);
  }
  out.report = reader.loss_report();
  return out;
}

std::string Errors(const LossReport& report) {
  std::string out = report.Summary();
  for (const absl::Status& error : report.errors) absl::StrAppend(&out, "\n  ", error.message());
  return out;
}

using Gens = std::vector<std::pair<std::string, uint64_t>>;

// A shared file target: process A ran out of disk space inside its second generation's
// write; processes B, C and D appended complete traces after it. Whatever byte A's write
// stopped at, salvage recovers A's first generation and all of B, C and D.
TEST(SalvageTest, SharedFileWithAWriterCutShortRecoversEveryLaterProcess) {
  const std::string a = ProcessTrace("A", 2);
  const std::string first_a = Trace({}) + ProcessGeneration("A", 1, 10000, false);
  const std::string rest = ProcessTrace("B", 1) + ProcessTrace("C", 2) + ProcessTrace("D", 1);
  const Gens later = {{"B", 1}, {"C", 1}, {"C", 2}, {"D", 1}};
  for (size_t cut = first_a.size() + 1; cut < a.size(); ++cut) {
    SCOPED_TRACE(absl::StrCat("A's write stops at byte ", cut, " of ", a.size()));
    const std::string file = a.substr(0, cut) + rest;
    for (size_t chunk : {size_t{64}, size_t{1} << 20}) {
      const Salvaged got = Salvage(file, chunk);
      Gens expected = {{"A", 1}};
      expected.insert(expected.end(), later.begin(), later.end());
      EXPECT_EQ(got.generations, expected);
      EXPECT_EQ(got.report.generations_delivered, 5u);
      EXPECT_EQ(got.report.total_bytes, file.size());
      if (cut == first_a.size() + 16) {  // A wrote its header only: a valid file
        EXPECT_TRUE(got.report.clean()) << got.report.Summary();
        continue;
      }
      EXPECT_EQ(got.report.generations_lost, 1u) << got.report.Summary();
      ASSERT_EQ(got.report.errors.size(), 1u) << got.report.Summary();
      // A's second header counts as read when A wrote it whole.
      const size_t partial = cut - first_a.size();
      EXPECT_EQ(got.report.lost_bytes, partial > 16 ? partial - 16 : partial)
          << got.report.Summary();
    }
  }
}

// Without repeated file headers (one header, generations back to back, as `tracewire
// import` writes): damage inside generation 2 loses generation 2 only.
TEST(SalvageTest, DamageInsideAGenerationLosesOnlyThatGeneration) {
  const std::vector<std::string> gens = {ProcessGeneration("P", 1, 10000, false),
                                         ProcessGeneration("P", 2, 20000, false),
                                         ProcessGeneration("P", 3, 30000, true)};
  const std::string clean = Trace(gens);
  const size_t begin = 16 + gens[0].size();
  const size_t end = begin + gens[1].size();
  int checked = 0;
  for (size_t at = begin; at < end; ++at) {
    for (uint8_t value : {uint8_t{0x00}, uint8_t{0xff}, uint8_t{0x99}}) {
      std::string damaged = clean;
      if (static_cast<uint8_t>(damaged[at]) == value) continue;
      damaged[at] = static_cast<char>(value);
      SCOPED_TRACE(absl::StrCat("byte ", at, " set to ", value));
      const Salvaged got = Salvage(damaged);
      // Generations 1 and 3 always survive; 2 survives only if the damage left it valid
      // (a changed byte inside a string, for example).
      ASSERT_GE(got.generations.size(), 2u) << Errors(got.report);
      EXPECT_EQ(got.generations.front(), std::make_pair(std::string("P"), uint64_t{1}));
      EXPECT_EQ(got.generations.back(), std::make_pair(std::string("P"), uint64_t{3}));
      if (got.generations.size() == 2) {
        EXPECT_EQ(got.report.generations_lost, 1u) << got.report.Summary();
        EXPECT_EQ(got.report.errors.size(), 1u) << got.report.Summary();
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(SalvageTest, GarbageBetweenGenerationsIsSkipped) {
  const std::string g1 = ProcessGeneration("P", 1, 10000, false);
  const std::string g2 = ProcessGeneration("P", 2, 20000, true);
  std::mt19937 random(14);
  std::string noise(300, '\0');
  for (char& c : noise) c = static_cast<char>(random());
  for (const std::string& garbage :
       {std::string("\x00", 1), std::string(100, '\xff'), std::string("\x89TWR garbage"),
        std::string("\x01\x02\x00\x00\x40", 5), noise}) {
    SCOPED_TRACE(absl::StrCat(garbage.size(), " bytes of garbage"));
    const Salvaged got = Salvage(Trace({g1}) + garbage + g2);
    EXPECT_EQ(got.generations, (Gens{{"P", 1}, {"P", 2}}));
    EXPECT_EQ(got.report.lost_bytes, garbage.size()) << got.report.Summary();
    EXPECT_EQ(got.report.errors.size(), 1u) << got.report.Summary();
  }
}

TEST(SalvageTest, ABadFirstHeaderIsSkipped) {
  const std::string trace = ProcessTrace("P", 2);
  std::string damaged = trace;
  damaged[1] = 'X';  // the first header's magic
  const Salvaged got = Salvage(damaged);
  // The first frame of generation 1 follows the bad header.
  EXPECT_EQ(got.generations, (Gens{{"P", 1}, {"P", 2}}));
  EXPECT_EQ(got.report.lost_bytes, 16u);
  EXPECT_EQ(got.report.errors.size(), 1u) << Errors(got.report);
}

TEST(SalvageTest, GarbageBeforeTheFirstHeaderIsSkipped) {
  const std::string trace = ProcessTrace("P", 2);
  const Salvaged got = Salvage(std::string(1000, 'x') + trace);
  EXPECT_EQ(got.generations, (Gens{{"P", 1}, {"P", 2}}));
  EXPECT_EQ(got.report.lost_bytes, 1000u);
}

// Frames that imitate a generation boundary everywhere (a hostile input): salvage still
// ends, having spent a bounded rescanning budget.
TEST(SalvageTest, ImitatedBoundariesEverywhereEnd) {
  std::string hostile = Trace({}) + ProcessGeneration("P", 1, 10000, false);
  hostile.resize(hostile.size() - 2);  // generation 1 without its end_of_generation
  // Empty event batches of generation 2, each a well-formed frame, for 512 KiB: every
  // one is a place to resume, and from each the rest of the input frames until its end.
  const std::string fake("\x01\x02\x00\x00\x00", 5);
  while (hostile.size() < (size_t{512} << 10)) hostile += fake;
  const Salvaged got = Salvage(hostile);
  EXPECT_TRUE(got.generations.empty());
  EXPECT_EQ(got.report.total_bytes, hostile.size());
  ASSERT_EQ(got.report.errors.size(), 2u) << Errors(got.report);
  EXPECT_EQ(got.report.errors[1].code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(got.report.errors[1].message().find("resynchronisation abandoned"), std::string::npos);
}

}  // namespace
}  // namespace tracewire::reader
