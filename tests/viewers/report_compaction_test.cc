// ReportModel compacts runs of narrow regions while it reads (so that `tracewire report`'s
// memory grows with the pixels it draws, not with the regions): the page is the page
// drawn from every region, byte for byte, and the rows stay small.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "tests/bench/synthetic_trace.h"
#include "tools/analysis/report_html.h"
#include "tools/analysis/report_model.h"

namespace tracewire::tools {
namespace {

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void AddAll(const std::string& trace, ReportModel* model) {
  reader::ReaderOptions options;
  options.salvage = true;
  reader::Reader reader(reader::MemorySource(trace, "t"), options);
  while (true) {
    absl::StatusOr<const reader::Event*> event = reader.Next();
    ASSERT_TRUE(event.ok()) << event.status();
    if (*event == nullptr) break;
    model->Add(**event);
  }
  model->Finish();
}

size_t RowEntries(const ReportModel& model) {
  size_t entries = 0;
  for (const auto& process : model.processes()) {
    for (const auto& [id, thread] : process->threads) {
      for (const auto& row : thread.rows) entries += row.size();
    }
  }
  return entries;
}

// Returns the entries kept with compaction from `compact_from`, and without.
std::pair<size_t, size_t> ExpectSamePage(const std::string& name, const std::string& trace,
                                         size_t compact_from) {
  ReportModel compacted(compact_from);
  ReportModel whole(std::numeric_limits<size_t>::max());
  AddAll(trace, &compacted);
  AddAll(trace, &whole);
  for (const int width : {1000, 600}) {
    ReportHtmlOptions options;
    options.trace_name = name;
    options.timeline_width = width;
    const std::string expected = RenderReportHtml(whole, options);
    const std::string page = RenderReportHtml(compacted, options);
    EXPECT_EQ(page.size(), expected.size()) << name << " at width " << width;
    EXPECT_TRUE(page == expected) << name << " at width " << width;
  }
  return {RowEntries(compacted), RowEntries(whole)};
}

TEST(ReportCompactionTest, ManyNarrowRegionsInBursts) {
  const bench::SyntheticTrace synth(/*threads=*/3, /*events_per_generation=*/50000,
                                    /*bursty=*/true);
  const std::string path = testing::TempDir() + "/bursty.twr";
  synth.WriteFile(path, /*min_events=*/600000, /*min_bytes=*/0);
  const auto [compacted, whole] = ExpectSamePage("bursty", ReadFile(path), 4096);
  EXPECT_GT(whole, 100000u);
  EXPECT_LT(compacted, 30000u) << "rows of about a few entries per pixel";
}

TEST(ReportCompactionTest, RealTracesCompactedEarly) {
  // The reader fuzz target's committed inputs: process trees, imported git traces, task
  // workloads, damaged traces (salvaged); every row compacted from its 8th region.
  int traces = 0;
  for (const auto& entry : std::filesystem::directory_iterator("tests/fuzz/corpus/reader")) {
    ExpectSamePage(entry.path().string(), ReadFile(entry.path()), 8);
    if (HasFailure()) return;
    ++traces;
  }
  EXPECT_GT(traces, 500);
}

}  // namespace
}  // namespace tracewire::tools
