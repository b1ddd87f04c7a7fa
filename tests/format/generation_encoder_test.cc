#include "format/generation_encoder.h"

#include <zstd.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "format/constants.h"
#include "format/raw_decoder.h"
#include "format/varint.h"
#include "gtest/gtest.h"

namespace tracewire::format {
namespace {

constexpr uint64_t kGen = 4;

// What the test generation holds, for checking the decoded one.
struct Built {
  std::string long_string;
  uint64_t long_string_id = 0;
  uint64_t stack_id = 0;
  std::vector<StackFrame> stack;
  Site site;
  uint64_t site_id = 0;
  ClockSync sync;
};

absl::Status Build(GenerationEncoder* g, Built* b) {
  b->sync = {.freq = 1'000'000'000,
             .trace_time = 5'000'000,
             .mono_ns = 123'456'789'000,
             .wall_sec = 1'700'000'000,
             .wall_nsec = 999'999'999,
             .utc_offset_sec = -5 * 3600};
  g->SetClockSync(b->sync);
  g->SetProcessInfo({.sid = "20231114T221320.123456Z-H1234-P5678",
                     .pid = 5678,
                     .start_time = 4'000'000,
                     .name = "status",
                     .hierarchy = std::nullopt});
  b->site = {.file = "builtin/status.c", .line = 1234, .category = "status", .label = "worktrees"};
  b->site_id = g->InternSite(b->site);
  const uint64_t data_site = g->InternSite(
      {.file = "wt-status.c", .line = 99, .category = "status", .label = "count", .repo = 2});
  const uint64_t bare_site = g->InternSite({});
  b->long_string.resize(100 * 1024);
  for (size_t i = 0; i < b->long_string.size(); ++i) b->long_string[i] = "abcdefgh\n"[i % 9];
  b->long_string_id = g->String(b->long_string);
  b->stack = {{0x401000, g->String("main"), g->String("git.c"), 900},
              {0x402000, g->String("cmd_status"), g->String("builtin/status.c"), 1500}};
  b->stack_id = g->InternStack(b->stack);
  EXPECT_EQ(g->InternStack(b->stack), b->stack_id) << "equal stacks share an ID";
  EXPECT_EQ(g->String("main"), b->stack[0].func_string) << "equal strings share an ID";

  const uint64_t main_thread = 0;
  const uint64_t msg = g->String("refresh");
  const uint64_t name = g->String("main");
  // Main thread: already running (thread_status), a region, a value, a stack, an exit.
  const uint64_t status_args[] = {name, 4'000'000};
  if (auto s = g->Event(main_thread, EventType::kThreadStatus, 5'000'001, status_args); !s.ok())
    return s;
  const uint64_t enter_args[] = {b->site_id, msg};
  if (auto s = g->Event(main_thread, EventType::kRegionEnter, 5'000'100, enter_args); !s.ok())
    return s;
  const uint64_t int_args[] = {data_site, ZigzagEncode(-12)};
  if (auto s = g->Event(main_thread, EventType::kDataInt, 5'000'200, int_args); !s.ok()) return s;
  const uint64_t ref_args[] = {b->stack_id};
  if (auto s = g->Event(main_thread, EventType::kStackRef, 5'000'300, ref_args); !s.ok()) return s;
  const uint64_t leave_args[] = {b->site_id, msg};
  if (auto s = g->Event(main_thread, EventType::kRegionLeave, 5'000'400, leave_args); !s.ok())
    return s;
  const uint64_t argv = g->StringList({"git", "status", ""});
  const uint64_t start_args[] = {bare_site, argv};
  if (auto s = g->Event(main_thread, EventType::kStart, 5'000'500, start_args); !s.ok()) return s;
  // Two worker threads.
  for (uint64_t thread : {7, 3}) {
    const uint64_t tname = g->String(thread == 7 ? "th07:preload" : "th03:preload");
    const uint64_t ts_args[] = {bare_site, tname};
    if (auto s = g->Event(thread, EventType::kThreadStart, 5'000'010 + thread, ts_args); !s.ok())
      return s;
    const uint64_t data_args[] = {data_site, b->long_string_id};
    if (auto s = g->Event(thread, EventType::kData, 5'000'050 + thread, data_args); !s.ok())
      return s;
    const uint64_t te_args[] = {bare_site};
    if (auto s = g->Event(thread, EventType::kThreadExit, 5'000'090 + thread, te_args); !s.ok())
      return s;
  }
  return absl::OkStatus();
}

struct Decoded {
  std::vector<RawEvent> frames;
  std::map<uint64_t, std::vector<RawEvent>> thread_events;  // thread -> events
  std::map<uint64_t, std::string> strings;
  std::map<uint64_t, RawEvent> sites;
  std::map<uint64_t, std::vector<StackFrame>> stacks;
};

void DecodeGeneration(absl::string_view bytes, Decoded* d) {
  RecordDecoder frames(bytes, 0, Scope::kFrame);
  RawEvent frame;
  std::map<uint64_t, std::string> parts;
  while (true) {
    absl::StatusOr<bool> more = frames.Next(&frame);
    ASSERT_TRUE(more.ok()) << more.status();
    if (!*more) break;
    d->frames.push_back(frame);
    EXPECT_EQ(frame.Arg("gen"), kGen) << frame.Name();
    if (frame.spec->body == BodyKind::kNone) continue;
    EXPECT_LE(frame.size, kMaxBatchSize);
    RecordDecoder body(frame.body, frame.body_offset, BodyScope(frame.spec->body));
    RawEvent record;
    while (true) {
      absl::StatusOr<bool> got = body.Next(&record);
      ASSERT_TRUE(got.ok()) << got.status();
      if (!*got) break;
      switch (static_cast<EventType>(record.type)) {
        case EventType::kStringPart:
          parts[record.Arg("id")].append(record.data.data(), record.data.size());
          break;
        case EventType::kString: {
          std::string value = std::move(parts[record.Arg("id")]);
          parts.erase(record.Arg("id"));
          value.append(record.data.data(), record.data.size());
          EXPECT_TRUE(d->strings.emplace(record.Arg("id"), std::move(value)).second);
          break;
        }
        case EventType::kSite:
          EXPECT_TRUE(d->sites.emplace(record.Arg("id"), record).second);
          break;
        case EventType::kStack:
          EXPECT_TRUE(d->stacks.emplace(record.Arg("id"), record.frames).second);
          break;
        default:
          ASSERT_TRUE(record.spec != nullptr && record.spec->timed);
          d->thread_events[frame.Arg("thread")].push_back(record);
      }
    }
    EXPECT_TRUE(body.AtEnd());
  }
  EXPECT_TRUE(frames.AtEnd());
  EXPECT_TRUE(parts.empty());
}

// The string an ID names; fails the test if it does not resolve.
std::string Resolve(const Decoded& d, uint64_t id) {
  auto it = d.strings.find(id);
  EXPECT_NE(it, d.strings.end()) << "string ID " << id << " does not resolve";
  return it == d.strings.end() ? "" : it->second;
}

TEST(GenerationEncoderTest, BuildsASelfContainedGeneration) {
  GenerationEncoder g(kGen);
  EXPECT_EQ(g.gen(), kGen);
  Built b;
  ASSERT_TRUE(Build(&g, &b).ok());
  std::string out = "prefix";
  ASSERT_TRUE(g.Finish(&out).ok());
  ASSERT_EQ(out.substr(0, 6), "prefix");
  Decoded d;
  ASSERT_NO_FATAL_FAILURE(DecodeGeneration(absl::string_view(out).substr(6), &d));

  // Structure: one clock_sync, one process_info, ends with end_of_generation(gen).
  int clock_syncs = 0, process_infos = 0, ends = 0;
  for (const RawEvent& frame : d.frames) {
    clock_syncs += frame.type == static_cast<uint8_t>(EventType::kClockSync);
    process_infos += frame.type == static_cast<uint8_t>(EventType::kProcessInfo);
    ends += frame.type == static_cast<uint8_t>(EventType::kEndOfGeneration);
  }
  EXPECT_EQ(clock_syncs, 1);
  EXPECT_EQ(process_infos, 1);
  EXPECT_EQ(ends, 1);
  ASSERT_GE(d.frames.size(), 6u);
  EXPECT_EQ(d.frames.back().type, static_cast<uint8_t>(EventType::kEndOfGeneration));
  EXPECT_EQ(d.frames.back().Arg("gen"), kGen);
  EXPECT_EQ(d.frames.back().size, 2u);

  // The clock sync carries every field.
  const RawEvent& sync = d.frames[0];
  ASSERT_EQ(sync.type, static_cast<uint8_t>(EventType::kClockSync));
  EXPECT_EQ(sync.Arg("freq"), b.sync.freq);
  EXPECT_EQ(sync.Arg("trace_time"), b.sync.trace_time);
  EXPECT_EQ(sync.Arg("mono_ns"), b.sync.mono_ns);
  EXPECT_EQ(sync.Arg("wall_sec"), b.sync.wall_sec);
  EXPECT_EQ(sync.Arg("wall_nsec"), b.sync.wall_nsec);
  EXPECT_EQ(ZigzagDecode(sync.Arg("utc_offset_sec")), -5 * 3600);

  const RawEvent& info = d.frames[1];
  ASSERT_EQ(info.type, static_cast<uint8_t>(EventType::kProcessInfo));
  EXPECT_EQ(Resolve(d, info.Arg("sid_string")), "20231114T221320.123456Z-H1234-P5678");
  EXPECT_EQ(info.Arg("pid"), 5678u);
  EXPECT_EQ(info.Arg("start_time"), 4'000'000u);
  EXPECT_EQ(Resolve(d, info.Arg("name_string")), "status");
  EXPECT_EQ(info.Arg("hierarchy_string"), 0u) << "no hierarchy: string ID 0";

  // Threads: each thread's events are in its own batches, times in order.
  ASSERT_EQ(d.thread_events.size(), 3u);
  const std::vector<RawEvent>& main = d.thread_events[0];
  ASSERT_EQ(main.size(), 6u);
  EXPECT_EQ(main[0].type, static_cast<uint8_t>(EventType::kThreadStatus));
  EXPECT_EQ(Resolve(d, main[0].Arg("name_string")), "main");
  EXPECT_EQ(main[1].type, static_cast<uint8_t>(EventType::kRegionEnter));
  EXPECT_EQ(main[1].Arg("site"), b.site_id);
  EXPECT_EQ(Resolve(d, main[1].Arg("msg_string")), "refresh");
  EXPECT_EQ(ZigzagDecode(main[2].Arg("value")), -12);
  EXPECT_EQ(main[3].type, static_cast<uint8_t>(EventType::kStackRef));
  EXPECT_EQ(d.stacks.at(main[3].Arg("stack")), b.stack);
  absl::StatusOr<std::vector<std::string>> argv =
      DecodeStringList(Resolve(d, main[5].Arg("argv_strlist")));
  ASSERT_TRUE(argv.ok());
  EXPECT_EQ(*argv, (std::vector<std::string>{"git", "status", ""}));
  for (uint64_t thread : {3, 7}) {
    const std::vector<RawEvent>& events = d.thread_events[thread];
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(Resolve(d, events[0].Arg("name_string")),
              thread == 7 ? "th07:preload" : "th03:preload");
    EXPECT_TRUE(Resolve(d, events[1].Arg("value_string")) == b.long_string);
    EXPECT_EQ(events[2].type, static_cast<uint8_t>(EventType::kThreadExit));
  }

  // Every string, site and stack reference resolves.
  for (const auto& [thread, events] : d.thread_events) {
    for (const RawEvent& event : events) {
      for (uint8_t i : event.spec->StringIds()) {
        if (event.args[i] != 0) Resolve(d, event.args[i]);
      }
      for (uint8_t i : event.spec->StackIds()) EXPECT_EQ(d.stacks.count(event.args[i]), 1u);
      if (event.spec->ArgIndex("site") >= 0) {
        EXPECT_EQ(d.sites.count(event.Arg("site")), 1u);
      }
    }
  }
  for (const auto& [id, site] : d.sites) {
    for (uint8_t i : site.spec->StringIds()) {
      if (site.args[i] != 0) Resolve(d, site.args[i]);
    }
  }
  const RawEvent& site = d.sites.at(b.site_id);
  EXPECT_EQ(Resolve(d, site.Arg("file_string")), "builtin/status.c");
  EXPECT_EQ(site.Arg("line"), 1234u);
  EXPECT_EQ(Resolve(d, site.Arg("category_string")), "status");
  EXPECT_EQ(Resolve(d, site.Arg("label_string")), "worktrees");
  EXPECT_EQ(site.Arg("repo"), 0u);
  for (const auto& [id, frames] : d.stacks) {
    for (const StackFrame& f : frames) {
      Resolve(d, f.func_string);
      Resolve(d, f.file_string);
    }
  }
  EXPECT_EQ(Resolve(d, b.stack[1].func_string), "cmd_status");
  // IDs are dense from 1.
  EXPECT_EQ(d.strings.begin()->first, 1u);
  EXPECT_EQ(d.strings.rbegin()->first, d.strings.size());
  EXPECT_EQ(d.sites.size(), 3u);
  EXPECT_EQ(d.stacks.size(), 1u);
}

TEST(GenerationEncoderTest, CompressedGenerationHoldsTheUncompressedBytes) {
  GenerationEncoder plain(kGen);
  GenerationEncoder packed(kGen);
  Built b1, b2;
  ASSERT_TRUE(Build(&plain, &b1).ok());
  ASSERT_TRUE(Build(&packed, &b2).ok());
  std::string raw;
  ASSERT_TRUE(plain.Finish(&raw).ok());
  std::string out;
  ASSERT_TRUE(packed.Finish(&out, /*compress=*/true).ok());
  EXPECT_LT(out.size(), raw.size() / 4) << "the repetitive 100 KiB string compresses well";

  RecordDecoder decoder(out, 0, Scope::kFrame);
  RawEvent frame;
  ASSERT_TRUE(*decoder.Next(&frame));
  EXPECT_TRUE(decoder.AtEnd()) << "one compressed_generation frame";
  ASSERT_EQ(frame.type, static_cast<uint8_t>(EventType::kCompressedGeneration));
  EXPECT_EQ(frame.Arg("gen"), kGen);
  EXPECT_EQ(frame.Arg("raw_length"), raw.size());
  EXPECT_EQ(ZSTD_getFrameContentSize(frame.data.data(), frame.data.size()), raw.size());
  std::string decompressed(frame.Arg("raw_length"), '\0');
  const size_t n = ZSTD_decompress(decompressed.data(), decompressed.size(), frame.data.data(),
                                   frame.data.size());
  ASSERT_FALSE(ZSTD_isError(n)) << ZSTD_getErrorName(n);
  EXPECT_EQ(n, raw.size());
  EXPECT_TRUE(decompressed == raw);
}

TEST(GenerationEncoderTest, NeedsClockSyncAndProcessInfo) {
  GenerationEncoder g(kGen);
  std::string out;
  EXPECT_EQ(g.Finish(&out).code(), absl::StatusCode::kFailedPrecondition);
  g.SetClockSync({});
  EXPECT_EQ(g.Finish(&out).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(out.empty());
  ProcessInfo info;
  info.sid = "s";
  g.SetProcessInfo(info);
  ASSERT_TRUE(g.Finish(&out).ok());
  Decoded d;
  ASSERT_NO_FATAL_FAILURE(DecodeGeneration(out, &d));
  ASSERT_EQ(d.frames.size(), 4u);  // clock_sync, process_info, string_batch, end_of_generation
  EXPECT_EQ(d.frames[2].type, static_cast<uint8_t>(EventType::kStringBatch));
  EXPECT_EQ(d.strings.at(1), "s");
}

TEST(StringListTest, RoundTrip) {
  const std::vector<std::vector<std::string>> lists = {
      {}, {""}, {"", ""}, {"git", "", "status", "--porcelain=v2"}, {std::string(1000, 'x'), "y"},
  };
  for (const std::vector<std::string>& list : lists) {
    const std::string bytes = EncodeStringList(list);
    size_t expected_size = 0;
    for (const std::string& item : list) expected_size += item.size() + 1;
    EXPECT_EQ(bytes.size(), expected_size);
    absl::StatusOr<std::vector<std::string>> decoded = DecodeStringList(bytes);
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(*decoded, list);
  }
  EXPECT_EQ(EncodeStringList({"a", "", "b"}), std::string("a\0\0b\0", 5));
  EXPECT_EQ(EncodeStringList({}), "");
  EXPECT_EQ(DecodeStringList("abc").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(DecodeStringList(std::string("a\0b", 3)).status().code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace tracewire::format
