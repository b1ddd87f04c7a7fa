// Stack symbolization in the reader: module records attach frames to modules, the
// symbolizer names functions and source lines from a real ELF file with DWARF, checks
// build IDs, and opens nothing but regular files named by the (untrusted) trace.
#include "reader/symbolizer.h"

#include <sys/stat.h>

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "format/batch_encoder.h"
#include "gtest/gtest.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "tests/cli/cli_runner.h"
#include "tests/reader/trace_builder.h"

namespace tracewire::reader {
namespace {

using format::EventType;
using testing::GenBuilder;

using cli_test::NewTempDir;
using cli_test::ReadFile;
using cli_test::Runfile;

// A stack_batch frame of generation 1 holding one module record.
std::string ModuleBatch(std::initializer_list<uint64_t> args) {
  std::string out;
  format::TableStreamEncoder stacks(EventType::kStackBatch, 1, &out);
  EXPECT_TRUE(stacks.Append(EventType::kModule, std::vector<uint64_t>(args)).ok());
  stacks.Flush();
  return out;
}

GenBuilder Base() {
  GenBuilder g(1);
  g.Ev(0, EventType::kVersion, 1100, g.Site("main.c", 5), {g.S("1.0")});
  return g;
}

// A frame of the stack of the only data event of a trace, copied out of the reader.
struct FrameCopy {
  uint64_t pc = 0;
  std::string func;
  std::string module;
  uint64_t module_offset = 0;
  std::string text;  // FrameText
};

std::vector<FrameCopy> StackOfData(const std::string& trace, absl::Status* status) {
  Reader reader(MemorySource(trace));
  std::vector<FrameCopy> frames;
  *status = absl::OkStatus();
  while (true) {
    absl::StatusOr<const Event*> event = reader.Next();
    if (!event.ok()) {
      *status = event.status();
      break;
    }
    if (*event == nullptr) break;
    if ((*event)->kind != EventKind::kData) continue;
    for (const SymbolFrame& f : (*event)->stack) {
      frames.push_back({f.pc, std::string(f.func), std::string(f.module), f.module_offset,
                        FrameText(f)});
    }
  }
  return frames;
}

TEST(ModuleRecordTest, FramesGetTheirModuleOffsetAndDemangledNames) {
  GenBuilder g = Base();
  const uint64_t path = g.S("/nonexistent/libexample.so");
  const uint64_t id = g.S("0123abcd");
  const uint64_t mangled = g.S("_ZN7example5innerEi");
  const uint64_t stack =
      g.Stack({{0x7f0000001234, mangled, 0, 0}, {0x7f0000009000, 0, 0, 0}, {0x10, 0, 0, 0}});
  // Two modules; the second starts inside the first's range: it wins from its start on.
  g.AddFrames(ModuleBatch({1, 0x7f0000000000, 0x7f0000010000, 0x7f0000000000, path, id}));
  g.AddFrames(ModuleBatch({2, 0x7f0000008000, 0x7f000000a000, 0x7f0000007000, path, 0}));
  g.Raw(0, EventType::kStackRef, 1200, {stack});
  g.Ev(0, EventType::kData, 1300, g.Site("a.c", 7, "cat", "key"), {g.S("v")});
  absl::Status status;
  const std::vector<FrameCopy> frames = StackOfData(testing::Trace({g.Finish()}), &status);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].func, "example::inner(int)");  // the trace's name, demangled
  EXPECT_EQ(frames[0].module, "/nonexistent/libexample.so");
  EXPECT_EQ(frames[0].module_offset, 0x1234u);
  EXPECT_EQ(frames[1].module, "/nonexistent/libexample.so");
  EXPECT_EQ(frames[1].module_offset, 0x2000u);  // module 2's bias
  EXPECT_EQ(frames[1].func, "");
  EXPECT_EQ(frames[2].module, "");  // below every module
  EXPECT_EQ(frames[0].text, "example::inner(int) [/nonexistent/libexample.so+0x1234]");
  EXPECT_EQ(frames[2].text, "0x10");
}

TEST(ModuleRecordTest, BadModuleRecordsAreDataLoss) {
  struct Case {
    std::vector<uint64_t> args;
    std::string reason;
  };
  for (const Case& c : std::vector<Case>{
           {{1, 0x2000, 0x2000, 0, 0, 0}, "module 1: empty address range [0x2000, 0x2000)"},
           {{1, 0x1000, 0x2000, 0, 77, 0}, "module 1: path_string 77 is not in the string table"},
           {{1, 0x1000, 0x2000, 0, 0, 78},
            "module 1: build_id_string 78 is not in the string table"},
           {{0, 0x1000, 0x2000, 0, 0, 0}, "module record with ID 0"},
       }) {
    GenBuilder g = Base();
    g.AddFrames(ModuleBatch({c.args[0], c.args[1], c.args[2], c.args[3], c.args[4], c.args[5]}));
    absl::Status status;
    StackOfData(testing::Trace({g.Finish()}), &status);
    EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
    EXPECT_TRUE(absl::StrContains(status.message(), c.reason)) << status;
  }
  GenBuilder g = Base();
  g.AddFrames(ModuleBatch({3, 0x1000, 0x2000, 0, 0, 0}));
  g.AddFrames(ModuleBatch({3, 0x3000, 0x4000, 0, 0, 0}));
  absl::Status status;
  StackOfData(testing::Trace({g.Finish()}), &status);
  EXPECT_TRUE(absl::StrContains(status.message(), "duplicate module ID 3")) << status;
}

// The fixture prints the return address of its call to fixture_leaf and its load bias.
struct FixtureRun {
  std::string path;
  uint64_t return_address = 0;
  uint64_t bias = 0;
  int call_line = 0;
};

// Runs `fixture` (a runfile path); call_line is the line marked `marker` in `source`.
FixtureRun RunFixture(const std::string& fixture = "tests/reader/symbolize_fixture",
                      const std::string& source = "tests/reader/testdata/symbolize_fixture.c",
                      const std::string& marker = "FIXTURE_CALL_LINE") {
  FixtureRun run;
  run.path = Runfile(fixture);
  FILE* out = popen(run.path.c_str(), "r");
  EXPECT_NE(out, nullptr);
  char line[128] = {};
  if (out != nullptr) {
    if (fgets(line, sizeof(line), out) == nullptr) line[0] = '\0';
    pclose(out);
  }
  std::vector<std::string> words = absl::StrSplit(absl::StripAsciiWhitespace(line), ' ');
  EXPECT_EQ(words.size(), 2u) << line;
  if (words.size() == 2) {
    EXPECT_TRUE(absl::SimpleHexAtoi(words[0], &run.return_address));
    EXPECT_TRUE(absl::SimpleHexAtoi(words[1], &run.bias));
  }
  int number = 0;
  for (absl::string_view source_line :
       absl::StrSplit(ReadFile(Runfile(source)), '\n')) {
    ++number;
    if (absl::StrContains(source_line, marker)) run.call_line = number;
  }
  return run;
}

TEST(SymbolizerTest, NamesFunctionFileAndLineFromDwarf) {
  const FixtureRun run = RunFixture();
  ASSERT_NE(run.return_address, 0u);
  ASSERT_GT(run.call_line, 0);
  Symbolizer symbolizer;
  const SymbolInfo info = symbolizer.Lookup(run.path, "", run.bias, run.return_address);
  EXPECT_EQ(info.func, "fixture_caller");
  EXPECT_TRUE(absl::EndsWith(info.file, "symbolize_fixture.c")) << info.file;
  EXPECT_EQ(info.line, static_cast<uint64_t>(run.call_line));
  // Cached: the same views again.
  const SymbolInfo again = symbolizer.Lookup(run.path, "", run.bias, run.return_address);
  EXPECT_EQ(again.func.data(), info.func.data());
  // Another build ID recorded: the file is not the traced one, nothing is claimed.
  const SymbolInfo other = symbolizer.Lookup(run.path, "00ff", run.bias, run.return_address);
  EXPECT_EQ(other.func, "");
  EXPECT_EQ(other.file, "");
}

TEST(SymbolizerTest, NamesEveryFunctionOfAnInlineChain) {
  const FixtureRun inner = RunFixture("tests/reader/inline_fixture",
                                      "tests/reader/testdata/inline_fixture.c", "INLINED_CALL_LINE");
  const FixtureRun outer = RunFixture("tests/reader/inline_fixture",
                                      "tests/reader/testdata/inline_fixture.c", "OUTER_CALL_LINE");
  ASSERT_NE(inner.return_address, 0u);
  ASSERT_GT(inner.call_line, 0);
  ASSERT_GT(outer.call_line, 0);
  Symbolizer symbolizer;
  // The call is in fixture_inlined (its own line), inlined into fixture_outer (the line
  // of the inlined call).
  const absl::Span<const SymbolInfo> frames =
      symbolizer.LookupFrames(inner.path, "", inner.bias, inner.return_address);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].func, "fixture_inlined");
  EXPECT_TRUE(absl::EndsWith(frames[0].file, "inline_fixture.c")) << frames[0].file;
  EXPECT_EQ(frames[0].line, static_cast<uint64_t>(inner.call_line));
  EXPECT_EQ(frames[1].func, "fixture_outer");
  EXPECT_TRUE(absl::EndsWith(frames[1].file, "inline_fixture.c")) << frames[1].file;
  EXPECT_EQ(frames[1].line, static_cast<uint64_t>(outer.call_line));
  // Lookup names the innermost function.
  EXPECT_EQ(symbolizer.Lookup(inner.path, "", inner.bias, inner.return_address).func,
            "fixture_inlined");
  // No inlining at the call: one frame.
  const FixtureRun plain = RunFixture();
  EXPECT_EQ(symbolizer.LookupFrames(plain.path, "", plain.bias, plain.return_address).size(), 1u);
}

TEST(SymbolizerTest, AnInlinedFrameOfATraceBecomesItsChainInTheEventsStack) {
  const FixtureRun inner = RunFixture("tests/reader/inline_fixture",
                                      "tests/reader/testdata/inline_fixture.c", "INLINED_CALL_LINE");
  const FixtureRun outer = RunFixture("tests/reader/inline_fixture",
                                      "tests/reader/testdata/inline_fixture.c", "OUTER_CALL_LINE");
  ASSERT_NE(inner.return_address, 0u);
  // A stack of three frames: below the fixture's module, the inlined call, below again;
  // and a second event with the same stack after a stack of one frame.
  GenBuilder g = Base();
  const uint64_t path = g.S(inner.path);
  const uint64_t pc = inner.return_address;
  const uint64_t start = pc & ~uint64_t{0xfffff};
  const uint64_t one = g.Stack({{0x10, 0, 0, 0}});
  const uint64_t three = g.Stack({{0x20, 0, 0, 0}, {pc, 0, 0, 0}, {0x30, 0, 0, 0}});
  g.AddFrames(ModuleBatch({1, start, start + 0x200000, inner.bias, path, 0}));
  g.Raw(0, EventType::kStackRef, 1200, {three});
  g.Ev(0, EventType::kData, 1300, g.Site("a.c", 7, "cat", "key"), {g.S("v")});
  g.Raw(0, EventType::kStackRef, 1400, {one});
  g.Ev(0, EventType::kData, 1500, g.Site("a.c", 8, "cat", "key"), {g.S("w")});
  g.Raw(0, EventType::kStackRef, 1600, {three});
  g.Ev(0, EventType::kData, 1700, g.Site("a.c", 9, "cat", "key"), {g.S("x")});
  absl::Status status;
  const std::vector<FrameCopy> frames = StackOfData(testing::Trace({g.Finish()}), &status);
  ASSERT_TRUE(status.ok()) << status;
  // 4 + 1 + 4 frames: the inlined call is two.
  ASSERT_EQ(frames.size(), 9u);
  for (size_t first : {size_t{0}, size_t{5}}) {
    EXPECT_EQ(frames[first].pc, 0x20u);
    EXPECT_EQ(frames[first + 1].pc, pc);
    EXPECT_EQ(frames[first + 1].func, "fixture_inlined");
    EXPECT_TRUE(absl::StrContains(frames[first + 1].text,
                                  absl::StrCat("inline_fixture.c:", inner.call_line, ")")))
        << frames[first + 1].text;
    EXPECT_EQ(frames[first + 2].pc, pc);
    EXPECT_EQ(frames[first + 2].func, "fixture_outer");
    EXPECT_TRUE(absl::StrContains(frames[first + 2].text,
                                  absl::StrCat("inline_fixture.c:", outer.call_line, ")")))
        << frames[first + 2].text;
    EXPECT_EQ(frames[first + 2].module, inner.path);
    EXPECT_EQ(frames[first + 3].pc, 0x30u);
  }
  EXPECT_EQ(frames[4].pc, 0x10u);
}

TEST(SymbolizerTest, OpensOnlyRegularFilesNamedByAbsolutePaths) {
  const std::string fifo = NewTempDir("symbolizer") + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  Symbolizer symbolizer;
  for (const std::string& path :
       {fifo, std::string("/dev/zero"), std::string("/"), std::string("relative/lib.so"),
        std::string(""), std::string("/nonexistent/lib.so"), std::string("/etc/hostname")}) {
    const SymbolInfo info = symbolizer.Lookup(path, "", 0, 0x1234);
    EXPECT_EQ(info.func, "") << path;
    EXPECT_EQ(info.file, "") << path;
  }
}

}  // namespace
}  // namespace tracewire::reader
