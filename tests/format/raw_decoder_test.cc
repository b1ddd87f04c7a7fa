// Errors of the raw decoder: each names the byte offset and a specific reason.
#include "format/raw_decoder.h"

#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "format/constants.h"
#include "gtest/gtest.h"

namespace tracewire::format {
namespace {

std::string Bytes(std::initializer_list<uint8_t> bytes) {
  return std::string(bytes.begin(), bytes.end());
}

struct ErrorCase {
  std::string name;
  Scope scope;
  std::string input;
  uint64_t base_offset;
  int good_records;  // records that decode before the error
  absl::StatusCode code;
  uint64_t error_offset;   // the N of "byte offset N"
  uint64_t record_offset;  // where the decoder stays
  std::string reason;      // text the message must contain
};

// Decodes `c.input`, expecting `c.good_records` records and then the error.
absl::Status RunErrorCase(const ErrorCase& c) {
  RecordDecoder decoder(c.input, c.base_offset, c.scope);
  RawEvent event;
  for (int i = 0; i < c.good_records; ++i) {
    absl::StatusOr<bool> got = decoder.Next(&event);
    EXPECT_TRUE(got.ok() && *got) << c.name << ": record " << i << ": " << got.status();
  }
  absl::StatusOr<bool> got = decoder.Next(&event);
  EXPECT_FALSE(got.ok()) << c.name;
  if (got.ok()) return absl::OkStatus();
  EXPECT_EQ(got.status().code(), c.code) << c.name << ": " << got.status();
  const std::string message(got.status().message());
  EXPECT_TRUE(absl::StartsWith(message, absl::StrCat("byte offset ", c.error_offset, ":")))
      << c.name << ": " << message;
  EXPECT_TRUE(absl::StrContains(message, c.reason))
      << c.name << ": \"" << message << "\" lacks \"" << c.reason << "\"";
  // The decoder stays at the bad record and reports the same error again.
  EXPECT_EQ(decoder.offset(), c.record_offset) << c.name;
  absl::StatusOr<bool> again = decoder.Next(&event);
  EXPECT_EQ(again.status(), got.status()) << c.name;
  return got.status();
}

TEST(RawDecoderTest, ErrorsNameTheOffsetAndTheReason) {
  const std::string region_enter = Bytes({0x25, 0x01, 0x01, 0x03});  // dt=1 site=1 msg=3
  const std::string end_of_generation = Bytes({0x07, 0x01});
  const std::string overlong = std::string(10, '\x80') + Bytes({0x00});
  const std::string overflow = std::string(9, '\xff') + Bytes({0x02});
  const std::string string_body(65531, 'b');
  const ErrorCase cases[] = {
      {"unknown type at top level", Scope::kFrame, end_of_generation + Bytes({200, 0x00}), 16, 1,
       absl::StatusCode::kDataLoss, 18, 18, "unknown event type 200 in the top level"},
      {"unknown type in an event body", Scope::kEventBody, region_enter + Bytes({100, 0x01}), 100,
       1, absl::StatusCode::kDataLoss, 104, 104, "unknown event type 100 in the event batch body"},
      {"type 0", Scope::kStringBody, Bytes({0x00}), 7, 0, absl::StatusCode::kDataLoss, 7, 7,
       "unknown event type 0 in the string batch body"},
      {"unknown experimental type at top level", Scope::kFrame, Bytes({128, 0x01, 0x00}), 0, 0,
       absl::StatusCode::kDataLoss, 0, 0,
       "event type 128 (exp_mark) may not appear in the top level"},
      {"unknown experimental type in a site body", Scope::kSiteBody, Bytes({201, 0x01, 0x00}), 0, 0,
       absl::StatusCode::kDataLoss, 0, 0, "unknown event type 201 in the site batch body"},
      {"timed event at top level", Scope::kFrame, end_of_generation + region_enter, 16, 1,
       absl::StatusCode::kDataLoss, 18, 18,
       "event type 37 (region_enter) may not appear in the top level"},
      {"frame in an event body", Scope::kEventBody, region_enter + end_of_generation, 40, 1,
       absl::StatusCode::kDataLoss, 44, 44,
       "event type 7 (end_of_generation) may not appear in the event batch body"},
      {"string record in a stack body", Scope::kStackBody, Bytes({0x0a, 0x01, 0x00}), 3, 0,
       absl::StatusCode::kDataLoss, 3, 3,
       "event type 10 (string) may not appear in the stack batch body"},
      {"truncated argument", Scope::kEventBody, region_enter + Bytes({0x25, 0x01, 0x01}), 50, 1,
       absl::StatusCode::kOutOfRange, 57, 54,
       "truncated varint in msg_string of region_enter record at offset 54"},
      {"truncated multi-byte argument", Scope::kEventBody, Bytes({0x25, 0xff, 0xff}), 0, 0,
       absl::StatusCode::kOutOfRange, 1, 0, "truncated varint in dt of region_enter record"},
      {"truncated data length", Scope::kStringBody, Bytes({0x0a, 0x05}), 10, 0,
       absl::StatusCode::kOutOfRange, 12, 10, "truncated varint in data length of string record"},
      {"truncated stack frame", Scope::kStackBody, Bytes({0x0c, 0x01, 0x01, 0x10, 0x02, 0x03}), 0,
       0, absl::StatusCode::kOutOfRange, 6, 0, "truncated varint in stack frame of stack record"},
      {"overlong argument", Scope::kEventBody, Bytes({0x25, 0x01}) + overlong + Bytes({0x03}), 20,
       0, absl::StatusCode::kDataLoss, 22, 20,
       "overlong varint (more than 10 bytes) in site of region_enter record at offset 20"},
      {"argument over 64 bits", Scope::kFrame, Bytes({0x07}) + overflow, 16, 0,
       absl::StatusCode::kDataLoss, 17, 16, "varint overflows 64 bits in gen of end_of_generation"},
      {"data length past the end", Scope::kStringBody,
       Bytes({0x0a, 0x01, 0x00}) + Bytes({0x0a, 0x02, 0x05, 'a', 'b'}), 30, 1,
       absl::StatusCode::kOutOfRange, 33, 33,
       "string data length 5 runs past the end of the input (2 bytes left)"},
      {"data length over the maximum", Scope::kStringBody,
       Bytes({0x0b, 0x02, 0x81, 0x80, 0x02}) + std::string(32769, 'x'), 0, 0,
       absl::StatusCode::kDataLoss, 0, 0,
       "string_part data length 32769 exceeds the maximum 32768"},
      {"experimental data over the maximum", Scope::kEventBody,
       Bytes({0xc8, 0x01, 0x81, 0x80, 0x02}), 9, 0, absl::StatusCode::kDataLoss, 9, 9,
       "experimental_200 data length 32769 exceeds the maximum 32768"},
      {"batch body past the end", Scope::kFrame,
       end_of_generation + Bytes({0x01, 0x01, 0x02, 0x03, 0x0a, 0x25, 0x01, 0x01}), 16, 1,
       absl::StatusCode::kOutOfRange, 18, 18,
       "event_batch body length 10 runs past the end of the input (3 bytes left)"},
      {"oversize batch", Scope::kFrame, Bytes({0x02, 0x01, 0xfe, 0xff, 0x03}) + string_body + "xyz",
       16, 0, absl::StatusCode::kDataLoss, 16, 16,
       "string_batch of 65539 bytes (header 5 + body 65534) exceeds the maximum batch size 65536"},
      {"batch length over 64 KiB", Scope::kFrame,
       Bytes({0x03, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}), 0, 0,
       absl::StatusCode::kDataLoss, 0, 0,
       "stack_batch of 18446744073709551627 bytes (header 12 + body 18446744073709551615) "
       "exceeds the maximum batch size 65536"},
      {"stack with too many frames", Scope::kStackBody,
       Bytes({0x0c, 0x01, 0x00}) + Bytes({0x0c, 0x02, 0x81, 0x01}), 1000, 1,
       absl::StatusCode::kDataLoss, 1003, 1003,
       "stack record has 129 frames, more than the maximum 128"},
  };
  std::set<std::string> messages;
  for (const ErrorCase& c : cases) {
    const absl::Status status = RunErrorCase(c);
    EXPECT_TRUE(messages.insert(std::string(status.message())).second)
        << "message not distinct: " << status.message();
  }
}

TEST(RawDecoderTest, BatchOfExactlySixtyFourKiBIsAccepted) {
  // Header 02 01 fb ff 03 (5 bytes) + 65531-byte body = 65536.
  const std::string input = Bytes({0x02, 0x01, 0xfb, 0xff, 0x03}) + std::string(65531, 'b');
  RecordDecoder decoder(input, 0, Scope::kFrame);
  RawEvent event;
  absl::StatusOr<bool> got = decoder.Next(&event);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(event.size, kMaxBatchSize);
  EXPECT_EQ(event.body.size(), 65531u);
  EXPECT_EQ(event.body_offset, 5u);
  EXPECT_TRUE(decoder.AtEnd());
}

TEST(RawDecoderTest, StackOfExactly128FramesIsAccepted) {
  std::string input = Bytes({0x0c, 0x01, 0x80, 0x01});
  for (int i = 0; i < 128; ++i) input += Bytes({0x01, 0x02, 0x03, 0x04});
  RecordDecoder decoder(input, 0, Scope::kStackBody);
  RawEvent event;
  ASSERT_TRUE(*decoder.Next(&event));
  EXPECT_EQ(event.frames.size(), 128u);
  EXPECT_EQ(event.frames[127], (StackFrame{1, 2, 3, 4}));
}

TEST(RawDecoderTest, UnknownExperimentalEventsDecodeGenerically) {
  // exp_mark (known), then types 129 and 255 (unknown): type, dt, data length, data.
  const std::string input = Bytes({0x80, 0x02, 0x01, 'm'}) +
                            Bytes({0x81, 0x05, 0x03, 'a', 'b', 'c'}) +
                            Bytes({0xff, 0x80, 0x01, 0x00}) + Bytes({0x25, 0x01, 0x01, 0x00});
  RecordDecoder decoder(input, 200, Scope::kEventBody);
  RawEvent event;
  ASSERT_TRUE(*decoder.Next(&event));
  EXPECT_EQ(event.type, 128);
  EXPECT_EQ(event.spec, LookupSpec(EventType::kExpMark));
  EXPECT_EQ(event.Name(), "exp_mark");
  EXPECT_EQ(event.Arg("dt"), 2u);
  EXPECT_EQ(event.data, "m");

  ASSERT_TRUE(*decoder.Next(&event));
  EXPECT_EQ(event.type, 129);
  EXPECT_EQ(event.spec, nullptr);
  EXPECT_EQ(event.Name(), "experimental_129");
  EXPECT_EQ(event.offset, 204u);
  EXPECT_EQ(event.size, 6u);
  ASSERT_EQ(event.num_args, 1);
  EXPECT_EQ(event.args[0], 5u);
  EXPECT_EQ(event.data, "abc");

  ASSERT_TRUE(*decoder.Next(&event));
  EXPECT_EQ(event.type, 255);
  EXPECT_EQ(event.args[0], 128u);
  EXPECT_EQ(event.data, "");

  ASSERT_TRUE(*decoder.Next(&event));  // a known event after them still decodes
  EXPECT_EQ(event.type, static_cast<uint8_t>(EventType::kRegionEnter));
  EXPECT_EQ(event.offset, 214u);
  EXPECT_FALSE(*decoder.Next(&event));
  EXPECT_TRUE(decoder.AtEnd());
}

TEST(RawDecoderTest, ThreadRecordsOfVersion3HaveNoTid) {
  // thread_status dt=1 name_string=2 start_time=3, then thread_start dt=1 site=1
  // name_string=2: the version 3 layout, without the tid.
  const std::string v3 = Bytes({0x2f, 0x01, 0x02, 0x03}) + Bytes({0x21, 0x01, 0x01, 0x02});
  RecordDecoder old(v3, 0, Scope::kEventBody, 3);
  RawEvent event;
  ASSERT_TRUE(*old.Next(&event));
  EXPECT_EQ(event.Name(), "thread_status");
  EXPECT_EQ(event.size, 4u);
  EXPECT_EQ(event.Arg("start_time"), 3u);
  EXPECT_EQ(event.Arg("tid"), 0u);  // not recorded
  ASSERT_TRUE(*old.Next(&event));
  EXPECT_EQ(event.Name(), "thread_start");
  EXPECT_EQ(event.Arg("name_string"), 2u);
  EXPECT_EQ(event.Arg("tid"), 0u);
  EXPECT_TRUE(old.AtEnd());

  // Read as version 4 the same bytes are misframed: thread_status takes the next byte as
  // its tid, and what follows is no record of an event body.
  RecordDecoder current(v3, 0, Scope::kEventBody);
  ASSERT_TRUE(*current.Next(&event));
  EXPECT_EQ(event.Arg("tid"), 0x21u);
  EXPECT_FALSE(current.Next(&event).ok());

  // Version 4: the tid (here 4242, two bytes) ends the record.
  const std::string v4 = Bytes({0x2f, 0x01, 0x02, 0x03, 0x92, 0x21});
  RecordDecoder decoder(v4, 0, Scope::kEventBody, 4);
  ASSERT_TRUE(*decoder.Next(&event));
  EXPECT_EQ(event.Arg("tid"), 4242u);
  EXPECT_TRUE(decoder.AtEnd());
}

TEST(RawDecoderTest, EmptyInputHasNoRecords) {
  RecordDecoder decoder("", 5, Scope::kFrame);
  RawEvent event;
  absl::StatusOr<bool> got = decoder.Next(&event);
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(*got);
  EXPECT_TRUE(decoder.AtEnd());
  EXPECT_EQ(decoder.offset(), 5u);
}

}  // namespace
}  // namespace tracewire::format
