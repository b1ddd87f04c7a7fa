#include "format/batch_encoder.h"

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "format/constants.h"
#include "format/raw_decoder.h"
#include "format/varint.h"
#include "gtest/gtest.h"

namespace tracewire::format {
namespace {

// Decodes the frames of `out` (all of `type`) and returns them.
std::vector<RawEvent> DecodeFrames(absl::string_view out) {
  std::vector<RawEvent> frames;
  RecordDecoder decoder(out, 0, Scope::kFrame);
  RawEvent event;
  while (true) {
    absl::StatusOr<bool> more = decoder.Next(&event);
    EXPECT_TRUE(more.ok()) << more.status();
    if (!more.ok() || !*more) break;
    frames.push_back(event);
  }
  EXPECT_TRUE(decoder.AtEnd());
  return frames;
}

// Size of the header of a decoded frame, re-derived from its argument varints.
uint64_t HeaderSize(const RawEvent& frame) {
  uint64_t size = 1;
  for (uint64_t arg : frame.Args()) size += UvarintSize(arg);
  return size;
}

TEST(BatchEncoderTest, EventStreamRollsBatchesAtSixtyFourKiB) {
  std::mt19937_64 random(7);
  std::string out;
  EventStreamEncoder stream(/*gen=*/9, /*thread=*/4, &out);
  struct Expected {
    EventType type;
    uint64_t time;
    uint64_t arg;
    size_t data_size;
  };
  std::vector<Expected> expected;
  uint64_t time = 1'000'000'000'000;
  const std::string big(kMaxRecordDataSize, 'j');
  for (int i = 0; i < 200'000; ++i) {
    time += 1 + random() % 5000;
    if (i % 5000 == 17) {
      // A large data_json-like experimental payload: two of these never share a batch.
      const size_t size = (i / 5000) % 2 ? kMaxRecordDataSize : random() % kMaxRecordDataSize;
      ASSERT_TRUE(
          stream.Append(EventType::kExpMark, time, {}, absl::string_view(big).substr(0, size))
              .ok());
      expected.push_back({EventType::kExpMark, time, 0, size});
    } else {
      const uint64_t value = random() >> (random() % 64);
      const uint64_t args[] = {static_cast<uint64_t>(1 + i % 7), value};
      ASSERT_TRUE(stream.Append(EventType::kDataInt, time, args).ok());
      expected.push_back({EventType::kDataInt, time, value, 0});
    }
  }
  stream.Flush();
  stream.Flush();  // a second flush writes nothing

  const std::vector<RawEvent> frames = DecodeFrames(out);
  ASSERT_GT(frames.size(), 1u);
  EXPECT_EQ(static_cast<int>(frames.size()), stream.batches_written());
  size_t next = 0;
  size_t total = 0;
  for (const RawEvent& frame : frames) {
    ASSERT_EQ(frame.type, static_cast<uint8_t>(EventType::kEventBatch));
    EXPECT_EQ(frame.Arg("gen"), 9u);
    EXPECT_EQ(frame.Arg("thread"), 4u);
    const uint64_t header = HeaderSize(frame);
    EXPECT_EQ(header + frame.Arg("length"), frame.size);
    EXPECT_LE(frame.size, kMaxBatchSize);
    EXPECT_EQ(frame.body.size(), frame.Arg("length"));
    total += frame.size;
    uint64_t t = frame.Arg("base_time");
    if (next > 0) {
      EXPECT_EQ(t, expected[next - 1].time) << "base time = previous batch's last event";
    }
    RecordDecoder body(frame.body, frame.body_offset, Scope::kEventBody);
    RawEvent event;
    while (*body.Next(&event)) {
      ASSERT_LT(next, expected.size());
      const Expected& e = expected[next++];
      ASSERT_EQ(event.type, static_cast<uint8_t>(e.type));
      t += event.args[0];
      ASSERT_EQ(t, e.time);
      if (e.type == EventType::kDataInt) {
        EXPECT_EQ(event.Arg("value"), e.arg);
      } else {
        EXPECT_EQ(event.data.size(), e.data_size);
      }
    }
    EXPECT_TRUE(body.AtEnd());
  }
  EXPECT_EQ(next, expected.size());
  EXPECT_EQ(total, out.size());
  // Batches are filled: all but the last come close to the limit.
  for (size_t i = 0; i + 1 < frames.size(); ++i) {
    EXPECT_GT(frames[i].size + kMaxRecordDataSize + 16, kMaxBatchSize) << i;
  }
}

TEST(BatchEncoderTest, BatchThatWouldPassTheLimitRefusesTheEvent) {
  EventBatchEncoder batch(/*gen=*/1, /*thread=*/2, /*base_time=*/100);
  EXPECT_TRUE(batch.empty());
  EXPECT_EQ(batch.last_time(), 100u);
  const std::string data(kMaxRecordDataSize, 'x');
  uint64_t time = 100;
  // A full-size experimental event takes half the batch (two would pass 64 KiB); small
  // 4-byte data_int events fill the rest until one is refused.
  ASSERT_TRUE(*batch.Append(EventType::kExpMark, ++time, {}, data));
  int small = 0;
  while (true) {
    const uint64_t args[] = {1, 2};
    absl::StatusOr<bool> appended = batch.Append(EventType::kDataInt, time + 1, args);
    ASSERT_TRUE(appended.ok());
    if (!*appended) break;
    ++time;
    ++small;
  }
  EXPECT_GT(small, 1000);
  std::string before;
  batch.AppendTo(&before);
  EXPECT_EQ(before.size(), batch.size());
  EXPECT_LE(batch.size(), kMaxBatchSize);
  EXPECT_GT(batch.size() + 4, kMaxBatchSize);  // a 4-byte data_int no longer fits
  const uint64_t last = batch.last_time();

  // A refused event leaves the batch unchanged.
  const uint64_t args[] = {1, 2};
  EXPECT_FALSE(*batch.Append(EventType::kDataInt, time + 10, args));
  EXPECT_FALSE(*batch.Append(EventType::kExpMark, time + 10, {}, data));
  std::string after;
  batch.AppendTo(&after);
  EXPECT_EQ(after, before);
  EXPECT_EQ(batch.last_time(), last);

  const std::vector<RawEvent> frames = DecodeFrames(after);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_LE(frames[0].size, kMaxBatchSize);
}

TEST(BatchEncoderTest, EventStreamOpensANewBatchWhenOneIsFull) {
  std::string out;
  EventStreamEncoder stream(/*gen=*/1, /*thread=*/0, &out);
  const std::string data(kMaxRecordDataSize, 'x');
  ASSERT_TRUE(stream.Append(EventType::kExpMark, 10, {}, data).ok());
  EXPECT_EQ(stream.batches_written(), 0);
  ASSERT_TRUE(stream.Append(EventType::kExpMark, 20, {}, data).ok());
  EXPECT_EQ(stream.batches_written(), 1);  // the first batch was closed
  ASSERT_TRUE(stream.Append(EventType::kExpMark, 30, {}, data).ok());
  EXPECT_EQ(stream.batches_written(), 2);
  stream.Flush();
  EXPECT_EQ(stream.batches_written(), 3);
  const std::vector<RawEvent> frames = DecodeFrames(out);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].Arg("base_time"), 9u);  // first batch: base = first time - 1
  EXPECT_EQ(frames[1].Arg("base_time"), 10u);
  EXPECT_EQ(frames[2].Arg("base_time"), 20u);
}

TEST(BatchEncoderTest, TimesThatDoNotIncreaseAreBumped) {
  EventBatchEncoder batch(1, 1, 50);
  const uint64_t args[] = {1, 0};
  ASSERT_TRUE(*batch.Append(EventType::kDataInt, 50, args));  // at the base time
  ASSERT_TRUE(*batch.Append(EventType::kDataInt, 40, args));  // backwards
  ASSERT_TRUE(*batch.Append(EventType::kDataInt, 60, args));
  EXPECT_EQ(batch.last_time(), 60u);
  std::string out;
  batch.AppendTo(&out);
  const std::vector<RawEvent> frames = DecodeFrames(out);
  ASSERT_EQ(frames.size(), 1u);
  RecordDecoder body(frames[0].body, frames[0].body_offset, Scope::kEventBody);
  RawEvent event;
  std::vector<uint64_t> dts;
  while (*body.Next(&event)) dts.push_back(event.args[0]);
  EXPECT_EQ(dts, (std::vector<uint64_t>{1, 1, 8}));
}

TEST(BatchEncoderTest, EventBatchRejectsUntimedTypes) {
  EventBatchEncoder batch(1, 1, 0);
  const uint64_t args[] = {1};
  EXPECT_EQ(batch.Append(EventType::kString, 1, args).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(batch.Append(EventType::kNone, 1, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(batch.Append(static_cast<EventType>(60), 1, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(batch.Append(EventType::kRegionEnter, 1, args).status().code(),
            absl::StatusCode::kInvalidArgument);  // wrong argument count
  EXPECT_TRUE(batch.empty());
}

// Reassembles the strings of string batches: id -> value.
std::map<uint64_t, std::string> ReadStrings(absl::string_view out, int* string_parts,
                                            int* strings) {
  std::map<uint64_t, std::string> values;
  std::map<uint64_t, std::string> pending;
  for (const RawEvent& frame : DecodeFrames(out)) {
    EXPECT_EQ(frame.type, static_cast<uint8_t>(EventType::kStringBatch));
    EXPECT_LE(frame.size, kMaxBatchSize);
    EXPECT_EQ(HeaderSize(frame) + frame.body.size(), frame.size);
    RecordDecoder body(frame.body, frame.body_offset, Scope::kStringBody);
    RawEvent record;
    while (true) {
      absl::StatusOr<bool> more = body.Next(&record);
      EXPECT_TRUE(more.ok()) << more.status();
      if (!more.ok() || !*more) break;
      EXPECT_LE(record.data.size(), kMaxRecordDataSize);
      const uint64_t id = record.Arg("id");
      std::string& value = pending[id];
      value.append(record.data.data(), record.data.size());
      if (record.type == static_cast<uint8_t>(EventType::kStringPart)) {
        EXPECT_EQ(record.data.size(), kMaxRecordDataSize);
        ++*string_parts;
      } else {
        EXPECT_EQ(record.type, static_cast<uint8_t>(EventType::kString));
        EXPECT_EQ(values.count(id), 0u);
        values[id] = std::move(value);
        pending.erase(id);
        ++*strings;
      }
    }
  }
  EXPECT_TRUE(pending.empty()) << "string_part without a final string record";
  return values;
}

TEST(BatchEncoderTest, LongStringsAreSplitIntoParts) {
  std::mt19937_64 random(11);
  std::string mib(1 << 20, '\0');
  for (char& c : mib) c = static_cast<char>(random());
  std::string kib100(100 * 1024, '\0');
  for (char& c : kib100) c = static_cast<char>(random());
  const std::string exact(2 * kMaxRecordDataSize, 'e');

  std::string out;
  TableStreamEncoder strings(EventType::kStringBatch, /*gen=*/2, &out);
  ASSERT_TRUE(strings.AppendString(1, "short").ok());
  ASSERT_TRUE(strings.AppendString(2, mib).ok());
  ASSERT_TRUE(strings.AppendString(3, "").ok());
  ASSERT_TRUE(strings.AppendString(4, kib100).ok());
  ASSERT_TRUE(strings.AppendString(5, exact).ok());
  strings.Flush();

  int parts = 0;
  int finals = 0;
  const std::map<uint64_t, std::string> values = ReadStrings(out, &parts, &finals);
  ASSERT_EQ(values.size(), 5u);
  EXPECT_EQ(values.at(1), "short");
  EXPECT_TRUE(values.at(2) == mib);
  EXPECT_EQ(values.at(3), "");
  EXPECT_TRUE(values.at(4) == kib100);
  EXPECT_TRUE(values.at(5) == exact);
  EXPECT_EQ(finals, 5);
  // 1 MiB = 31 parts + a final 32 KiB string; 100 KiB = 3 parts + 4 KiB; 64 KiB = 1 + 1.
  EXPECT_EQ(parts, 31 + 3 + 1);
}

TEST(BatchEncoderTest, StringsOverTheLimitAreRejected) {
  std::string out;
  TableStreamEncoder strings(EventType::kStringBatch, 1, &out);
  const std::string too_long(kMaxStringSize + 1, 's');
  EXPECT_EQ(strings.AppendString(1, too_long).code(), absl::StatusCode::kInvalidArgument);
  strings.Flush();
  EXPECT_TRUE(out.empty());
  // Exactly the limit is accepted.
  ASSERT_TRUE(strings.AppendString(1, absl::string_view(too_long).substr(0, kMaxStringSize)).ok());
  strings.Flush();
  int parts = 0;
  int finals = 0;
  const auto values = ReadStrings(out, &parts, &finals);
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values.at(1).size(), kMaxStringSize);
}

TEST(BatchEncoderTest, TableRecordsMustMatchTheBatchKind) {
  std::string out;
  TableStreamEncoder sites(EventType::kSiteBatch, 1, &out);
  const uint64_t string_args[] = {1};
  EXPECT_EQ(sites.Append(EventType::kString, string_args, "x").code(),
            absl::StatusCode::kInvalidArgument);
  TableStreamEncoder stacks(EventType::kStackBatch, 1, &out);
  const uint64_t site_args[] = {1, 0, 0, 0, 0, 0};
  EXPECT_EQ(stacks.Append(EventType::kSite, site_args).code(), absl::StatusCode::kInvalidArgument);
  TableStreamEncoder strings(EventType::kStringBatch, 1, &out);
  EXPECT_EQ(strings.Append(EventType::kSite, site_args).code(), absl::StatusCode::kInvalidArgument);
  sites.Flush();
  stacks.Flush();
  strings.Flush();
  EXPECT_TRUE(out.empty());
}

TEST(BatchEncoderTest, ManyTableRecordsRollBatches) {
  std::string out;
  TableStreamEncoder stacks(EventType::kStackBatch, 5, &out);
  std::vector<StackFrame> frames(kMaxFramesPerStack);
  for (size_t i = 0; i < frames.size(); ++i) {
    frames[i] = {UINT64_MAX - i, i + 1, i + 2, i * 1000};
  }
  for (uint64_t id = 1; id <= 200; ++id) {
    const uint64_t args[] = {id, frames.size()};
    ASSERT_TRUE(stacks.Append(EventType::kStack, args, {}, frames).ok());
  }
  stacks.Flush();
  uint64_t next_id = 1;
  const std::vector<RawEvent> batches = DecodeFrames(out);
  EXPECT_GT(batches.size(), 1u);
  for (const RawEvent& batch : batches) {
    EXPECT_EQ(batch.type, static_cast<uint8_t>(EventType::kStackBatch));
    EXPECT_LE(batch.size, kMaxBatchSize);
    EXPECT_EQ(batch.Arg("gen"), 5u);
    RecordDecoder body(batch.body, batch.body_offset, Scope::kStackBody);
    RawEvent record;
    while (*body.Next(&record)) {
      EXPECT_EQ(record.Arg("id"), next_id++);
      EXPECT_EQ(record.frames, frames);
    }
  }
  EXPECT_EQ(next_id, 201u);
}

}  // namespace
}  // namespace tracewire::format
