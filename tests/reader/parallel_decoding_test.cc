// Parallel decoding (reader/parallel_decoding.h) gives exactly what a serial read gives:
// the same events (every field), the same error, the same loss report, whether workers hand
// over copies of the events or the payloads of their own work, on traces whose state
// crosses generation boundaries in every way the speculation has to check, on damaged
// traces, and on many processes merged by a ProcessTreeReader.
#include "reader/parallel_decoding.h"

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "format/varint.h"
#include "gtest/gtest.h"
#include "reader/byte_source.h"
#include "reader/process_tree.h"
#include "reader/reader.h"
#include "tests/reader/trace_builder.h"

namespace tracewire::reader {
namespace {

using ::tracewire::testing::DemoTrace;
using ::tracewire::testing::GenBuilder;
using ::tracewire::testing::Trace;
using E = format::EventType;

// Every field of an event that a consumer may read (those of other kinds are stale).
std::string Fingerprint(const Event& e) {
  std::string out = e.DebugString();
  absl::StrAppend(&out, " | ticks=", e.ticks, " thread_id=", e.thread_id, " tid=", e.thread_tid,
                  " wire=", e.wire_type, " utc=", e.utc_offset_sec, " stack=");
  for (const SymbolFrame& f : e.stack) absl::StrAppend(&out, f.pc, ":", f.func, ":", f.file, ";");
  if (e.kind == EventKind::kData || e.kind == EventKind::kDataJson) {
    absl::StrAppend(&out, " value=", static_cast<int>(e.value_kind), ":", e.value_string);
    if (e.value_kind == ValueKind::kInt) absl::StrAppend(&out, ":", e.value_int);
  }
  if (e.kind == EventKind::kExperimental) absl::StrAppend(&out, " exp=", e.experimental_data);
  return out;
}

// What a whole read gave.
struct Outcome {
  std::vector<std::string> events;
  std::string status;
  std::string loss;
  uint64_t delivered = 0;
  uint64_t generations = 0;
};

void Finish(const Reader& r, Outcome* out) {
  out->loss = r.loss_report().Summary();
  for (const absl::Status& s : r.loss_report().errors)
    absl::StrAppend(&out->loss, "\n", s.ToString());
  absl::StrAppend(&out->loss, "\nlost_events=", r.loss_report().lost_events,
                  " exact=", r.loss_report().lost_events_exact,
                  " generations_lost=", r.loss_report().generations_lost);
  out->delivered = r.events_delivered();
  out->generations = r.loss_report().generations_delivered;
}

// Reads `bytes` to the end (or the first error) into *out.
void ReadInto(absl::string_view bytes, const ReaderOptions& options, Outcome* out) {
  Reader r(MemorySource(bytes, "trace.twr"), options);
  while (true) {
    absl::StatusOr<const Event*> event = r.Next();
    if (!event.ok()) {
      out->status = event.status().ToString();
      break;
    }
    if (*event == nullptr) break;
    out->events.push_back(Fingerprint(**event));
  }
  Finish(r, out);
}

Outcome ReadWith(absl::string_view bytes, ReaderOptions options) {
  Outcome out;
  ReadInto(bytes, options, &out);
  return out;
}

// Workers fingerprint the events themselves; blocks of `block_events` events.
class FingerprintPayload : public BlockPayload {
 public:
  size_t bytes() const override { return 100 * lines.size(); }
  std::vector<std::string> lines;
};

class FingerprintWork : public GenerationWork {
 public:
  explicit FingerprintWork(size_t block_events) : block_events_(block_events) {}
  void Add(const Event& event) override { payload_->lines.push_back(Fingerprint(event)); }
  bool BlockFull() const override { return payload_->lines.size() >= block_events_; }
  std::unique_ptr<BlockPayload> TakeBlock() override {
    return std::exchange(payload_, std::make_unique<FingerprintPayload>());
  }

 private:
  size_t block_events_;
  std::unique_ptr<FingerprintPayload> payload_ = std::make_unique<FingerprintPayload>();
};

struct Mode {
  int jobs;
  bool work;            // workers run FingerprintWork (else they copy events)
  size_t block_events;  // FingerprintWork block size
  size_t max_block_bytes;
  bool reader_decodes_unstarted = true;
  bool split = false;  // split_generations (with work)
  uint64_t min_part_events = 1;
  // The budget for copies of framed generations: small ones leave generations uncopied
  // (decoded by the reader), some or all of them.
  size_t max_framed_bytes_per_job = size_t{40} << 20;
};

const Mode kModes[] = {
    {2, false, 0, size_t{16} << 20},
    {3, false, 0, 1},  // a queue of one block at a time
    {2, true, 1, size_t{16} << 20},
    {2, true, 3, 1},
    {4, true, 1000, size_t{16} << 20},
    {1, true, 2, 1},  // one worker thread
    // Generations cut into parts (the test traces' generations are small: any size).
    {2, true, 1, size_t{16} << 20, true, true, 1},
    {3, true, 2, 1, true, true, 1},
    {2, true, 1000, size_t{16} << 20, true, true, 2},
    {4, true, 1, 1, false, true, 1},
    // Copies over the memory budget: none fits, or a few (the test generations are
    // hundreds of bytes).
    {2, false, 0, size_t{16} << 20, true, false, 1, 1},
    {3, true, 1, 1, true, false, 1, 1},
    {2, false, 0, 1, true, false, 1, 1500},
    {3, true, 2, size_t{16} << 20, true, false, 1, 700},
    {2, true, 1, 1, true, true, 1, 2000},
};

Outcome ReadParallel(absl::string_view bytes, bool salvage, const Mode& mode,
                     ParallelCounters* counters = nullptr) {
  Outcome out;
  ParallelOptions parallel;
  parallel.jobs = mode.jobs;
  parallel.max_block_bytes = mode.max_block_bytes;
  parallel.reader_decodes_unstarted = mode.reader_decodes_unstarted;
  parallel.split_generations = mode.split;
  parallel.min_part_events = mode.min_part_events;
  parallel.max_framed_bytes_per_job = mode.max_framed_bytes_per_job;
  if (mode.work) {
    parallel.make_work = [&mode] { return std::make_unique<FingerprintWork>(mode.block_events); };
    parallel.commit = [&out](CommittedBlock block) {
      auto& payload = static_cast<FingerprintPayload&>(*block.payload);
      EXPECT_EQ(payload.lines.size(), block.events);
      for (std::string& line : payload.lines) out.events.push_back(std::move(line));
    };
  }
  ReaderOptions options;
  options.salvage = salvage;
  options.parallel = std::make_shared<WorkerPool>(parallel);
  ReadInto(bytes, options, &out);
  if (counters != nullptr) *counters = options.parallel->counters();
  return out;
}

void ExpectSame(const Outcome& serial, const Outcome& parallel) {
  ASSERT_EQ(serial.events.size(), parallel.events.size());
  for (size_t i = 0; i < serial.events.size(); ++i) {
    ASSERT_EQ(serial.events[i], parallel.events[i]) << "event " << i;
  }
  EXPECT_EQ(serial.status, parallel.status);
  EXPECT_EQ(serial.loss, parallel.loss);
  EXPECT_EQ(serial.delivered, parallel.delivered);
  EXPECT_EQ(serial.generations, parallel.generations);
}

// Reads counting only, as `tracewire validate` does (ReaderOptions and ParallelOptions
// count_only): `events` holds one line per event.
Outcome ReadCounting(absl::string_view bytes, bool salvage, int jobs,
                     size_t max_framed_bytes_per_job = size_t{40} << 20) {
  Outcome out;
  ParallelOptions parallel;
  parallel.jobs = jobs;
  parallel.max_framed_bytes_per_job = max_framed_bytes_per_job;
  parallel.count_only = true;
  parallel.commit = [&out](CommittedBlock block) {
    EXPECT_EQ(block.payload, nullptr);
    out.events.insert(out.events.end(), block.events, "counted");
  };
  ReaderOptions options;
  options.salvage = salvage;
  options.count_only = true;
  options.parallel = std::make_shared<WorkerPool>(parallel);
  ReadInto(bytes, options, &out);
  return out;
}

void ExpectSameCount(const Outcome& serial, const Outcome& counted) {
  EXPECT_EQ(serial.events.size(), counted.events.size());
  EXPECT_EQ(serial.status, counted.status);
  EXPECT_EQ(serial.loss, counted.loss);
  EXPECT_EQ(serial.delivered, counted.delivered);
  EXPECT_EQ(serial.generations, counted.generations);
}

// Reads `trace` serially and in every parallel mode, strict and salvaging; returns the
// strict serial outcome.
Outcome ExpectSameEverywhere(const std::string& trace) {
  Outcome strict;
  for (const bool salvage : {false, true}) {
    ReaderOptions options;
    options.salvage = salvage;
    const Outcome serial = ReadWith(trace, options);
    if (!salvage) strict = serial;
    for (const Mode& mode : kModes) {
      SCOPED_TRACE(absl::StrCat("salvage=", salvage, " jobs=", mode.jobs, " work=", mode.work,
                                " block=", mode.block_events, " queue=", mode.max_block_bytes,
                                " split=", mode.split,
                                " framed_budget=", mode.max_framed_bytes_per_job));
      ExpectSame(serial, ReadParallel(trace, salvage, mode));
    }
    for (const int jobs : {1, 2, 3}) {
      SCOPED_TRACE(absl::StrCat("salvage=", salvage, " count_only jobs=", jobs));
      ExpectSameCount(serial, ReadCounting(trace, salvage, jobs));
      ExpectSameCount(serial, ReadCounting(trace, salvage, jobs, /*framed budget=*/600));
    }
  }
  return strict;
}

GenBuilder Base(uint64_t gen, std::string sid = "SID0") {
  GenBuilder g(gen, sid);
  g.Ev(0, E::kVersion, 1100, g.Site("common-main.c", 50), {g.S("2.39.5")});
  return g;
}

uint64_t Site(GenBuilder& g) { return g.Site("a.c", 7, "cat", "lbl"); }

// A later generation of "SID0" whose clock sync is at `sync`.
GenBuilder Later(uint64_t gen, uint64_t sync, std::string sid = "SID0") {
  return GenBuilder(gen, sid, 4242, 1000, sync);
}

// Generations in which every kind of cross-generation state is used correctly: regions open
// across boundaries and re-stated, children and execs pairing across generations, threads
// starting in one generation and exiting in another, a thread re-stated without a name, kernel
// thread ids stated at a thread's start and in its re-statements (or not: then carried).
std::vector<std::string> CrossingGenerations(int count, bool compress) {
  std::vector<std::string> gens;
  GenBuilder g1 = Base(1);
  g1.Ev(0, E::kStart, 1150, Site(g1), {g1.L({"demo"})});
  g1.Ev(0, E::kRegionEnter, 1200, g1.Site("a.c", 1, "outer", "o"), {g1.S("m")});
  g1.Ev(0, E::kChildStart, 1300, Site(g1), {1, g1.S("?"), 0, 0, 0, g1.L({"x"})});
  g1.Ev(1, E::kThreadStart, 1250, Site(g1), {g1.S("th01:w"), 4243});
  g1.Ev(1, E::kRegionEnter, 1260, g1.Site("w.c", 1, "work", "w"), {0});
  g1.Ev(0, E::kExec, 1400, Site(g1), {5, g1.S("git"), g1.L({"version"})});
  gens.push_back(g1.Finish(compress));
  uint64_t t = 10000;
  for (int gen = 2; gen <= count; ++gen, t += 10000) {
    GenBuilder g = Later(gen, t);
    g.Raw(0, E::kThreadStatus, t, {g.S("main"), 1000, 4242});
    g.Raw(0, E::kRegionActive, t + 1, {g.Site("a.c", 1, "outer", "o"), g.S("m"), 1200});
    if (gen == 2) {
      g.Ev(0, E::kChildExit, t + 100, Site(g), {1, 77, 0, 10});
      g.Ev(0, E::kExecResult, t + 110, Site(g), {5, 0});
      g.Ev(0, E::kChildStart, t + 120, Site(g), {2, g.S("?"), 0, 0, 0, g.L({"y"})});
      // Re-stated without a name: the name carried from thread_start stays.
      g.Raw(1, E::kThreadStatus, t, {0, 1250});
      g.Raw(1, E::kRegionActive, t + 1, {g.Site("w.c", 1, "work", "w"), 0, 1260});
      g.Ev(1, E::kData, t + 50, Site(g), {g.S("x")});
    } else if (gen == 3) {
      g.Ev(0, E::kChildReady, t + 100, Site(g), {2, 78, format::kChildReadyReady, 5});
      g.Raw(1, E::kThreadStatus, t, {g.S("th01:w"), 1250, 4243});
      g.Raw(1, E::kRegionActive, t + 1, {g.Site("w.c", 1, "work", "w"), 0, 1260});
      g.Ev(1, E::kRegionLeave, t + 60, g.Site("w.c", 1, "work", "w"), {0});
      g.Ev(1, E::kThreadExit, t + 70, Site(g));
    } else if (gen == 4) {
      g.Ev(0, E::kChildExit, t + 100, Site(g), {2, 78, 0, 10});
      g.Ev(2, E::kThreadStart, t + 10, Site(g), {g.S("th02:x"), 4250});
    } else {
      g.Raw(2, E::kThreadStatus, t, {g.S("th02:x"), t - 9990, 4250});
    }
    for (int i = 0; i < 20; ++i) {
      g.Ev(0, E::kDataInt, t + 200 + 10 * i, g.Site("a.c", 9, "c", "n"), {format::ZigzagEncode(i)});
    }
    if (gen == count) g.Ev(0, E::kRegionLeave, t + 900, g.Site("a.c", 1, "outer", "o"), {0});
    gens.push_back(g.Finish(compress));
  }
  return gens;
}

TEST(ParallelDecodingTest, DemoTrace) {
  const Outcome serial = ExpectSameEverywhere(DemoTrace());
  EXPECT_EQ(serial.status, "");
  ExpectSameEverywhere(DemoTrace(/*compress=*/true));
}

TEST(ParallelDecodingTest, StateCrossingGenerations) {
  for (const bool compress : {false, true}) {
    const Outcome serial = ExpectSameEverywhere(Trace(CrossingGenerations(12, compress)));
    EXPECT_EQ(serial.status, "");
    EXPECT_EQ(serial.generations, 12u);
  }
}

// The workers' results are used whenever they hold: here for every generation but the
// second, whose worker read a thread re-stated without a name.
TEST(ParallelDecodingTest, SpeculationIsTakenWhenItHolds) {
  const std::string trace = Trace(CrossingGenerations(12, false));
  for (const bool salvage : {false, true}) {
    for (const bool work : {false, true}) {
      SCOPED_TRACE(absl::StrCat("salvage=", salvage, " work=", work));
      ParallelCounters counters;
      ReaderOptions options;
      options.salvage = salvage;
      ExpectSame(ReadWith(trace, options),
                 ReadParallel(trace, salvage,
                              Mode{2, work, 4, 1, /*reader_decodes_unstarted=*/false}, &counters));
      EXPECT_EQ(counters.taken, 11u);
      EXPECT_EQ(counters.fell_back, 1u);
      EXPECT_EQ(counters.unstarted, 0u);
    }
  }
}

TEST(ParallelDecodingTest, FileHeaderBeforeEveryGeneration) {
  std::string trace;
  for (const std::string& gen : CrossingGenerations(6, false)) trace += Trace({gen});
  ExpectSameEverywhere(trace);
}

TEST(ParallelDecodingTest, ProcessesAlternatingInOneFile) {
  std::vector<std::string> gens;
  for (int gen = 1; gen <= 6; ++gen) {
    for (const char* sid : {"SID0", "SID0/SID1"}) {
      GenBuilder g = gen == 1 ? Base(1, sid) : Later(gen, 10000 * gen, sid);
      if (gen > 1) g.Raw(0, E::kThreadStatus, 10000 * gen, {g.S("main"), 1000});
      g.Ev(0, E::kData, 10000 * gen + 5, Site(g), {g.S(sid)});
      if (gen == 3) g.Ev(0, E::kChildStart, 10000 * gen + 9, Site(g), {4, g.S("?"), 0, 0, 0, 0});
      if (gen == 5) g.Ev(0, E::kChildExit, 10000 * gen + 9, Site(g), {4, 1, 0, 3});
      gens.push_back(g.Finish());
    }
  }
  const Outcome serial = ExpectSameEverywhere(Trace(gens));
  EXPECT_EQ(serial.status, "");
}

// Each of these reads differently with the real state than with an empty one: the
// speculation must notice, and the reader then decodes the generation itself.
TEST(ParallelDecodingTest, SpeculationThatDoesNotHold) {
  std::vector<std::pair<std::string, std::string>> traces;
  {  // A named thread goes on in generation 2 without a re-statement.
    GenBuilder g1 = Base(1);
    g1.Ev(1, E::kThreadStart, 1200, Site(g1), {g1.S("th01:w")});
    GenBuilder g2 = Later(2, 3000);
    g2.Ev(1, E::kData, 3100, Site(g2), {g2.S("v")});
    traces.emplace_back("unstated named thread", Trace({g1.Finish(), g2.Finish()}));
  }
  {  // A thread whose kernel thread id was stated goes on in generation 2 without a
     // re-statement (its name and start time are a new thread's: only the id differs).
    GenBuilder g1 = Base(1);
    g1.Raw(3, E::kThreadStatus, 1200, {0, 1000, 99});
    g1.Ev(3, E::kData, 1300, Site(g1), {g1.S("v")});
    GenBuilder g2 = Later(2, 3000);
    g2.Ev(3, E::kData, 3100, Site(g2), {g2.S("v")});
    traces.emplace_back("unstated thread id", Trace({g1.Finish(), g2.Finish()}));
  }
  {  // An open region goes on in generation 2 without a re-statement.
    GenBuilder g1 = Base(1);
    g1.Ev(0, E::kRegionEnter, 1200, Site(g1), {0});
    GenBuilder g2 = Later(2, 3000);
    g2.Ev(0, E::kRegionLeave, 3100, Site(g2), {0});
    traces.emplace_back("unstated open region", Trace({g1.Finish(), g2.Finish()}));
  }
  {  // thread_start again in a later generation: an error only with the real state.
    GenBuilder g1 = Base(1);
    g1.Ev(1, E::kThreadStart, 1200, Site(g1), {g1.S("th01:w")});
    GenBuilder g2 = Later(2, 3000);
    g2.Raw(1, E::kThreadStatus, 3000, {g2.S("th01:w"), 1200});
    g2.Ev(1, E::kThreadStart, 3100, Site(g2), {g2.S("th01:w")});
    traces.emplace_back("thread started twice", Trace({g1.Finish(), g2.Finish()}));
  }
  {  // A re-statement that does not match the carried regions.
    GenBuilder g1 = Base(1);
    g1.Ev(0, E::kRegionEnter, 2000, Site(g1), {0});
    GenBuilder g2 = Later(2, 3000);
    g2.Raw(0, E::kThreadStatus, 3000, {g2.S("main"), 1000});
    g2.Ev(0, E::kData, 3100, Site(g2), {g2.S("v")});
    traces.emplace_back("restatement misses a region", Trace({g1.Finish(), g2.Finish()}));
  }
  {  // A child started earlier exits twice.
    GenBuilder g1 = Base(1);
    g1.Ev(0, E::kChildStart, 1200, Site(g1), {3, g1.S("?"), 0, 0, 0, 0});
    GenBuilder g2 = Later(2, 3000);
    g2.Ev(0, E::kChildExit, 3100, Site(g2), {3, 2, 0, 10});
    g2.Ev(0, E::kChildExit, 3200, Site(g2), {3, 2, 0, 10});
    traces.emplace_back("child exits twice", Trace({g1.Finish(), g2.Finish()}));
  }
  {  // A child id reused while still running, across a boundary.
    GenBuilder g1 = Base(1);
    g1.Ev(0, E::kChildStart, 1200, Site(g1), {3, g1.S("?"), 0, 0, 0, 0});
    GenBuilder g2 = Later(2, 3000);
    g2.Ev(0, E::kChildStart, 3100, Site(g2), {3, g2.S("?"), 0, 0, 0, 0});
    traces.emplace_back("child id reused", Trace({g1.Finish(), g2.Finish()}));
  }
  {  // An exec result with no exec, after the process start in an earlier generation.
    GenBuilder g1 = Base(1);
    GenBuilder g2 = Later(2, 3000);
    g2.Ev(0, E::kExecResult, 3100, Site(g2), {9, 0});
    traces.emplace_back("unknown exec", Trace({g1.Finish(), g2.Finish()}));
  }
  {  // Generation numbers going back.
    GenBuilder g1 = Base(5);
    GenBuilder g2 = Later(4, 3000);
    g2.Ev(0, E::kData, 3100, Site(g2), {g2.S("v")});
    traces.emplace_back("generation numbers", Trace({g1.Finish(), g2.Finish()}));
  }
  {  // A thread with an empty stream in generation 2, re-stated with regions in 3.
    GenBuilder g1 = Base(1);
    GenBuilder g2 = Later(2, 3000);
    g2.Ev(0, E::kData, 3100, Site(g2), {g2.S("v")});
    g2.AddFrames(testing::BatchFrame(2, 7, 3000, ""));
    GenBuilder g3 = Later(3, 5000);
    g3.Raw(7, E::kThreadStatus, 5000, {g3.S("th07:z"), 1000});
    g3.Raw(7, E::kRegionActive, 5001, {Site(g3), 0, 4000});
    traces.emplace_back("empty stream then regions",
                        Trace({g1.Finish(), g2.Finish(), g3.Finish()}));
  }
  for (const auto& [name, trace] : traces) {
    SCOPED_TRACE(name);
    ExpectSameEverywhere(trace);
    ParallelCounters counters;
    ExpectSame(ReadWith(trace, {}),
               ReadParallel(trace, false, Mode{2, true, 1, 1, /*reader_decodes_unstarted=*/false},
                            &counters));
    EXPECT_EQ(counters.fell_back, 1u);
    EXPECT_EQ(counters.unstarted, 0u);
  }
}

// A writer that drops a generation (a flight recorder's ring, a runtime past its memory
// limit) leaves a gap in the process's generation numbers: what the missing generation
// did (regions entered or left, children started) is unknown, so the generation after the
// gap is read as it is re-stated, serially and in parallel alike. The same generations
// without the gap contradict each other.
TEST(ParallelDecodingTest, AGapInTheGenerationNumbersForgetsWhatWasCarried) {
  auto trace_with_next = [](uint64_t next) {
    GenBuilder g1 = Base(1);
    g1.Ev(0, E::kRegionEnter, 1200, Site(g1), {0});
    // In the missing generation: the region left, another entered, a child started.
    GenBuilder g3 = Later(next, 5000);
    g3.Raw(0, E::kThreadStatus, 5000, {g3.S("main"), 1000});
    g3.Raw(0, E::kRegionActive, 5001, {Site(g3), 0, 4000});
    g3.Ev(0, E::kChildExit, 5100, Site(g3), {6, 0, 0, 10});
    g3.Ev(0, E::kRegionLeave, 5200, Site(g3), {0});
    return Trace({g1.Finish(), g3.Finish()});
  };
  const Outcome gap = ExpectSameEverywhere(trace_with_next(3));
  EXPECT_EQ(gap.status, "");
  const Outcome no_gap = ExpectSameEverywhere(trace_with_next(2));
  EXPECT_NE(no_gap.status, "");
}

TEST(ParallelDecodingTest, ManyGenerationsWithErrorsAndDamage) {
  const std::string trace = Trace(CrossingGenerations(20, false));
  const Outcome clean = ExpectSameEverywhere(trace);
  ASSERT_EQ(clean.status, "");
  // Truncated inside generation 15.
  ExpectSameEverywhere(trace.substr(0, trace.size() * 3 / 4));
  // Random byte flips: whatever the damage, parallel and serial agree.
  std::mt19937 rng(7);
  for (int i = 0; i < 60; ++i) {
    std::string damaged = trace;
    const int flips = 1 + rng() % 3;
    for (int f = 0; f < flips; ++f) damaged[16 + rng() % (damaged.size() - 16)] ^= 1 + rng() % 255;
    SCOPED_TRACE(absl::StrCat("damage ", i));
    ExpectSameEverywhere(damaged);
  }
}

TEST(ParallelDecodingTest, EmptyAndHeaderOnlyInputs) {
  ExpectSameEverywhere("");
  ExpectSameEverywhere(Trace({}));
}

// Several inputs merged by time, sharing one pool of workers.
TEST(ParallelDecodingTest, ProcessTreeOfParallelReaders) {
  std::vector<std::string> files;
  files.push_back(Trace(CrossingGenerations(8, false)));
  for (int p = 1; p <= 3; ++p) {
    std::vector<std::string> gens;
    const std::string sid = absl::StrCat("SID0/C", p);
    for (int gen = 1; gen <= 5; ++gen) {
      GenBuilder g = gen == 1 ? Base(1, sid) : Later(gen, 10000 * gen + p, sid);
      if (gen > 1) g.Raw(0, E::kThreadStatus, 10000 * gen + p, {g.S("main"), 1000});
      for (int i = 0; i < 10; ++i)
        g.Ev(0, E::kData, 10000 * gen + 100 * i + p + 5, Site(g), {g.S(sid)});
      gens.push_back(g.Finish());
    }
    files.push_back(Trace(gens));
  }
  auto read = [&files](std::shared_ptr<WorkerPool> pool) {
    std::vector<std::unique_ptr<Reader>> readers;
    ReaderOptions options;
    options.parallel = pool;
    for (size_t i = 0; i < files.size(); ++i) {
      readers.push_back(
          std::make_unique<Reader>(MemorySource(files[i], absl::StrCat("f", i)), options));
    }
    absl::StatusOr<std::unique_ptr<ProcessTreeReader>> tree =
        ProcessTreeReader::Create(std::move(readers));
    EXPECT_TRUE(tree.ok()) << tree.status();
    std::vector<std::string> events;
    while (true) {
      absl::StatusOr<const Event*> event = (*tree)->Next();
      EXPECT_TRUE(event.ok()) << event.status();
      if (!event.ok() || *event == nullptr) break;
      events.push_back(Fingerprint(**event));
    }
    return events;
  };
  const std::vector<std::string> serial = read(nullptr);
  ASSERT_GT(serial.size(), 150u);
  for (int jobs : {1, 2, 3}) {
    SCOPED_TRACE(absl::StrCat("jobs=", jobs));
    ParallelOptions parallel;
    parallel.jobs = jobs;
    parallel.max_block_bytes = 1;
    const std::vector<std::string> merged = read(std::make_shared<WorkerPool>(parallel));
    ASSERT_EQ(serial.size(), merged.size());
    for (size_t i = 0; i < serial.size(); ++i) ASSERT_EQ(serial[i], merged[i]) << "event " << i;
  }
}

// A reader dropped in the middle of a trace stops its workers.
TEST(ParallelDecodingTest, ReaderDestroyedMidway) {
  const std::string trace = Trace(CrossingGenerations(30, false));
  ParallelOptions parallel;
  parallel.jobs = 3;
  parallel.max_block_bytes = 1;
  ReaderOptions options;
  options.parallel = std::make_shared<WorkerPool>(parallel);
  for (int stop_after : {0, 1, 25, 200}) {
    Reader r(MemorySource(trace), options);
    for (int i = 0; i < stop_after; ++i) {
      absl::StatusOr<const Event*> event = r.Next();
      ASSERT_TRUE(event.ok());
      ASSERT_NE(*event, nullptr);
    }
  }
}

}  // namespace
}  // namespace tracewire::reader
