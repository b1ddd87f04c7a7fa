// Process-tree merge of several processes' traces, and directory input.
#include "reader/process_tree.h"

#include <sys/stat.h>

#include <cstdio>
#include <memory>
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
using ::tracewire::testing::kBaseWallSec;
using ::tracewire::testing::Trace;
using E = format::EventType;

constexpr uint64_t kSecond = 1'000'000'000;

// Process A (root), A/B (child, whose trace clock runs one second ahead) and A/B/C.
std::string ProcessA() {
  GenBuilder g(1, "A", 100);
  g.Ev(0, E::kVersion, 1100, g.Site("m.c", 1), {g.S("2.39.5")});
  g.Ev(0, E::kChildStart, 1200, g.Site("m.c", 2), {0, g.S("?"), 0, 0, 2, g.L({"b"})});
  g.Ev(0, E::kData, 1500, g.Site("m.c", 3, "c", "k"), {g.S("tie")});
  g.Ev(0, E::kChildExit, 1900, g.Site("m.c", 4), {0, 200, 0, 700});
  g.Ev(0, E::kAtexit, 2000, g.Site("m.c", 5), {0});
  return Trace({g.Finish()});
}

std::string ProcessB() {
  // Its clock reads kSecond + 1000 when the wall clock reads kBaseWallSec.
  GenBuilder g(7, "A/B", 200, kSecond + 1000, kSecond + 1000, kSecond, 3600, kBaseWallSec - 1);
  g.Ev(0, E::kVersion, kSecond + 1300, g.Site("m.c", 1), {g.S("2.39.5")});
  g.Ev(0, E::kChildStart, kSecond + 1400, g.Site("m.c", 2), {0, g.S("?"), 0, 0, 2, g.L({"c"})});
  g.Ev(0, E::kChildExit, kSecond + 1700, g.Site("m.c", 4), {0, 300, 0, 300});
  g.Ev(0, E::kAtexit, kSecond + 1800, g.Site("m.c", 5), {0});
  return Trace({g.Finish()});
}

std::string ProcessC() {
  GenBuilder g(1, "A/B/C", 300);
  g.Ev(0, E::kVersion, 1500, g.Site("m.c", 1), {g.S("2.39.5")});
  g.Ev(0, E::kAtexit, 1600, g.Site("m.c", 5), {0});
  return Trace({g.Finish()});
}

struct Merged {
  std::vector<std::string> lines;  // "<sid> <event> +<ns since base>"
  absl::Status status;
};

Merged ReadMerged(ProcessTreeReader& tree) {
  Merged out;
  while (true) {
    absl::StatusOr<const Event*> e = tree.Next();
    if (!e.ok()) {
      out.status = e.status();
      return out;
    }
    if (*e == nullptr) return out;
    out.lines.push_back(
        absl::StrCat((*e)->sid, " ", EventKindName((*e)->kind), " +",
                     absl::ToInt64Nanoseconds((*e)->time - absl::FromUnixSeconds(kBaseWallSec))));
    EXPECT_EQ(tree.processes()[tree.last_process()].sid, (*e)->sid);
  }
}

const std::vector<std::string> kExpectedOrder = {
    "A version +100",  "A child_start +200", "A/B version +300",  "A/B child_start +400",
    "A data +500",     "A/B/C version +500", "A/B/C atexit +600", "A/B child_exit +700",
    "A/B atexit +800", "A child_exit +900",  "A atexit +1000",
};

TEST(ProcessTreeTest, MergesThreeProcessesByWallTimeAndLinksTheTree) {
  const std::string a = ProcessA(), b = ProcessB(), c = ProcessC();
  std::vector<std::unique_ptr<Reader>> readers;
  readers.push_back(std::make_unique<Reader>(MemorySource(c, "c.twr")));
  readers.push_back(std::make_unique<Reader>(MemorySource(a, "a.twr")));
  readers.push_back(std::make_unique<Reader>(MemorySource(b, "b.twr")));
  absl::StatusOr<std::unique_ptr<ProcessTreeReader>> tree =
      ProcessTreeReader::Create(std::move(readers));
  ASSERT_TRUE(tree.ok()) << tree.status();
  const std::vector<ProcessNode>& nodes = (*tree)->processes();
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[0].sid, "A/B/C");
  EXPECT_EQ(nodes[0].parent, 2);
  EXPECT_EQ(nodes[0].depth, 2);
  EXPECT_EQ(nodes[1].sid, "A");
  EXPECT_EQ(nodes[1].parent, -1);
  EXPECT_EQ(nodes[1].children, std::vector<int>({2}));
  EXPECT_EQ(nodes[2].sid, "A/B");
  EXPECT_EQ(nodes[2].parent, 1);
  EXPECT_EQ(nodes[2].children, std::vector<int>({0}));
  EXPECT_EQ(nodes[2].source, "b.twr");

  const Merged merged = ReadMerged(**tree);
  EXPECT_TRUE(merged.status.ok()) << merged.status;
  EXPECT_EQ(merged.lines, kExpectedOrder);
}

TEST(ProcessTreeTest, MissingIntermediateProcessLinksToTheNearestAncestor) {
  const std::string a = ProcessA(), c = ProcessC();
  std::vector<std::unique_ptr<Reader>> readers;
  readers.push_back(std::make_unique<Reader>(MemorySource(a)));
  readers.push_back(std::make_unique<Reader>(MemorySource(c)));
  absl::StatusOr<std::unique_ptr<ProcessTreeReader>> tree =
      ProcessTreeReader::Create(std::move(readers));
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_EQ((*tree)->processes()[1].parent, 0);
}

TEST(ProcessTreeTest, OneFileHoldingTwoProcesses) {
  // A and A/B/C appended to one file (each after its own header); A/B alone.
  const std::string a = ProcessA(), b = ProcessB(), c = ProcessC();
  const std::string shared = a + c;
  std::vector<std::unique_ptr<Reader>> readers;
  readers.push_back(std::make_unique<Reader>(MemorySource(shared, "shared.twr")));
  readers.push_back(std::make_unique<Reader>(MemorySource(b, "b.twr")));
  absl::StatusOr<std::unique_ptr<ProcessTreeReader>> tree =
      ProcessTreeReader::Create(std::move(readers));
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ((*tree)->processes().size(), 2u);  // A/B/C is not met yet
  const Merged merged = ReadMerged(**tree);
  EXPECT_TRUE(merged.status.ok()) << merged.status;
  const std::vector<ProcessNode>& nodes = (*tree)->processes();
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[0].sid, "A");
  EXPECT_EQ(nodes[1].sid, "A/B");
  EXPECT_EQ(nodes[1].parent, 0);
  EXPECT_EQ(nodes[2].sid, "A/B/C");
  EXPECT_EQ(nodes[2].parent, 1);
  EXPECT_EQ(nodes[2].source, "shared.twr");
  // Within one input the order is the file's: all of A, then A/B/C.
  EXPECT_EQ(merged.lines.size(), kExpectedOrder.size());
}

TEST(ProcessTreeTest, ALaterAncestorAdoptsKnownDescendants) {
  const std::string a = ProcessA(), c = ProcessC(), b = ProcessB();
  const std::string c_then_b = c + b;
  std::vector<std::unique_ptr<Reader>> readers;
  readers.push_back(std::make_unique<Reader>(MemorySource(a)));
  readers.push_back(std::make_unique<Reader>(MemorySource(c_then_b)));
  absl::StatusOr<std::unique_ptr<ProcessTreeReader>> tree =
      ProcessTreeReader::Create(std::move(readers));
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_EQ((*tree)->processes()[1].parent, 0);  // A/B/C under A until A/B appears
  ReadMerged(**tree);
  const std::vector<ProcessNode>& nodes = (*tree)->processes();
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[2].sid, "A/B");
  EXPECT_EQ(nodes[1].parent, 2);
  EXPECT_EQ(nodes[0].children, std::vector<int>({2}));
  EXPECT_EQ(nodes[2].children, std::vector<int>({1}));
}

TEST(ProcessTreeTest, AnInputErrorEndsTheMergeAndNamesTheInput) {
  const std::string a = ProcessA();
  std::string b = ProcessB();
  b.resize(b.size() - 2);  // truncated: no end_of_generation
  std::vector<std::unique_ptr<Reader>> readers;
  readers.push_back(std::make_unique<Reader>(MemorySource(a, "a.twr")));
  readers.push_back(std::make_unique<Reader>(MemorySource(b, "b.twr")));
  absl::StatusOr<std::unique_ptr<ProcessTreeReader>> tree =
      ProcessTreeReader::Create(std::move(readers));
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(tree.status().message().substr(0, 20), "b.twr: generation 7:");
}

TEST(ProcessTreeTest, SkippingFailedInputsMergesTheOthersToTheirEnds) {
  const std::string a = ProcessA(), c = ProcessC();
  std::string b = ProcessB();
  b.resize(b.size() - 2);  // truncated: no end_of_generation, so none of its events
  const std::string empty;
  std::vector<std::unique_ptr<Reader>> readers;
  readers.push_back(std::make_unique<Reader>(MemorySource(empty, "empty.twr")));
  readers.push_back(std::make_unique<Reader>(MemorySource(a, "a.twr")));
  readers.push_back(std::make_unique<Reader>(MemorySource(b, "b.twr")));
  readers.push_back(std::make_unique<Reader>(MemorySource(c, "c.twr")));
  ProcessTreeOptions options;
  options.skip_failed_inputs = true;
  absl::StatusOr<std::unique_ptr<ProcessTreeReader>> tree =
      ProcessTreeReader::Create(std::move(readers), options);
  ASSERT_TRUE(tree.ok()) << tree.status();
  const Merged merged = ReadMerged(**tree);
  EXPECT_TRUE(merged.status.ok()) << merged.status;
  std::vector<std::string> expected;
  for (const std::string& line : kExpectedOrder) {
    if (line.substr(0, 4) != "A/B ") expected.push_back(line);
  }
  EXPECT_EQ(merged.lines, expected);
  const std::vector<SkippedInput>& skipped = (*tree)->skipped();
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_EQ(skipped[0].input, 0);
  EXPECT_EQ(skipped[0].events_delivered, 0u);
  EXPECT_EQ(skipped[0].status.message().substr(0, 10), "empty.twr:");
  EXPECT_EQ(skipped[1].input, 2);
  EXPECT_EQ(skipped[1].status.code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(skipped[1].status.message().substr(0, 20), "b.twr: generation 7:");
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
}

TEST(ProcessTreeTest, DirectoryInput) {
  const std::string dir = absl::StrCat(::testing::TempDir(), "/trace_dir");
  mkdir(dir.c_str(), 0755);
  WriteFile(dir + "/20260101T000000.000000Z-H0-P1", ProcessA());
  WriteFile(dir + "/20260101T000000.000000Z-H0-P2", ProcessB());
  WriteFile(dir + "/20260101T000000.000000Z-H0-P3", ProcessC());
  WriteFile(dir + "/.hidden", "not a trace");
  mkdir((dir + "/subdir").c_str(), 0755);
  absl::StatusOr<std::unique_ptr<ProcessTreeReader>> tree = ProcessTreeReader::OpenDirectory(dir);
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_EQ((*tree)->processes().size(), 3u);
  EXPECT_EQ((*tree)->processes()[0].source, dir + "/20260101T000000.000000Z-H0-P1");
  const Merged merged = ReadMerged(**tree);
  EXPECT_TRUE(merged.status.ok()) << merged.status;
  EXPECT_EQ(merged.lines, kExpectedOrder);

  EXPECT_EQ(ProcessTreeReader::OpenDirectory(dir + "/missing").status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace tracewire::reader
