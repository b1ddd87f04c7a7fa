// Encode -> decode round trips of every row of the EventSpec table with random arguments.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "format/batch_encoder.h"
#include "format/constants.h"
#include "format/event_spec.h"
#include "format/raw_decoder.h"
#include "format/record_encoder.h"
#include "gtest/gtest.h"

namespace tracewire::format {
namespace {

class Random {
 public:
  explicit Random(uint64_t seed) : engine_(seed) {}

  // A value across the whole 64-bit range, with the edges and small values well represented.
  uint64_t Value() {
    switch (engine_() % 8) {
      case 0:
        return kEdges[engine_() % std::size(kEdges)];
      case 1:
        return engine_() % 128;
      case 2:
        return engine_() % 65536;
      case 3:
        return engine_() >> (engine_() % 64);
      default:
        return engine_();
    }
  }
  uint64_t Below(uint64_t n) { return engine_() % n; }
  std::string Data(size_t max_size) {
    size_t size;
    switch (engine_() % 4) {
      case 0:
        size = 0;
        break;
      case 1:
        size = max_size;
        break;
      default:
        size = engine_() % (max_size + 1);
    }
    std::string data(size, '\0');
    for (char& c : data) c = static_cast<char>(engine_());
    return data;
  }

 private:
  static constexpr uint64_t kEdges[] = {
      0, 1, 127, 128, 16383, 16384, UINT32_MAX, uint64_t{1} << 63, UINT64_MAX, UINT64_MAX - 1};
  std::mt19937_64 engine_;
};

std::vector<const EventSpec*> Rows(bool timed) {
  std::vector<const EventSpec*> rows;
  for (const EventSpec& spec : AllSpecs()) {
    if (spec.timed == timed) rows.push_back(&spec);
  }
  return rows;
}

struct Expected {
  EventType type;
  uint64_t time;
  std::vector<uint64_t> args;  // without dt
  std::string data;
};

// Every timed row, many times over, through EventStreamEncoder; decoded args and data
// must equal the input and dt must add up to the absolute times.
TEST(RoundTripTest, EveryTimedEventThroughEventBatches) {
  Random random(0x7261636577697265);
  const std::vector<const EventSpec*> rows = Rows(/*timed=*/true);
  ASSERT_GE(rows.size(), 30u);
  std::vector<Expected> expected;
  std::string out;
  EventStreamEncoder stream(/*gen=*/3, /*thread=*/UINT64_MAX - 5, &out);
  uint64_t time = uint64_t{1} << 40;
  for (int round = 0; round < 40; ++round) {
    for (const EventSpec* spec : rows) {
      Expected e{spec->type, time, {}, {}};
      for (int i = 1; i < spec->num_args; ++i) e.args.push_back(random.Value());
      if (spec->has_data) e.data = random.Data(spec->max_data);
      // Gaps from 1 tick to 2^40 ticks (varint dt of 1 to 6 bytes).
      time += 1 + (random.Below(4) == 0 ? random.Below(uint64_t{1} << 40) : random.Below(200));
      ASSERT_TRUE(stream.Append(e.type, e.time, e.args, e.data).ok()) << spec->name;
      expected.push_back(std::move(e));
    }
  }
  // Unknown experimental types travel with the generic layout (dt + data).
  for (uint8_t type : {129, 200, 255}) {
    Expected e{static_cast<EventType>(type), time++, {}, random.Data(kMaxRecordDataSize)};
    ASSERT_TRUE(stream.Append(e.type, e.time, {}, e.data).ok());
    expected.push_back(std::move(e));
  }
  stream.Flush();
  EXPECT_GT(stream.batches_written(), 1);

  size_t next = 0;
  RecordDecoder frames(out, 0, Scope::kFrame);
  RawEvent batch;
  while (true) {
    absl::StatusOr<bool> more = frames.Next(&batch);
    ASSERT_TRUE(more.ok()) << more.status();
    if (!*more) break;
    ASSERT_EQ(batch.type, static_cast<uint8_t>(EventType::kEventBatch));
    EXPECT_EQ(batch.Arg("gen"), 3u);
    EXPECT_EQ(batch.Arg("thread"), UINT64_MAX - 5);
    EXPECT_LE(batch.size, kMaxBatchSize);
    uint64_t t = batch.Arg("base_time");
    RecordDecoder body(batch.body, batch.body_offset, Scope::kEventBody);
    RawEvent event;
    while (true) {
      absl::StatusOr<bool> got = body.Next(&event);
      ASSERT_TRUE(got.ok()) << got.status();
      if (!*got) break;
      ASSERT_LT(next, expected.size());
      const Expected& e = expected[next++];
      ASSERT_EQ(event.type, static_cast<uint8_t>(e.type)) << "event " << next - 1;
      ASSERT_GE(event.num_args, 1);
      EXPECT_GE(event.args[0], 1u) << "dt >= 1";
      t += event.args[0];
      EXPECT_EQ(t, e.time);
      EXPECT_EQ(std::vector<uint64_t>(event.Args().begin() + 1, event.Args().end()), e.args);
      EXPECT_EQ(std::string(event.data), e.data);
      EXPECT_TRUE(event.frames.empty());
      if (IsExperimentalType(event.type) && LookupSpec(event.type) == nullptr) {
        EXPECT_EQ(event.spec, nullptr);
        EXPECT_EQ(event.Name(), "experimental_" + std::to_string(event.type));
      } else {
        EXPECT_EQ(event.spec, LookupSpec(event.type));
      }
    }
    EXPECT_TRUE(body.AtEnd());
  }
  EXPECT_TRUE(frames.AtEnd());
  EXPECT_EQ(next, expected.size());
}

// Every non-timed row (frames and table records) through AppendRecord, in its own scope.
TEST(RoundTripTest, EveryTableAndFrameRecordThroughAppendRecord) {
  Random random(42);
  for (const EventSpec* spec : Rows(/*timed=*/false)) {
    SCOPED_TRACE(std::string(spec->name));
    for (int round = 0; round < 200; ++round) {
      std::vector<uint64_t> args;
      for (int i = 0; i < spec->num_args; ++i) args.push_back(random.Value());
      std::vector<StackFrame> frames;
      if (spec->is_stack) {
        const size_t n = round == 0   ? 0
                         : round == 1 ? kMaxFramesPerStack
                                      : random.Below(kMaxFramesPerStack + 1);
        for (size_t i = 0; i < n; ++i) {
          frames.push_back({random.Value(), random.Value(), random.Value(), random.Value()});
        }
        args[spec->ArgIndex("nframes")] = n;
      }
      std::string data;
      if (spec->has_data) {
        // Frames may carry up to max_data; keep the test's memory small for the large ones.
        data = random.Data(std::min<size_t>(spec->max_data, 2 * kMaxBatchSize));
      }
      std::string body;
      if (spec->body != BodyKind::kNone) {
        body = random.Data(1000);
        args[spec->ArgIndex("length")] = body.size();
      }
      std::string out = "xyz";  // records are appended, not written over
      ASSERT_TRUE(AppendRecord(&out, spec->type, args, data, frames).ok());
      EXPECT_EQ(out.size() - 3, RecordSize(spec->type, args, data, frames));
      out.append(body);

      RecordDecoder decoder(absl::string_view(out).substr(3), 3, spec->scope);
      RawEvent event;
      absl::StatusOr<bool> got = decoder.Next(&event);
      ASSERT_TRUE(got.ok()) << got.status();
      ASSERT_TRUE(*got);
      EXPECT_EQ(event.type, static_cast<uint8_t>(spec->type));
      EXPECT_EQ(event.spec, LookupSpec(spec->type));
      EXPECT_EQ(event.offset, 3u);
      EXPECT_EQ(event.size, out.size() - 3);
      EXPECT_EQ(std::vector<uint64_t>(event.Args().begin(), event.Args().end()), args);
      EXPECT_EQ(event.frames, frames);
      EXPECT_EQ(std::string(event.data), data);
      EXPECT_EQ(std::string(event.body), body);
      if (spec->body != BodyKind::kNone) {
        EXPECT_EQ(event.body_offset, out.size() - body.size());
      }
      EXPECT_TRUE(decoder.AtEnd());
      EXPECT_FALSE(*decoder.Next(&event));
    }
  }
}

TEST(RoundTripTest, LargestDataOfEachRowRoundTrips) {
  for (const EventSpec& spec : AllSpecs()) {
    if (!spec.has_data || spec.max_data > kMaxBatchSize) continue;
    SCOPED_TRACE(std::string(spec.name));
    std::vector<uint64_t> args(spec.num_args, 1);
    const std::string data(spec.max_data, 'd');
    std::string out;
    ASSERT_TRUE(AppendRecord(&out, spec.type, args, data).ok());
    RecordDecoder decoder(out, 0, spec.scope);
    RawEvent event;
    ASSERT_TRUE(*decoder.Next(&event));
    EXPECT_EQ(event.data.size(), spec.max_data);
    // One byte more is rejected by the encoder and unchanged output is left behind.
    std::string too_big;
    EXPECT_EQ(AppendRecord(&too_big, spec.type, args, data + "x").code(),
              absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(too_big.empty());
  }
}

TEST(RoundTripTest, AppendRecordRejectsMismatchedInput) {
  std::string out;
  const uint64_t one[] = {1};
  const uint64_t three[] = {1, 2, 3};
  // Wrong argument count.
  EXPECT_EQ(AppendRecord(&out, EventType::kRegionEnter, one).code(),
            absl::StatusCode::kInvalidArgument);
  // Data on a row without a trailer.
  EXPECT_EQ(AppendRecord(&out, EventType::kRegionEnter, three, "x").code(),
            absl::StatusCode::kInvalidArgument);
  // Frames on a row that is not a stack, and nframes that does not match.
  const StackFrame frame{1, 2, 3, 4};
  EXPECT_EQ(AppendRecord(&out, EventType::kRegionEnter, three, {}, {&frame, 1}).code(),
            absl::StatusCode::kInvalidArgument);
  const uint64_t stack_args[] = {1, 2};
  EXPECT_EQ(AppendRecord(&out, EventType::kStack, stack_args, {}, {&frame, 1}).code(),
            absl::StatusCode::kInvalidArgument);
  std::vector<StackFrame> too_many(kMaxFramesPerStack + 1, frame);
  const uint64_t many_args[] = {1, too_many.size()};
  EXPECT_EQ(AppendRecord(&out, EventType::kStack, many_args, {}, too_many).code(),
            absl::StatusCode::kInvalidArgument);
  // Type 0 and unknown non-experimental types.
  EXPECT_EQ(AppendRecord(&out, EventType::kNone, one).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(AppendRecord(&out, static_cast<EventType>(60), one).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace tracewire::format
