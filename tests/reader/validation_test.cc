// One test per validation rule of the reader: each builds a bad trace by hand and asserts
// the exact status code and message (generation, thread, event index, byte offset, reason).
#include <zstd.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/constants.h"
#include "format/file_header.h"
#include "format/record_encoder.h"
#include "format/varint.h"
#include "gtest/gtest.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "tests/reader/trace_builder.h"

namespace tracewire::reader {
namespace {

using ::tracewire::testing::BatchFrame;
using ::tracewire::testing::FindFrame;
using ::tracewire::testing::FindRecordOffset;
using ::tracewire::testing::GenBuilder;
using ::tracewire::testing::ReadAll;
using ::tracewire::testing::Rec;
using ::tracewire::testing::RemoveFrame;
using ::tracewire::testing::Trace;
using E = format::EventType;

// Reads `trace` to the end and expects it to fail with `code` and exactly `message`.
void ExpectError(const std::string& trace, absl::StatusCode code, const std::string& message) {
  const testing::ReadResult result = ReadAll(trace);
  EXPECT_EQ(result.status.code(), code) << result.status;
  EXPECT_EQ(std::string(result.status.message()), message);
}

// A generation whose main thread starts the process (version): strict pairing applies.
GenBuilder Base(uint64_t gen = 1) {
  GenBuilder g(gen);
  g.Ev(0, E::kVersion, 1100, g.Site("common-main.c", 50), {g.S("2.39.5")});
  return g;
}

uint64_t Site(GenBuilder& g) { return g.Site("a.c", 7, "cat", "lbl"); }

// ---- Header ----

TEST(ValidationTest, HeaderBadMagic) {
  ExpectError(std::string("not a trace at all"), absl::StatusCode::kDataLoss,
              "file header: byte offset 0: not a tracewire trace (bad magic)");
}

TEST(ValidationTest, HeaderUnsupportedVersion) {
  ExpectError(format::EncodeFileHeader(5), absl::StatusCode::kUnimplemented,
              "file header: byte offset 8: format version 5 is not supported (this build "
              "reads 1 to 4)");
}

TEST(ValidationTest, HeaderTruncated) {
  ExpectError(format::EncodeFileHeader(1).substr(0, 5), absl::StatusCode::kOutOfRange,
              "file header: byte offset 0: file header needs 16 bytes, input has 5");
}

// ---- Framing ----

TEST(ValidationTest, BatchAboveMaximumSize) {
  std::string frame(1, static_cast<char>(E::kEventBatch));
  for (uint64_t v : {1, 0, 0, 70000}) format::AppendUvarint(&frame, v);
  ExpectError(Trace({frame}), absl::StatusCode::kDataLoss,
              "first generation: byte offset 16: event_batch of 70007 bytes (header 7 + body "
              "70000) exceeds the maximum batch size 65536");
}

TEST(ValidationTest, UnknownFrameType) {
  GenBuilder g = Base();
  const std::string gen = g.Finish();
  const std::string trace = Trace({gen, std::string("\x63\x01", 2)});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("after generation 1: byte offset %d: unknown event type 99 in "
                              "the top level",
                              16 + gen.size()));
}

TEST(ValidationTest, UnknownEventTypeInBatch) {
  GenBuilder g = Base();
  const std::string batch = BatchFrame(1, 5, 1000, "\x64\x01\x01");
  g.AddFrames(batch);
  const std::string trace = Trace({g.Finish()});
  const uint64_t body = trace.find(batch) + batch.size() - 3;
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 5, event 0: byte offset %d: unknown event "
                              "type 100 in the event batch body",
                              body));
}

TEST(ValidationTest, TableRecordInsideEventBatch) {
  GenBuilder g = Base();
  const std::string body = Rec(E::kString, {3}, "abc");
  const std::string batch = BatchFrame(1, 5, 1000, body);
  g.AddFrames(batch);
  const std::string trace = Trace({g.Finish()});
  const uint64_t offset = trace.find(batch) + batch.size() - body.size();
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 5, event 0: byte offset %d: event type 10 "
                              "(string) may not appear in the event batch body",
                              offset));
}

TEST(ValidationTest, RecordRunsPastItsBatch) {
  GenBuilder g = Base();
  const uint64_t site = Site(g);
  // A data record whose value_string varint is cut by the end of the batch body.
  const std::string body = std::string("\x27\x05", 2) + static_cast<char>(site) + "\x80";
  const std::string batch = BatchFrame(1, 5, 1000, body);
  g.AddFrames(batch);
  const std::string trace = Trace({g.Finish()});
  const uint64_t offset = trace.find(batch) + batch.size() - body.size();
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 5, event 0: byte offset %d: truncated "
                              "varint in value_string of data record at offset %d",
                              offset + 3, offset));
}

TEST(ValidationTest, UnknownExperimentalEventIsSurfacedNotFatal) {
  GenBuilder g = Base();
  g.AddFrames(BatchFrame(1, 5, 1000, Rec(static_cast<E>(200), {5}, "abc")));
  const std::string trace = Trace({g.Finish()});
  Reader r(MemorySource(trace));
  absl::StatusOr<const Event*> e = r.Next();
  ASSERT_TRUE(e.ok() && *e != nullptr);
  EXPECT_EQ((*e)->kind, EventKind::kExperimental);
  EXPECT_EQ((*e)->wire_type, 200);
  EXPECT_EQ((*e)->ticks, 1005u);
  EXPECT_EQ((*e)->experimental_data, "abc");
  e = r.Next();
  ASSERT_TRUE(e.ok() && *e != nullptr);
  EXPECT_EQ((*e)->kind, EventKind::kVersion);
  e = r.Next();
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(*e, nullptr);
}

// ---- Table references ----

TEST(ValidationTest, UnknownStringId) {
  GenBuilder g = Base();
  g.Ev(0, E::kData, 1200, Site(g), {99});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 0, event 1: byte offset %d: data: "
                              "value_string 99 is not in the string table",
                              FindRecordOffset(trace, E::kData)));
}

TEST(ValidationTest, UnknownSiteId) {
  GenBuilder g = Base();
  g.Ev(0, E::kData, 1200, 42, {g.S("v")});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 0, event 1: byte offset %d: data: site ID "
                              "42 is not in the site table",
                              FindRecordOffset(trace, E::kData)));
}

TEST(ValidationTest, SiteIdZero) {
  GenBuilder g = Base();
  g.Ev(0, E::kData, 1200, 0, {g.S("v")});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 0, event 1: byte offset %d: data: site ID "
                              "0 is not in the site table",
                              FindRecordOffset(trace, E::kData)));
}

TEST(ValidationTest, UnknownStackId) {
  GenBuilder g = Base();
  g.Raw(0, E::kStackRef, 1200, {7});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 0, event 1: byte offset %d: stack ID 7 is "
                              "not in the stack table",
                              FindRecordOffset(trace, E::kStackRef)));
}

TEST(ValidationTest, SiteNamesUnknownString) {
  GenBuilder g = Base();
  format::Site site;
  site.line = 3;
  g.encoder().InternSite(site);
  // Hand-built site table whose site 9 names string 77.
  const std::string body = Rec(E::kSite, {9, 77, 1, 0, 0, 0});
  std::string frame(1, static_cast<char>(E::kSiteBatch));
  format::AppendUvarint(&frame, 1);
  format::AppendUvarint(&frame, body.size());
  frame += body;
  g.AddFrames(frame);
  const std::string trace = Trace({g.Finish()});
  const uint64_t offset = trace.find(frame) + frame.size() - body.size();
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1: byte offset %d: site 9: file_string 77 is not in "
                              "the string table",
                              offset));
}

TEST(ValidationTest, StackFrameNamesUnknownString) {
  GenBuilder g = Base();
  const uint64_t stack = g.Stack({{0x10, 99, 0, 1}});
  g.Raw(0, E::kStackRef, 1200, {stack});
  g.Ev(0, E::kData, 1300, Site(g), {g.S("v")});
  const std::string trace = Trace({g.Finish()});
  const testing::FrameAt stacks = FindFrame(trace, E::kStackBatch);
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1: byte offset %d: stack 1: func_string 99 is not in "
                              "the string table",
                              stacks.body_offset));
}

TEST(ValidationTest, DuplicateStringId) {
  GenBuilder g = Base();
  const std::string body = Rec(E::kString, {1}, "dup");
  std::string frame(1, static_cast<char>(E::kStringBatch));
  format::AppendUvarint(&frame, 1);
  format::AppendUvarint(&frame, body.size());
  frame += body;
  g.AddFrames(frame);
  const std::string trace = Trace({g.Finish()});
  // The hand-built batch comes first; the encoder's own string 1 is the duplicate.
  const testing::FrameAt strings = FindFrame(trace, E::kStringBatch, 1);
  ExpectError(
      trace, absl::StatusCode::kDataLoss,
      absl::StrFormat("generation 1: byte offset %d: duplicate string ID 1", strings.body_offset));
}

TEST(ValidationTest, StringPartWithoutFinalString) {
  GenBuilder g = Base();
  const std::string body = Rec(E::kStringPart, {50}, "part");
  std::string frame(1, static_cast<char>(E::kStringBatch));
  format::AppendUvarint(&frame, 1);
  format::AppendUvarint(&frame, body.size());
  frame += body;
  g.AddFrames(frame);
  ExpectError(Trace({g.Finish()}), absl::StatusCode::kDataLoss,
              "generation 1: string_part records of string ID 50 have no final string record");
}

TEST(ValidationTest, UnfinishedStringPartsNameTheSmallestId) {
  // Many unfinished strings: the error names the smallest ID, whatever order the table
  // keeps them in (the message is the same in every run and every read).
  GenBuilder g = Base();
  std::string body;
  for (uint64_t id : {900, 72, 3000, 55, 61, 4000, 513}) body += Rec(E::kStringPart, {id}, "part");
  std::string frame(1, static_cast<char>(E::kStringBatch));
  format::AppendUvarint(&frame, 1);
  format::AppendUvarint(&frame, body.size());
  frame += body;
  g.AddFrames(frame);
  ExpectError(Trace({g.Finish()}), absl::StatusCode::kDataLoss,
              "generation 1: string_part records of string ID 55 have no final string record");
}

TEST(ValidationTest, LongStringFromPartsIsJoined) {
  GenBuilder g = Base();
  const std::string big(100000, 'x');
  g.Ev(0, E::kDataJson, 1200, Site(g), {g.S(absl::StrCat("\"", big, "\""))});
  const std::string trace = Trace({g.Finish()});
  Reader r(MemorySource(trace));
  ASSERT_TRUE(r.Next().ok());
  absl::StatusOr<const Event*> e = r.Next();
  ASSERT_TRUE(e.ok() && *e != nullptr);
  EXPECT_EQ((*e)->value_string.size(), big.size() + 2);
  EXPECT_EQ((*e)->value_string, absl::StrCat("\"", big, "\""));
}

TEST(ValidationTest, StringListWithoutFinalNul) {
  GenBuilder g = Base();
  g.Ev(0, E::kStart, 1200, Site(g), {g.S("abc")});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 0, event 1: byte offset %d: string list 2 "
                              "does not end with a NUL byte",
                              FindRecordOffset(trace, E::kStart)));
}

// ---- Generation structure ----

TEST(ValidationTest, MissingClockSync) {
  GenBuilder g = Base();
  ExpectError(Trace({RemoveFrame(g.Finish(), E::kClockSync)}), absl::StatusCode::kDataLoss,
              "generation 1: byte offset 16: no clock_sync (a generation has exactly one)");
}

TEST(ValidationTest, SecondClockSync) {
  GenBuilder g = Base();
  g.AddFrames(Rec(E::kClockSync, {1, 1000000000, 1000, 0, 0, 0, 0}));
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1: byte offset %d: second clock_sync (a generation "
                              "has exactly one)",
                              FindFrame(trace, E::kClockSync, 1).offset));
}

TEST(ValidationTest, MissingProcessInfo) {
  GenBuilder g = Base();
  const std::string gen = RemoveFrame(g.Finish(), E::kProcessInfo);
  ExpectError(Trace({gen}), absl::StatusCode::kDataLoss,
              "generation 1: byte offset 16: no process_info (a generation has exactly one)");
}

TEST(ValidationTest, SecondProcessInfo) {
  GenBuilder g = Base();
  g.AddFrames(Rec(E::kProcessInfo, {1, 1, 1, 1, 0, 0}));
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1: byte offset %d: second process_info (a "
                              "generation has exactly one)",
                              FindFrame(trace, E::kProcessInfo, 1).offset));
}

TEST(ValidationTest, ClockFrequencyZero) {
  GenBuilder g = Base();
  format::ClockSync sync;
  sync.freq = 0;
  g.encoder().SetClockSync(sync);
  ExpectError(Trace({g.Finish()}), absl::StatusCode::kDataLoss,
              "generation 1: byte offset 16: clock_sync freq is 0");
}

TEST(ValidationTest, TwoProcessesMayAlternateInOneFile) {
  GenBuilder a1 = Base(1);
  GenBuilder b1(1, "OTHER");
  b1.Ev(0, E::kVersion, 1150, b1.Site("m.c", 1), {b1.S("x")});
  GenBuilder a2(2, "SID0", 4242, 1000, 2000);
  a2.Ev(0, E::kData, 2100, Site(a2), {a2.S("v")});
  const testing::ReadResult result =
      ReadAll(Trace({a1.Finish(), Trace({}) + b1.Finish(), Trace({}) + a2.Finish()}));
  EXPECT_TRUE(result.status.ok()) << result.status;
  ASSERT_EQ(result.debug.size(), 3u);
  EXPECT_TRUE(absl::StrContains(result.debug[1], "sid=OTHER")) << result.debug[1];
  EXPECT_TRUE(absl::StrContains(result.debug[2], "sid=SID0")) << result.debug[2];
}

TEST(ValidationTest, GenerationNumbersOfAProcessMustIncrease) {
  const std::string gen2 = Base(2).Finish();
  const std::string trace = Trace({gen2, Base(1).Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1: byte offset %d: process SID0: generation 1 follows "
                              "its generation 2; a process's generation numbers must increase",
                              FindFrame(trace, E::kProcessInfo, 1).offset));
}

TEST(ValidationTest, RepeatedGenerationNumber) {
  const std::string gen = Base(1).Finish();
  const std::string trace = Trace({gen, gen});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1: byte offset %d: process SID0: generation 1 follows "
                              "its generation 1; a process's generation numbers must increase",
                              FindFrame(trace, E::kProcessInfo, 1).offset));
}

TEST(ValidationTest, RepeatedFileHeaderWithAnotherVersion) {
  const std::string gen = Base(1).Finish();
  const std::string trace = Trace({gen, format::EncodeFileHeader(9)});
  ExpectError(trace, absl::StatusCode::kUnimplemented,
              absl::StrFormat("after generation 1: byte offset %d: repeated file header: format "
                              "version 9 is not supported (this build reads 1 to 4)",
                              16 + gen.size()));
}

TEST(ValidationTest, FileHeaderInsideAGeneration) {
  std::string gen = Base(1).Finish();
  const std::string header = format::EncodeFileHeader(1);
  const size_t at = FindFrame(Trace({gen}), E::kEventBatch).offset - 16;
  gen.insert(at, header);
  ExpectError(Trace({gen}), absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1: byte offset %d: unknown event type 137 in the top "
                              "level",
                              16 + at));
}

TEST(ValidationTest, MissingEndOfGenerationMeansInterleaving) {
  std::string gen1 = Base(1).Finish();
  gen1.resize(gen1.size() - 2);  // drop end_of_generation(1): bytes 07 01
  const std::string trace = Trace({gen1, Base(2).Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1: byte offset %d: clock_sync of generation 2 before "
                              "the end_of_generation of generation 1; generations are "
                              "interleaved or end_of_generation is missing",
                              16 + gen1.size()));
}

TEST(ValidationTest, InterleavedBatchOfAnotherGeneration) {
  GenBuilder g = Base(1);
  g.AddFrames(BatchFrame(2, 0, 5000, Rec(E::kData, {1, 1, 1})));
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1: byte offset %d: event_batch of generation 2 "
                              "before the end_of_generation of generation 1; generations are "
                              "interleaved or end_of_generation is missing",
                              FindFrame(trace, E::kEventBatch, 1).offset));
}

TEST(ValidationTest, EndOfGenerationNamesAnotherGeneration) {
  std::string gen1 = Base(1).Finish();
  gen1.back() = 5;
  ExpectError(Trace({gen1}), absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1: byte offset %d: end_of_generation names "
                              "generation 5",
                              16 + gen1.size() - 2));
}

TEST(ValidationTest, TruncatedInsideGeneration) {
  std::string gen1 = Base(1).Finish();
  gen1.resize(gen1.size() - 2);
  ExpectError(Trace({gen1}), absl::StatusCode::kOutOfRange,
              absl::StrFormat("generation 1: byte offset %d: input ends inside the "
                              "generation, before its end_of_generation; the trace is likely "
                              "truncated",
                              16 + gen1.size()));
}

TEST(ValidationTest, TruncatedInsideFrame) {
  const std::string gen1 = Base(1).Finish();
  const std::string trace = Trace({gen1}).substr(0, 16 + 3);  // inside the clock_sync
  ExpectError(trace, absl::StatusCode::kOutOfRange,
              "first generation: byte offset 18: truncated varint in freq of clock_sync "
              "record at offset 16");
}

// ---- Compressed generations ----

std::string CompressedFrame(const std::string& raw, uint64_t gen, uint64_t declared) {
  std::string z(ZSTD_compressBound(raw.size()), '\0');
  z.resize(ZSTD_compress(z.data(), z.size(), raw.data(), raw.size(), 1));
  std::string out;
  const uint64_t args[] = {gen, declared};
  EXPECT_TRUE(format::AppendRecord(&out, E::kCompressedGeneration, args, z).ok());
  return out;
}

TEST(ValidationTest, CompressedRawLengthMismatch) {
  const std::string raw = Base(1).Finish();
  ExpectError(Trace({CompressedFrame(raw, 1, raw.size() + 10)}), absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1 (compressed at byte offset 16): byte offset 16: "
                              "decompressed to %d bytes, raw_length says %d",
                              raw.size(), raw.size() + 10));
}

TEST(ValidationTest, CompressedRawLengthAboveMaximum) {
  const std::string raw = Base(1).Finish();
  ExpectError(Trace({CompressedFrame(raw, 1, format::kMaxGenerationSize + 1)}),
              absl::StatusCode::kDataLoss,
              "generation 1 (compressed at byte offset 16): byte offset 16: raw_length "
              "268435457 exceeds the maximum generation size 268435456");
}

TEST(ValidationTest, CompressedGarbage) {
  std::string out;
  const uint64_t args[] = {1, 100};
  ASSERT_TRUE(format::AppendRecord(&out, E::kCompressedGeneration, args, "not zstd").ok());
  const testing::ReadResult result = ReadAll(Trace({out}));
  EXPECT_EQ(result.status.code(), absl::StatusCode::kDataLoss);
  EXPECT_TRUE(absl::StartsWith(result.status.message(),
                               "generation 1 (compressed at byte offset 16): byte offset 16: "
                               "zstd: "))
      << result.status;
}

TEST(ValidationTest, CompressedContentOfAnotherGeneration) {
  const std::string raw = Base(2).Finish();
  ExpectError(Trace({CompressedFrame(raw, 1, raw.size())}), absl::StatusCode::kDataLoss,
              "generation 1 (compressed at byte offset 16): in the decompressed generation: "
              "byte offset 0: clock_sync of generation 2");
}

TEST(ValidationTest, CompressedWithoutEndOfGeneration) {
  std::string raw = Base(1).Finish();
  raw.resize(raw.size() - 2);
  ExpectError(Trace({CompressedFrame(raw, 1, raw.size())}), absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1 (compressed at byte offset 16): in the decompressed "
                              "generation: byte offset %d: no end_of_generation",
                              raw.size()));
}

TEST(ValidationTest, CompressedAfterOtherFramesOfItsGeneration) {
  const std::string raw = Base(1).Finish();
  const std::string clock = Rec(E::kClockSync, {1, 1000000000, 1000, 0, 0, 0, 0});
  ExpectError(Trace({clock + CompressedFrame(raw, 1, raw.size())}), absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1: byte offset %d: compressed_generation after other "
                              "frames of the same generation; it must hold the whole generation",
                              16 + clock.size()));
}

// ---- Time ----

TEST(ValidationTest, ZeroDeltaTime) {
  GenBuilder g = Base();
  const uint64_t site = Site(g);
  const uint64_t value = g.S("v");
  const std::string body = Rec(E::kData, {0, site, value});
  const std::string batch = BatchFrame(1, 5, 1000, body);
  g.AddFrames(batch);
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 5, event 0: byte offset %d: data has dt 0: "
                              "times must strictly increase (dt >= 1)",
                              trace.find(batch) + batch.size() - body.size()));
}

TEST(ValidationTest, BatchesOfOneThreadOverlapInTime) {
  GenBuilder g = Base();
  const uint64_t site = Site(g);
  const uint64_t value = g.S("v");
  const std::string first = BatchFrame(1, 5, 1000, Rec(E::kData, {500, site, value}));
  const std::string body = Rec(E::kData, {100, site, value});
  const std::string second = BatchFrame(1, 5, 1200, body);
  g.AddFrames(first + second);
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 5, event 1: byte offset %d: time 1300 is "
                              "not after the thread's previous event at 1500: batches of one "
                              "thread overlap in time",
                              trace.find(second) + second.size() - body.size()));
}

// ---- Regions ----

TEST(ValidationTest, RegionLeaveWithoutOpenRegion) {
  GenBuilder g = Base();
  g.Ev(0, E::kRegionLeave, 1200, Site(g), {0});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 0, event 1: byte offset %d: region_leave "
                              "with no open region on the thread",
                              FindRecordOffset(trace, E::kRegionLeave)));
}

TEST(ValidationTest, RegionActiveOutsideRestatement) {
  GenBuilder g = Base();
  g.Raw(0, E::kRegionActive, 1200, {Site(g), 0, 1100});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 0, event 1: byte offset %d: region_active "
                              "outside a re-statement: it must follow thread_status or another "
                              "region_active",
                              FindRecordOffset(trace, E::kRegionActive)));
}

TEST(ValidationTest, ThreadStatusNotFirst) {
  GenBuilder g = Base();
  g.Raw(0, E::kThreadStatus, 1200, {g.S("main"), 1000});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 0, event 1: byte offset %d: thread_status "
                              "must be the first record of the thread's stream in a generation",
                              FindRecordOffset(trace, E::kThreadStatus)));
}

TEST(ValidationTest, ThreadIdAboveTheLargest) {
  GenBuilder g = Base();
  g.Ev(1, E::kThreadStart, 1200, Site(g), {g.S("th01:w"), (uint64_t{1} << 22) + 1});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 1, event 0: byte offset %d: thread_start tid "
                              "4194305 is above the largest thread id 4194304",
                              FindRecordOffset(trace, E::kThreadStart)));
  GenBuilder g2 = Base();
  g2.Raw(2, E::kThreadStatus, 1200, {g2.S("th02:w"), 1000, uint64_t{1} << 40});
  const std::string trace2 = Trace({g2.Finish()});
  ExpectError(trace2, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 2, event 0: byte offset %d: thread_status tid "
                              "1099511627776 is above the largest thread id 4194304",
                              FindRecordOffset(trace2, E::kThreadStatus)));
}

TEST(ValidationTest, ThreadIdsAreCarriedAndRestated) {
  // A tid stated at thread_start, carried through a re-statement that states none (0), and
  // the main thread's from its re-statements.
  GenBuilder g1 = Base(1);
  g1.Ev(1, E::kThreadStart, 1200, Site(g1), {g1.S("th01:w"), 4300});
  g1.Ev(1, E::kData, 1300, Site(g1), {g1.S("a")});
  GenBuilder g2(2, "SID0", 4242, 1000, 3000);
  g2.Raw(0, E::kThreadStatus, 3000, {g2.S("main"), 1000, 4242});
  g2.Raw(1, E::kThreadStatus, 3000, {g2.S("th01:w"), 1200});
  g2.Ev(1, E::kData, 3100, Site(g2), {g2.S("b")});
  g2.Ev(0, E::kData, 3200, Site(g2), {g2.S("c")});
  const std::string trace = Trace({g1.Finish(), g2.Finish()});
  reader::Reader r(reader::MemorySource(trace, "t.twr"), {});
  std::vector<std::pair<std::string, uint64_t>> tids;
  while (true) {
    absl::StatusOr<const reader::Event*> e = r.Next();
    ASSERT_TRUE(e.ok()) << e.status();
    if (*e == nullptr) break;
    tids.emplace_back(absl::StrCat((*e)->thread_name, " ", reader::EventKindName((*e)->kind)),
                      (*e)->thread_tid);
  }
  EXPECT_EQ(tids, (std::vector<std::pair<std::string, uint64_t>>{{"main version", 0},
                                                                  {"th01:w thread_start", 4300},
                                                                  {"th01:w data", 4300},
                                                                  {"th01:w data", 4300},
                                                                  {"main data", 4242}}));
}

TEST(ValidationTest, RestatementMissesAnOpenRegion) {
  GenBuilder g1 = Base(1);
  g1.Ev(0, E::kRegionEnter, 2000, Site(g1), {0});
  GenBuilder g2(2, "SID0", 4242, 1000, 3000);
  g2.Raw(0, E::kThreadStatus, 3000, {g2.S("main"), 1000});
  g2.Ev(0, E::kData, 3100, Site(g2), {g2.S("v")});
  const std::string trace = Trace({g1.Finish(), g2.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 2, thread 0, event 1: byte offset %d: thread_status "
                              "and region_active re-state 0 open regions, but 1 were open at "
                              "the end of the previous generation",
                              FindRecordOffset(trace, E::kData)));
}

TEST(ValidationTest, RestatementWithWrongEnterTime) {
  GenBuilder g1 = Base(1);
  g1.Ev(0, E::kRegionEnter, 2000, Site(g1), {0});
  GenBuilder g2(2, "SID0", 4242, 1000, 3000);
  g2.Raw(0, E::kThreadStatus, 3000, {g2.S("main"), 1000});
  g2.Raw(0, E::kRegionActive, 3001, {Site(g2), 0, 1999});
  g2.Ev(0, E::kData, 3100, Site(g2), {g2.S("v")});
  const std::string trace = Trace({g1.Finish(), g2.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 2, thread 0, event 2: byte offset %d: region_active 0 "
                              "re-states a region entered at 1999, but the open region was "
                              "entered at 2000",
                              FindRecordOffset(trace, E::kData)));
}

TEST(ValidationTest, RegionOpenAcrossGenerationsPairs) {
  GenBuilder g1 = Base(1);
  g1.Ev(0, E::kRegionEnter, 2000, Site(g1), {0});
  GenBuilder g2(2, "SID0", 4242, 1000, 3000);
  g2.Raw(0, E::kThreadStatus, 3000, {g2.S("main"), 1000});
  g2.Raw(0, E::kRegionActive, 3001, {Site(g2), 0, 2000});
  g2.Ev(0, E::kRegionLeave, 3500, Site(g2), {0});
  const testing::ReadResult result = ReadAll(Trace({g1.Finish(), g2.Finish()}));
  EXPECT_TRUE(result.status.ok()) << result.status;
  ASSERT_EQ(result.debug.size(), 3u);
  EXPECT_TRUE(absl::StrContains(result.debug[2], "region_leave gen=2")) << result.debug[2];
  EXPECT_TRUE(absl::StrContains(result.debug[2], "t_rel=0.000002 nesting=1")) << result.debug[2];
}

// ---- Children and execs ----

TEST(ValidationTest, ChildExitForUnknownChild) {
  GenBuilder g = Base();
  g.Ev(0, E::kChildExit, 1200, Site(g), {7, 2, 0, 10});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 0, event 1: byte offset %d: child_exit for "
                              "child_id 7, which has no child_start in this process",
                              FindRecordOffset(trace, E::kChildExit)));
}

TEST(ValidationTest, ChildReadyForUnknownChild) {
  GenBuilder g = Base();
  g.Ev(0, E::kChildReady, 1200, Site(g), {7, 2, 0, 10});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 0, event 1: byte offset %d: child_ready "
                              "for child_id 7, which has no child_start in this process",
                              FindRecordOffset(trace, E::kChildReady)));
}

TEST(ValidationTest, ChildExitForUnknownChildIsAcceptedInASuffix) {
  GenBuilder g(5);  // no version/start: a suffix of a longer trace
  g.Ev(0, E::kChildExit, 1200, Site(g), {7, 2, 0, 10});
  const testing::ReadResult result = ReadAll(Trace({g.Finish()}));
  EXPECT_TRUE(result.status.ok()) << result.status;
  EXPECT_EQ(result.debug.size(), 1u);
}

TEST(ValidationTest, ChildStartedInAnEarlierGenerationPairs) {
  GenBuilder g1 = Base(1);
  g1.Ev(0, E::kChildStart, 1200, Site(g1), {3, g1.S("?"), 0, 0, 0, 0});
  GenBuilder g2(2, "SID0", 4242, 1000, 3000);
  g2.Ev(0, E::kChildExit, 3100, Site(g2), {3, 2, 0, 10});
  g2.Ev(0, E::kChildExit, 3200, Site(g2), {3, 2, 0, 10});
  const std::string trace = Trace({g1.Finish(), g2.Finish()});
  // The first exit pairs with the start of generation 1; the second has nothing to pair.
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 2, thread 0, event 1: byte offset %d: child_exit for "
                              "child_id 3, which has no child_start in this process",
                              FindRecordOffset(trace, E::kChildExit, 1)));
}

TEST(ValidationTest, ChildStartTwice) {
  GenBuilder g = Base();
  g.Ev(0, E::kChildStart, 1200, Site(g), {3, g.S("?"), 0, 0, 0, 0});
  g.Ev(0, E::kChildStart, 1300, Site(g), {3, g.S("?"), 0, 0, 0, 0});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 0, event 2: byte offset %d: child_start for "
                              "child_id 3, which is already running",
                              FindRecordOffset(trace, E::kChildStart, 1)));
}

TEST(ValidationTest, ChildReadyWithUnknownReadyValue) {
  GenBuilder g = Base();
  g.Ev(0, E::kChildStart, 1200, Site(g), {3, g.S("?"), 0, 0, 0, 0});
  g.Ev(0, E::kChildReady, 1300, Site(g), {3, 2, 9, 10});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 0, event 2: byte offset %d: child_ready has "
                              "an unknown ready value 9",
                              FindRecordOffset(trace, E::kChildReady)));
}

TEST(ValidationTest, ExecResultForUnknownExec) {
  GenBuilder g = Base();
  g.Ev(0, E::kExecResult, 1200, Site(g), {4, 1});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 0, event 1: byte offset %d: exec_result for "
                              "exec_id 4, which has no exec in this process",
                              FindRecordOffset(trace, E::kExecResult)));
}

// ---- Threads ----

TEST(ValidationTest, EventAfterThreadExit) {
  GenBuilder g = Base();
  g.Ev(1, E::kThreadStart, 1200, Site(g), {g.S("th01:w")});
  g.Ev(1, E::kThreadExit, 1300, Site(g));
  g.Ev(1, E::kData, 1400, Site(g), {g.S("v")});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 1, event 2: byte offset %d: data after "
                              "thread_exit: thread_exit must be the thread's last event",
                              FindRecordOffset(trace, E::kData)));
}

TEST(ValidationTest, ThreadStartTwice) {
  GenBuilder g = Base();
  g.Ev(1, E::kThreadStart, 1200, Site(g), {g.S("th01:w")});
  g.Ev(1, E::kThreadStart, 1300, Site(g), {g.S("th01:w")});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StatusCode::kDataLoss,
              absl::StrFormat("generation 1, thread 1, event 1: byte offset %d: thread_start "
                              "for a thread that has already started",
                              FindRecordOffset(trace, E::kThreadStart, 1)));
}

// ---- Delivery before errors ----

TEST(ValidationTest, CompleteGenerationsAreDeliveredBeforeTheError) {
  GenBuilder g1 = Base(1);
  g1.Ev(0, E::kData, 1200, Site(g1), {g1.S("v")});
  GenBuilder g2(2, "SID0", 4242, 1000, 3000);
  g2.Ev(0, E::kRegionLeave, 3100, Site(g2), {0});
  const testing::ReadResult result = ReadAll(Trace({g1.Finish(), g2.Finish()}));
  EXPECT_EQ(result.status.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(result.debug.size(), 2u);
  EXPECT_EQ(result.generations, std::vector<uint64_t>({1}));
}

TEST(ValidationTest, ErrorsNameTheSource) {
  const std::string trace = "garbage garbage garbage";
  Reader r(MemorySource(trace, "/tmp/x.twr"));
  absl::StatusOr<const Event*> e = r.Next();
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(),
            "/tmp/x.twr: file header: byte offset 0: not a tracewire trace (bad magic)");
  // Errors are sticky.
  EXPECT_EQ(r.Next().status(), e.status());
}

}  // namespace
}  // namespace tracewire::reader
