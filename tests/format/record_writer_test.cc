// TryAppendRecord (the runtime's Status-free encoder) agrees with AppendRecord: the same
// bytes for every valid record, and a refusal, leaving the output unchanged, wherever
// AppendRecord fails.
#include "format/record_writer.h"

#include <string>
#include <vector>

#include "format/event_spec.h"
#include "format/record_encoder.h"
#include "gtest/gtest.h"

namespace tracewire::format {
namespace {

std::vector<uint64_t> Args(const EventSpec& spec) {
  std::vector<uint64_t> args;
  for (int i = 0; i < spec.num_args; ++i) args.push_back(1000u * static_cast<uint64_t>(i) + 7);
  if (spec.is_stack) args[spec.ArgIndex("nframes")] = 2;
  return args;
}

std::vector<StackFrame> Frames(const EventSpec& spec) {
  if (!spec.is_stack) return {};
  return {{0x401000, 3, 4, 10}, {0x402000, 5, 0, 0}};
}

TEST(RecordWriterTest, SameBytesAsAppendRecordForEveryRow) {
  for (const EventSpec& spec : AllSpecs()) {
    SCOPED_TRACE(std::string(spec.name));
    const std::vector<uint64_t> args = Args(spec);
    const std::vector<StackFrame> frames = Frames(spec);
    const std::string data = spec.has_data ? "some data" : "";
    std::string expected = "prefix";
    ASSERT_TRUE(AppendRecord(&expected, spec.type, args, data, frames).ok());
    std::string got = "prefix";
    ASSERT_TRUE(TryAppendRecord(&got, spec.type, args, data, frames));
    EXPECT_EQ(got, expected);
    EXPECT_EQ(got.size() - 6, RecordSize(spec.type, args, data, frames));
  }
}

TEST(RecordWriterTest, ArgumentsAddedLaterMayBeLeftOut) {
  // thread_status without its tid (added by format version 4): written as 0, the byte
  // layout of the full row.
  const std::vector<uint64_t> without = {1, 2, 3};
  const std::vector<uint64_t> with_zero = {1, 2, 3, 0};
  std::string expected;
  ASSERT_TRUE(AppendRecord(&expected, EventType::kThreadStatus, with_zero).ok());
  std::string encoded;
  ASSERT_TRUE(AppendRecord(&encoded, EventType::kThreadStatus, without).ok());
  EXPECT_EQ(encoded, expected);
  std::string written;
  ASSERT_TRUE(TryAppendRecord(&written, EventType::kThreadStatus, without));
  EXPECT_EQ(written, expected);
  EXPECT_EQ(RecordSize(EventType::kThreadStatus, without), expected.size());
  // The row's older arguments may not be left out.
  std::string out;
  EXPECT_FALSE(AppendRecord(&out, EventType::kThreadStatus, {1, 2}).ok());
  EXPECT_FALSE(TryAppendRecord(&out, EventType::kThreadStatus, {1, 2}));
  EXPECT_TRUE(out.empty());
}

TEST(RecordWriterTest, RefusesWhatAppendRecordRejects) {
  struct Case {
    const char* what;
    EventType type;
    std::vector<uint64_t> args;
    std::string data;
    std::vector<StackFrame> frames;
  };
  const EventSpec* string_row = LookupSpec(EventType::kString);
  const EventSpec* site_row = LookupSpec(EventType::kSite);
  const EventSpec* stack_row = LookupSpec(EventType::kStack);
  ASSERT_NE(string_row, nullptr);
  ASSERT_NE(site_row, nullptr);
  ASSERT_NE(stack_row, nullptr);
  std::vector<uint64_t> stack_args = Args(*stack_row);
  std::vector<Case> cases = {
      {"too few arguments", EventType::kString, {}, "x", {}},
      {"too many arguments",
       EventType::kSite,
       std::vector<uint64_t>(site_row->num_args + 1, 1),
       "",
       {}},
      {"data too long",
       EventType::kString,
       Args(*string_row),
       std::string(string_row->max_data + 1, 'x'),
       {}},
      {"frames on a row without them", EventType::kString, Args(*string_row), "x", {{1, 0, 0, 0}}},
      {"nframes disagrees", EventType::kStack, stack_args, "", {{1, 0, 0, 0}}},
      {"unknown type", static_cast<EventType>(0), {1}, "", {}},
  };
  if (!site_row->has_data) {
    cases.push_back({"data on a row without it", EventType::kSite, Args(*site_row), "x", {}});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::string out = "unchanged";
    EXPECT_FALSE(AppendRecord(&out, c.type, c.args, c.data, c.frames).ok());
    EXPECT_EQ(out, "unchanged");
    EXPECT_FALSE(TryAppendRecord(&out, c.type, c.args, c.data, c.frames));
    EXPECT_EQ(out, "unchanged");
  }
}

}  // namespace
}  // namespace tracewire::format
