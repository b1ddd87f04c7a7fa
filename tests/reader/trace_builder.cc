#include "tests/reader/trace_builder.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "format/constants.h"
#include "format/file_header.h"
#include "format/raw_decoder.h"
#include "format/raw_event.h"
#include "format/record_encoder.h"
#include "format/varint.h"
#include "gtest/gtest.h"
#include "reader/byte_source.h"

namespace tracewire::testing {
namespace {

void Check(const absl::Status& status, const char* what) {
  if (!status.ok()) {
    std::fprintf(stderr, "trace builder: %s: %s\n", what, status.ToString().c_str());
    std::abort();
  }
}

}  // namespace

GenBuilder::GenBuilder(uint64_t gen, std::string sid, uint64_t pid, uint64_t start_time,
                       uint64_t sync_ticks, uint64_t freq, int64_t utc_offset_sec,
                       uint64_t wall_base_sec)
    : enc_(gen) {
  format::ClockSync sync;
  sync.freq = freq;
  sync.trace_time = sync_ticks;
  sync.mono_ns = 5'000'000'000 + sync_ticks;
  const unsigned __int128 ns =
      static_cast<unsigned __int128>(sync_ticks - kBaseTicks) * 1'000'000'000 / freq;
  sync.wall_sec = wall_base_sec + static_cast<uint64_t>(ns / 1'000'000'000);
  sync.wall_nsec = static_cast<uint64_t>(ns % 1'000'000'000);
  sync.utc_offset_sec = utc_offset_sec;
  enc_.SetClockSync(sync);
  format::ProcessInfo info;
  info.sid = std::move(sid);
  info.pid = pid;
  info.start_time = start_time;
  info.name = "demo";
  info.hierarchy = "demo";
  enc_.SetProcessInfo(info);
}

uint64_t GenBuilder::Site(const char* file, uint64_t line, const char* category, const char* label,
                          uint64_t repo) {
  format::Site site;
  if (file != nullptr) site.file = file;
  site.line = line;
  if (category != nullptr) site.category = category;
  if (label != nullptr) site.label = label;
  site.repo = repo;
  return enc_.InternSite(site);
}

GenBuilder& GenBuilder::Ev(uint64_t thread, EventType type, uint64_t time, uint64_t site,
                           std::initializer_list<uint64_t> rest) {
  std::vector<uint64_t> args = {site};
  args.insert(args.end(), rest.begin(), rest.end());
  Check(enc_.Event(thread, type, time, args), "Ev");
  return *this;
}

GenBuilder& GenBuilder::Raw(uint64_t thread, EventType type, uint64_t time,
                            std::initializer_list<uint64_t> args, absl::string_view data) {
  const std::vector<uint64_t> all(args);
  Check(enc_.Event(thread, type, time, all, data), "Raw");
  return *this;
}

std::string GenBuilder::Finish(bool compress) {
  std::string out;
  Check(enc_.Finish(&out, compress), "Finish");
  return out;
}

std::string Trace(const std::vector<std::string>& generations) {
  std::string out = format::EncodeFileHeader(format::kFormatVersion);
  for (const std::string& g : generations) out += g;
  return out;
}

namespace {

using E = EventType;

std::string DemoGen1(bool compress) {
  GenBuilder g(1);
  // Main thread (0).
  g.Ev(0, E::kVersion, 1100, g.Site("common-main.c", 50), {g.S("2.39.5")});
  g.Ev(0, E::kStart, 1200, g.Site("common-main.c", 51), {g.L({"demo", "--flag", "a b"})});
  g.Ev(0, E::kCmdName, 1300, g.Site("git.c", 721), {g.S("demo"), g.S("demo")});
  g.Ev(0, E::kDefParam, 1400, g.Site("config.c", 10),
       {g.S("global"), g.S("core.bare"), g.S("false")});
  g.Ev(0, E::kDefParam, 1450, g.Site("config.c", 10), {g.S("command"), g.S("t.flag"), 0});
  g.Ev(0, E::kDefRepo, 1500, g.Site("repo.c", 5), {1, g.S("/w")});
  g.Ev(0, E::kRegionEnter, 2000, g.Site("demo.c", 10, "demo", "outer", 2), {g.S("m1")});
  g.Ev(0, E::kData, 2500, g.Site("demo.c", 11, "demo", "k1", 2), {g.S("v1")});
  const uint64_t stack =
      g.Stack({{0x1234, g.S("main"), g.S("demo.c"), 12}, {0x5678, g.S("__libc_start_main"), 0, 0}});
  g.Raw(0, E::kStackRef, 2600, {stack});
  g.Ev(0, E::kDataInt, 2700, g.Site("demo.c", 12, "demo", "count"), {format::ZigzagEncode(-42)});
  g.Ev(0, E::kChildStart, 3000, g.Site("run-command.c", 700),
       {0, g.S("hook"), g.S("pre-commit"), 0, format::kChildFlagUseShell,
        g.L({".git/hooks/pre-commit"})});
  g.Ev(0, E::kChildStart, 3100, g.Site("run-command.c", 700),
       {1, g.S("?"), 0, g.S("sub"), format::kChildFlagGitCommand, g.L({"status"})});
  g.Ev(0, E::kChildExit, 3500, g.Site("run-command.c", 800),
       {0, format::ZigzagEncode(5000), format::ZigzagEncode(0), 500});
  g.Ev(0, E::kRegionEnter, 3600, g.Site("demo.c", 20, "demo", "inner"), {0});
  // Worker thread (1).
  g.Ev(1, E::kThreadStart, 2100, g.Site("thread.c", 1), {g.S("th01:worker")});
  g.Ev(1, E::kRegionEnter, 2200, g.Site("worker.c", 5, "work", "chunk"), {0});
  g.Ev(1, E::kDataJson, 2300, g.Site("worker.c", 6, "work", "stats"), {g.S("{\"n\":1}")});
  g.Ev(1, E::kRegionLeave, 2400, g.Site("worker.c", 7, "work", "chunk"), {0});
  g.Ev(1, E::kThTimer, 2450, g.Site("worker.c", 8, "test", "t2"), {2, 100, 40, 60});
  g.Ev(1, E::kThCounter, 2460, g.Site("worker.c", 9, "test", "c2"), {7});
  g.Ev(1, E::kThreadExit, 2800, g.Site("thread.c", 2));
  return g.Finish(compress);
}

// Generation 2 re-states main's two open regions, then closes everything.
void DemoGen2Events(GenBuilder& g) {
  g.Raw(0, E::kThreadStatus, 4000, {g.S("main"), 1000});
  g.Raw(0, E::kRegionActive, 4001, {g.Site("demo.c", 10, "demo", "outer", 2), g.S("m1"), 2000});
  g.Raw(0, E::kRegionActive, 4002, {g.Site("demo.c", 20, "demo", "inner"), 0, 3600});
  g.Ev(0, E::kData, 4100, g.Site("demo.c", 21, "demo", "k2"), {g.S("v2")});
  g.Ev(0, E::kRegionLeave, 4200, g.Site("demo.c", 22, "demo", "inner"), {0});
  g.Ev(0, E::kChildExit, 4300, g.Site("run-command.c", 800),
       {1, format::ZigzagEncode(5001), format::ZigzagEncode(1), 1200});
  g.Ev(0, E::kChildStart, 4320, g.Site("editor.c", 3),
       {2, g.S("editor"), 0, 0, 0, g.L({"vi", "COMMIT_EDITMSG"})});
  g.Ev(0, E::kChildReady, 4350, g.Site("run-command.c", 900),
       {2, format::ZigzagEncode(5002), format::kChildReadyTimeout, 30});
  g.Ev(0, E::kChildExit, 4360, g.Site("run-command.c", 800),
       {2, format::ZigzagEncode(5002), format::ZigzagEncode(0), 40});
  g.Ev(0, E::kError, 4400, g.Site("usage.c", 1), {g.S("bad thing"), g.S("bad %s")});
  g.Ev(0, E::kPrintf, 4450, g.Site("demo.c", 30), {g.S("hello")});
  g.Ev(0, E::kRegionLeave, 4500, g.Site("demo.c", 23, "demo", "outer", 2), {g.S("m1")});
  g.Ev(0, E::kAlias, 4550, g.Site("alias.c", 3), {g.S("st"), g.L({"status"})});
  g.Ev(0, E::kCmdMode, 4560, g.Site("git.c", 730), {g.S("path")});
  g.Ev(0, E::kCmdPath, 4561, g.Site("exec-cmd.c", 1), {g.S("/usr/bin/demo")});
  g.Ev(0, E::kCmdAncestry, 4562, g.Site("procinfo.c", 170), {g.L({"bash", "sshd"})});
  g.Ev(0, E::kExec, 4570, g.Site("exec-cmd.c", 2), {0, g.S("git"), g.L({"version"})});
  g.Ev(0, E::kExecResult, 4580, g.Site("exec-cmd.c", 3), {0, format::ZigzagEncode(-1)});
  g.Ev(0, E::kSignal, 4590, g.Site("trace2.c", 9), {13});
  g.Ev(0, E::kExit, 4600, g.Site("git.c", 800), {format::ZigzagEncode(0)});
  g.Raw(0, static_cast<E>(128), 4650, {}, "xyz");
  g.Ev(0, E::kTimer, 4700, g.Site("trace2/tr2_tgt_event.c", 632, "test", "t1"), {3, 300, 90, 110});
  g.Ev(0, E::kCounter, 4710, g.Site("trace2/tr2_tgt_event.c", 653, "test", "c1"), {15});
  g.Ev(0, E::kAtexit, 4800, g.Site("trace2/tr2_tgt_event.c", 204), {format::ZigzagEncode(0)});
  // A short-lived thread (2) that lives only in generation 2.
  g.Ev(2, E::kThreadStart, 4050, g.Site("thread.c", 1), {g.S("th02:bg")});
  g.Ev(2, E::kThreadExit, 4060, g.Site("thread.c", 2));
}

std::string DemoGen2(bool compress) {
  GenBuilder g(2, "SID0", 4242, kBaseTicks, /*sync_ticks=*/4000);
  DemoGen2Events(g);
  return g.Finish(compress);
}

}  // namespace

std::string DemoTrace(bool compress) { return Trace({DemoGen1(compress), DemoGen2(compress)}); }

std::string DemoSuffix() { return Trace({DemoGen2(false)}); }

std::string Rec(EventType type, std::initializer_list<uint64_t> args, absl::string_view data) {
  std::string out;
  const std::vector<uint64_t> all(args);
  Check(format::AppendRecord(&out, type, all, data), "Rec");
  return out;
}

std::string BatchFrame(uint64_t gen, uint64_t thread, uint64_t base_time, absl::string_view body) {
  std::string out(1, static_cast<char>(EventType::kEventBatch));
  format::AppendUvarint(&out, gen);
  format::AppendUvarint(&out, thread);
  format::AppendUvarint(&out, base_time);
  format::AppendUvarint(&out, body.size());
  out.append(body.data(), body.size());
  return out;
}

std::vector<FrameAt> ScanFrames(absl::string_view bytes, uint64_t base) {
  std::vector<FrameAt> frames;
  format::RecordDecoder decoder(bytes, base, format::Scope::kFrame);
  format::RawEvent raw;
  while (true) {
    absl::StatusOr<bool> next = decoder.Next(&raw);
    Check(next.status(), "ScanFrames");
    if (!*next) break;
    frames.push_back({static_cast<EventType>(raw.type), raw.offset, raw.size, raw.body_offset});
  }
  return frames;
}

FrameAt FindFrame(absl::string_view trace, EventType type, int occurrence) {
  for (const FrameAt& f :
       ScanFrames(trace.substr(format::kFileHeaderSize), format::kFileHeaderSize)) {
    if (f.type == type && occurrence-- == 0) return f;
  }
  std::fprintf(stderr, "FindFrame: no such frame\n");
  std::abort();
}

uint64_t FindRecordOffset(absl::string_view trace, EventType type, int occurrence) {
  format::RecordDecoder frames(trace.substr(format::kFileHeaderSize), format::kFileHeaderSize,
                               format::Scope::kFrame);
  format::RawEvent frame;
  while (true) {
    absl::StatusOr<bool> next = frames.Next(&frame);
    if (!next.ok() || !*next) return ~uint64_t{0};
    if (frame.type != static_cast<uint8_t>(EventType::kEventBatch)) continue;
    format::RecordDecoder body(frame.body, frame.body_offset, format::Scope::kEventBody);
    format::RawEvent raw;
    while (true) {
      absl::StatusOr<bool> record = body.Next(&raw);
      if (!record.ok() || !*record) break;
      if (raw.type == static_cast<uint8_t>(type) && occurrence-- == 0) return raw.offset;
    }
  }
}

std::string RemoveFrame(absl::string_view generation, EventType type) {
  for (const FrameAt& f : ScanFrames(generation, 0)) {
    if (f.type == type) {
      return absl::StrCat(generation.substr(0, f.offset), generation.substr(f.offset + f.size));
    }
  }
  return std::string(generation);
}

namespace {

// What count_only leaves set in an event.
std::string CountedFields(const reader::Event& e) {
  return absl::StrCat(reader::EventKindName(e.kind), " ", static_cast<int>(e.wire_type), " ", e.gen,
                      " ", e.sid, " ", e.thread_id, " ", e.ticks);
}

}  // namespace

ReadResult ReadAll(absl::string_view bytes, reader::ReaderOptions options) {
  ReadResult result;
  std::vector<std::string> counted;
  reader::Reader r(reader::MemorySource(bytes), options);
  while (true) {
    absl::StatusOr<const reader::Event*> event = r.Next();
    if (!event.ok()) {
      result.status = event.status();
      break;
    }
    if (*event == nullptr) break;
    result.debug.push_back((*event)->DebugString());
    counted.push_back(CountedFields(**event));
    if (result.generations.empty() || result.generations.back() != (*event)->gen) {
      result.generations.push_back((*event)->gen);
    }
  }
  if (options.count_only) return result;
  options.count_only = true;
  {
    reader::Reader lite(reader::MemorySource(bytes), options);
    std::vector<std::string> seen;
    absl::Status status;
    while (true) {
      absl::StatusOr<const reader::Event*> event = lite.Next();
      if (!event.ok()) {
        status = event.status();
        break;
      }
      if (*event == nullptr) break;
      seen.push_back(CountedFields(**event));
    }
    EXPECT_EQ(seen, counted) << "count_only read: other events";
    EXPECT_EQ(status, result.status) << "count_only read: other outcome";
  }
  {
    reader::Reader lite(reader::MemorySource(bytes), options);
    uint64_t events = 0;
    absl::Status status;
    while (true) {
      absl::string_view sid;
      absl::StatusOr<uint64_t> n = lite.SkipEvents(3, &sid);
      if (!n.ok()) {
        status = n.status();
        break;
      }
      if (*n == 0) break;
      EXPECT_LE(*n, 3u);
      events += *n;
    }
    EXPECT_EQ(events, counted.size()) << "SkipEvents: other number of events";
    EXPECT_EQ(status, result.status) << "SkipEvents: other outcome";
    EXPECT_EQ(lite.events_delivered(), counted.size());
  }
  return result;
}

}  // namespace tracewire::testing
