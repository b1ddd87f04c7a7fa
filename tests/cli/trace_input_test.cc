// TraceInput: a trace argument read as one stream of events, and its second pass.
#include "tools/cli/trace_input.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "reader/frame_reader.h"
#include "tests/reader/trace_builder.h"

namespace tracewire::tools {
namespace {

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// Generations framed in `source` by a fresh FrameReader.
int CountGenerations(reader::ByteSource* source) {
  reader::FrameReader frames(source);
  EXPECT_TRUE(frames.ReadHeader().ok());
  reader::RawGeneration generation;
  int n = 0;
  while (true) {
    absl::StatusOr<bool> more = frames.Next(&generation);
    EXPECT_TRUE(more.ok()) << more.status();
    if (!more.ok() || !*more) return n;
    ++n;
  }
}

TEST(TraceInputTest, CloseReadersKeepsWhatTheSecondPassNeeds) {
  const std::string trace = testing::DemoTrace();
  const std::string path = WriteTemp("demo.twr", trace);
  absl::StatusOr<std::unique_ptr<TraceInput>> input = TraceInput::Open(path, {});
  ASSERT_TRUE(input.ok()) << input.status();
  uint64_t events = 0;
  while (true) {
    absl::StatusOr<const reader::Event*> event = (*input)->Next();
    ASSERT_TRUE(event.ok()) << event.status();
    if (*event == nullptr) break;
    ++events;
  }
  ASSERT_GT(events, 0u);
  const size_t processes = (*input)->num_processes();
  const uint64_t bytes_read = (*input)->bytes_read();
  ASSERT_EQ(processes, 1u);
  EXPECT_EQ(bytes_read, trace.size());
  const uint64_t generations = (*input)->generations();
  ASSERT_GT(generations, 0u);

  (*input)->CloseReaders();
  // The values a report needs are kept; reading goes on returning the end.
  EXPECT_EQ((*input)->num_processes(), processes);
  EXPECT_EQ((*input)->bytes_read(), bytes_read);
  EXPECT_EQ((*input)->files(), std::vector<std::string>{path});
  absl::StatusOr<const reader::Event*> after = (*input)->Next();
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(*after, nullptr);
  absl::StatusOr<uint64_t> skipped = (*input)->SkipEvents(10);
  ASSERT_TRUE(skipped.ok()) << skipped.status();
  EXPECT_EQ(*skipped, 0u);
  EXPECT_EQ((*input)->generations(), 0u);
  // The second pass sees every generation the first delivered.
  absl::StatusOr<std::unique_ptr<reader::ByteSource>> source = (*input)->Reopen(0);
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_EQ(static_cast<uint64_t>(CountGenerations(source->get())), generations);
}

// Counts the processes as `tracewire validate` does: count-only reads, serial or with
// parallel workers.
size_t ProcessesValidateCounts(const std::string& path, int jobs) {
  reader::ParallelOptions parallel;
  parallel.jobs = jobs;
  parallel.count_only = true;
  parallel.commit = [](reader::CommittedBlock) {};
  reader::ReaderOptions options;
  options.count_only = true;
  absl::StatusOr<std::unique_ptr<TraceInput>> input =
      TraceInput::Open(path, options, /*keep_stdin=*/false, jobs > 1 ? &parallel : nullptr);
  EXPECT_TRUE(input.ok()) << input.status();
  if (!input.ok()) return 0;
  while (true) {
    absl::StatusOr<uint64_t> n = (*input)->SkipEvents(4096);
    EXPECT_TRUE(n.ok()) << n.status();
    if (!n.ok() || *n == 0) break;
  }
  return (*input)->num_processes();
}

// A process whose only generation holds no event (cut inside tw_initialize, before any
// event) is a process of the trace all the same: its process_info names it.
TEST(TraceInputTest, AProcessWithoutEventsIsCounted) {
  const std::string quiet = testing::Trace({testing::GenBuilder(1, "quiet").Finish()});
  const std::string file = WriteTemp("quiet.twr", quiet);
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/quiet_and_demo";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/quiet.twr", std::ios::binary) << quiet;
  std::ofstream(dir + "/demo.twr", std::ios::binary) << testing::DemoTrace();
  for (int jobs : {1, 2}) {
    EXPECT_EQ(ProcessesValidateCounts(file, jobs), 1u) << "jobs " << jobs;
    EXPECT_EQ(ProcessesValidateCounts(dir, jobs), 2u) << "jobs " << jobs;
  }
  // Decoding (Next) counts it too.
  absl::StatusOr<std::unique_ptr<TraceInput>> input = TraceInput::Open(file, {});
  ASSERT_TRUE(input.ok()) << input.status();
  absl::StatusOr<const reader::Event*> event = (*input)->Next();
  ASSERT_TRUE(event.ok()) << event.status();
  EXPECT_EQ(*event, nullptr);
  EXPECT_EQ((*input)->num_processes(), 1u);
  EXPECT_EQ((*input)->generations(), 1u);
}

}  // namespace
}  // namespace tracewire::tools
