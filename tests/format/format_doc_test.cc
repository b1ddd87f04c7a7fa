// docs/format.md stays byte-exact: every ```hex block decodes with the real decoder,
// consumes every byte, says what the doc claims, and equals what the encoders produce
// today. The generated parts (event table, annotation tables) must match too; regenerate
// them with `bazel run //tests/format:format_doc_gen`.
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "format/constants.h"
#include "format/event_spec.h"
#include "format/file_header.h"
#include "format/generation_encoder.h"
#include "format/raw_decoder.h"
#include "format/varint.h"
#include "gtest/gtest.h"
#include "tests/format/doc_examples.h"

namespace tracewire::format {
namespace {

std::string ReadDoc() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  const std::string path = absl::StrCat(srcdir ? srcdir : ".", "/",
                                        workspace ? workspace : "tracewire", "/docs/format.md");
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

struct HexBlock {
  std::string label;
  std::string bytes;
  int line = 0;  // line number of the opening fence
};

// Every ```hex block of the doc. Fails the test on a malformed block.
std::vector<HexBlock> ParseHexBlocks(const std::string& doc) {
  std::vector<HexBlock> blocks;
  const std::vector<std::string> lines = absl::StrSplit(doc, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!absl::StartsWith(lines[i], "```hex")) continue;
    HexBlock block;
    block.line = i + 1;
    block.label = std::string(absl::StripAsciiWhitespace(absl::string_view(lines[i]).substr(6)));
    EXPECT_TRUE(absl::StartsWith(block.label, "example:")) << "line " << block.line;
    for (++i; i < lines.size() && !absl::StartsWith(lines[i], "```"); ++i) {
      for (absl::string_view token : absl::StrSplit(lines[i], ' ', absl::SkipEmpty())) {
        int value = 0;
        const bool ok = token.size() == 2 && absl::ascii_isxdigit(token[0]) &&
                        absl::ascii_isxdigit(token[1]) && absl::SimpleHexAtoi(token, &value);
        EXPECT_TRUE(ok) << "line " << i + 1 << ": \"" << token << "\" is not a hex byte";
        block.bytes.push_back(static_cast<char>(value));
      }
    }
    EXPECT_LT(i, lines.size()) << "unterminated hex block at line " << block.line;
    blocks.push_back(std::move(block));
  }
  return blocks;
}

// A doc example decoded with the raw decoder.
struct Decoded {
  std::optional<uint32_t> version;  // file header, if the bytes start with one
  std::vector<RawEvent> frames;
  std::vector<std::vector<RawEvent>> bodies;  // per frame
  std::vector<std::vector<uint64_t>> times;   // absolute time of each timed body record
  std::map<uint64_t, std::string> strings;
  std::map<uint64_t, RawEvent> sites;
};

void Decode(absl::string_view bytes, Decoded* d) {
  uint64_t offset = 0;
  const absl::string_view magic(reinterpret_cast<const char*>(kFileMagic), sizeof(kFileMagic));
  if (absl::StartsWith(bytes, magic)) {
    absl::StatusOr<uint32_t> version = ParseFileHeader(bytes);
    ASSERT_TRUE(version.ok()) << version.status();
    d->version = *version;
    offset = kFileHeaderSize;
  }
  RecordDecoder frames(bytes.substr(offset), offset, Scope::kFrame);
  RawEvent frame;
  while (true) {
    absl::StatusOr<bool> more = frames.Next(&frame);
    ASSERT_TRUE(more.ok()) << more.status();
    if (!*more) break;
    d->frames.push_back(frame);
    d->bodies.emplace_back();
    d->times.emplace_back();
    if (frame.spec->body == BodyKind::kNone) continue;
    EXPECT_LE(frame.size, kMaxBatchSize);
    RecordDecoder body(frame.body, frame.body_offset, BodyScope(frame.spec->body));
    RawEvent record;
    uint64_t time = frame.Arg("base_time");
    while (true) {
      absl::StatusOr<bool> got = body.Next(&record);
      ASSERT_TRUE(got.ok()) << got.status();
      if (!*got) break;
      if (frame.spec->body == BodyKind::kEvents) {
        time += record.args[0];
        d->times.back().push_back(time);
      }
      if (record.type == static_cast<uint8_t>(EventType::kString) ||
          record.type == static_cast<uint8_t>(EventType::kStringPart)) {
        d->strings[record.Arg("id")].append(record.data.data(), record.data.size());
      }
      if (record.type == static_cast<uint8_t>(EventType::kSite)) {
        d->sites[record.Arg("id")] = record;
      }
      d->bodies.back().push_back(record);
    }
    EXPECT_TRUE(body.AtEnd());
  }
  EXPECT_TRUE(frames.AtEnd()) << "bytes left over";
  EXPECT_EQ(frames.offset(), bytes.size());
}

uint8_t T(EventType type) { return static_cast<uint8_t>(type); }

// What the doc's prose says about each example, checked on the decoded bytes.
void CheckFacts(const std::string& label, const Decoded& d) {
  if (label == "example:file_header") {
    EXPECT_EQ(d.version, kFormatVersion);
    EXPECT_TRUE(d.frames.empty());
  } else if (label == "example:event_batch") {
    ASSERT_EQ(d.frames.size(), 1u);
    const RawEvent& batch = d.frames[0];
    EXPECT_EQ(batch.type, T(EventType::kEventBatch));
    EXPECT_EQ(batch.Arg("gen"), 1u);
    EXPECT_EQ(batch.Arg("thread"), 0u);
    EXPECT_EQ(batch.Arg("base_time"), 5'000'100'000u);
    const std::vector<RawEvent>& events = d.bodies[0];
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[0].type, T(EventType::kRegionEnter));
    EXPECT_EQ(events[0].Arg("site"), 1u);
    EXPECT_EQ(events[0].Arg("msg_string"), 0u);
    EXPECT_EQ(events[1].type, T(EventType::kDataInt));
    EXPECT_EQ(events[1].Arg("site"), 2u);
    EXPECT_EQ(ZigzagDecode(events[1].Arg("value")), 42);
    EXPECT_EQ(events[2].type, T(EventType::kRegionLeave));
    EXPECT_EQ(events[2].Arg("site"), 1u);
    EXPECT_EQ(d.times[0], (std::vector<uint64_t>{5'000'100'001, 5'000'350'001, 5'001'100'001}));
  } else if (label == "example:string_batch") {
    ASSERT_EQ(d.frames.size(), 1u);
    EXPECT_EQ(d.frames[0].type, T(EventType::kStringBatch));
    EXPECT_EQ(d.strings, (std::map<uint64_t, std::string>{{1, "wt-status.c"},
                                                          {2, "status"},
                                                          {3, "refresh"},
                                                          {4, "count"},
                                                          {5, "main"},
                                                          {6, "git.c"},
                                                          {7, "/usr/bin/git"},
                                                          {8, "4c1e7f3a"}}));
  } else if (label == "example:site_batch") {
    ASSERT_EQ(d.sites.size(), 2u);
    const RawEvent& site = d.sites.at(1);
    EXPECT_EQ(site.Arg("file_string"), 1u);
    EXPECT_EQ(site.Arg("line"), 1520u);
    EXPECT_EQ(site.Arg("category_string"), 2u);
    EXPECT_EQ(site.Arg("label_string"), 3u);
    EXPECT_EQ(site.Arg("repo"), 2u);
    EXPECT_EQ(d.sites.at(2).Arg("label_string"), 4u);
    EXPECT_EQ(d.sites.at(2).Arg("line"), 1533u);
  } else if (label == "example:stack_batch") {
    ASSERT_EQ(d.bodies.size(), 1u);
    ASSERT_EQ(d.bodies[0].size(), 2u);
    const RawEvent& module = d.bodies[0][0];
    EXPECT_EQ(module.type, T(EventType::kModule));
    EXPECT_EQ(module.Arg("id"), 1u);
    EXPECT_EQ(module.Arg("start"), 0x55d0c0dc0000u);
    EXPECT_EQ(module.Arg("end"), 0x55d0c0f00000u);
    EXPECT_EQ(module.Arg("bias"), 0x55d0c0dc0000u);
    EXPECT_EQ(module.Arg("path_string"), 7u);
    EXPECT_EQ(module.Arg("build_id_string"), 8u);
    const RawEvent& stack = d.bodies[0][1];
    EXPECT_EQ(stack.type, T(EventType::kStack));
    EXPECT_EQ(stack.Arg("id"), 1u);
    EXPECT_EQ(stack.frames,
              (std::vector<StackFrame>{{0x55d0c0de1234, 5, 6, 920}, {0x55d0c0de0f00, 0, 0, 0}}));
  } else if (label == "example:clock_sync") {
    ASSERT_EQ(d.frames.size(), 1u);
    const RawEvent& sync = d.frames[0];
    EXPECT_EQ(sync.type, T(EventType::kClockSync));
    EXPECT_EQ(sync.Arg("freq"), 1'000'000'000u);
    EXPECT_EQ(sync.Arg("trace_time"), 5'000'000'000u);
    EXPECT_EQ(sync.Arg("mono_ns"), 5'000'000'000u);
    EXPECT_EQ(sync.Arg("wall_sec"), 1'700'000'000u);
    EXPECT_EQ(sync.Arg("wall_nsec"), 250'000'000u);
    EXPECT_EQ(ZigzagDecode(sync.Arg("utc_offset_sec")), 3600);
  } else if (label == "example:experimental_events") {
    ASSERT_EQ(d.bodies.size(), 1u);
    ASSERT_EQ(d.bodies[0].size(), 2u);
    EXPECT_EQ(d.bodies[0][0].type, T(EventType::kExpMark));
    EXPECT_EQ(d.bodies[0][0].data, "mark");
    EXPECT_EQ(d.bodies[0][1].type, 200);
    EXPECT_EQ(d.bodies[0][1].spec, nullptr);
    EXPECT_EQ(d.bodies[0][1].data, "\x01\x02");
    EXPECT_EQ(d.times[0], (std::vector<uint64_t>{5'002'000'010, 5'002'000'020}));
  } else if (label == "example:end_of_generation") {
    ASSERT_EQ(d.frames.size(), 1u);
    EXPECT_EQ(d.frames[0].type, T(EventType::kEndOfGeneration));
    EXPECT_EQ(d.frames[0].Arg("gen"), 1u);
  } else if (label == "example:tiny_trace") {
    EXPECT_EQ(d.version, kFormatVersion);
    ASSERT_GE(d.frames.size(), 4u);
    EXPECT_EQ(d.frames.front().type, T(EventType::kClockSync));
    EXPECT_EQ(d.frames.back().type, T(EventType::kEndOfGeneration));
    int syncs = 0, infos = 0;
    std::vector<std::string> events;
    for (size_t i = 0; i < d.frames.size(); ++i) {
      EXPECT_EQ(d.frames[i].Arg("gen"), 1u);
      syncs += d.frames[i].type == T(EventType::kClockSync);
      infos += d.frames[i].type == T(EventType::kProcessInfo);
      if (d.frames[i].type != T(EventType::kEventBatch)) continue;
      for (const RawEvent& e : d.bodies[i]) {
        events.push_back(e.Name());
        for (uint8_t s : e.spec->StringIds()) {
          if (e.args[s] != 0) {
            EXPECT_EQ(d.strings.count(e.args[s]), 1u) << e.Name();
          }
        }
        if (e.spec->ArgIndex("site") >= 0) {
          EXPECT_EQ(d.sites.count(e.Arg("site")), 1u);
        }
        if (e.type == T(EventType::kStart)) {
          EXPECT_EQ(*DecodeStringList(d.strings.at(e.Arg("argv_strlist"))),
                    (std::vector<std::string>{"git", "status"}));
        }
        if (e.type == T(EventType::kRegionEnter)) {
          const RawEvent& site = d.sites.at(e.Arg("site"));
          EXPECT_EQ(d.strings.at(site.Arg("category_string")), "status");
          EXPECT_EQ(d.strings.at(site.Arg("label_string")), "refresh");
        }
      }
    }
    EXPECT_EQ(syncs, 1);
    EXPECT_EQ(infos, 1);
    EXPECT_EQ(events, (std::vector<std::string>{"thread_status", "start", "region_enter",
                                                "region_leave", "exit"}));
    const RawEvent& info = d.frames[1];
    ASSERT_EQ(info.type, T(EventType::kProcessInfo));
    EXPECT_EQ(d.strings.at(info.Arg("sid_string")), "20231114T221320.250000Z-Habc-P4d2");
    EXPECT_EQ(d.strings.at(info.Arg("name_string")), "status");
    EXPECT_EQ(info.Arg("pid"), 1234u);
    EXPECT_EQ(info.Arg("start_time"), 5'000'000'000u);
  } else {
    ADD_FAILURE() << "no facts checked for " << label;
  }
}

TEST(FormatDocTest, HexExamplesDecodeAndMatchTheEncoders) {
  const std::string doc = ReadDoc();
  ASSERT_FALSE(doc.empty());
  const std::vector<HexBlock> blocks = ParseHexBlocks(doc);
  absl::StatusOr<std::vector<DocExample>> examples = DocExamples();
  ASSERT_TRUE(examples.ok()) << examples.status();
  std::map<std::string, const DocExample*> by_label;
  for (const DocExample& e : *examples) by_label[e.label] = &e;

  std::map<std::string, int> seen;
  for (const HexBlock& block : blocks) {
    SCOPED_TRACE(absl::StrCat(block.label, " (docs/format.md line ", block.line, ")"));
    ++seen[block.label];
    ASSERT_FALSE(block.bytes.empty());
    Decoded d;
    ASSERT_NO_FATAL_FAILURE(Decode(block.bytes, &d));
    CheckFacts(block.label, d);
    // The doc's bytes are what the encoders produce today.
    auto it = by_label.find(block.label);
    ASSERT_NE(it, by_label.end()) << "no encoder example for this label";
    const std::string& encoded = it->second->bytes;
    size_t diff = 0;
    while (diff < encoded.size() && diff < block.bytes.size() && encoded[diff] == block.bytes[diff])
      ++diff;
    EXPECT_TRUE(block.bytes == encoded)
        << "doc has " << block.bytes.size() << " bytes, encoder " << encoded.size()
        << "; first difference at byte " << diff << ". Regenerate with "
        << "`bazel run //tests/format:format_doc_gen`.";
  }
  for (const DocExample& e : *examples) {
    EXPECT_EQ(seen[e.label], 1) << e.label << " must appear exactly once in docs/format.md";
  }
}

TEST(FormatDocTest, GeneratedPartsAreCurrent) {
  const std::string doc = ReadDoc();
  EXPECT_TRUE(absl::StrContains(doc, SpecTableMarkdown()))
      << "the §4 event table differs from AllSpecs(); regenerate it:\n"
      << SpecTableMarkdown();
  absl::StatusOr<std::vector<DocExample>> examples = DocExamples();
  ASSERT_TRUE(examples.ok()) << examples.status();
  for (const DocExample& e : *examples) {
    absl::StatusOr<std::string> block = tracewire::format::HexBlock(e);
    absl::StatusOr<std::string> table = AnnotationTable(e);
    ASSERT_TRUE(block.ok() && table.ok());
    EXPECT_TRUE(absl::StrContains(doc, *block + "\n" + *table))
        << e.label << ": hex block or annotation table is stale; expected:\n"
        << *block << "\n"
        << *table;
  }
}

TEST(FormatDocTest, DocStatesTheLimitsAndVersion) {
  const std::string doc = ReadDoc();
  for (const std::string& fact : {
           absl::StrCat("format version ", kFormatVersion),
           std::string("65536"),
           std::string("32768"),
           std::string("16777216"),
           std::string("268435456"),
       }) {
    EXPECT_TRUE(absl::StrContains(doc, fact)) << fact;
  }
}

}  // namespace
}  // namespace tracewire::format
