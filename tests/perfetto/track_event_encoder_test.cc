// TrackEventEncoder: the bytes it streams parse, with the code protoc generates from the
// repository's schema, into exactly the packets built as messages.
#include "reader/targets/perfetto/track_event_encoder.h"

#include <string>

#include "gtest/gtest.h"
#include "reader/targets/perfetto/perfetto_trace.pb.h"

namespace tracewire::targets {
namespace {

namespace pb = ::tracewire::perfetto;

// The one packet of `bytes` (a serialized Trace), re-serialized by the generated code.
std::string ParsedPacket(const std::string& bytes, int index = 0) {
  pb::Trace trace;
  EXPECT_TRUE(trace.ParseFromString(bytes));
  if (trace.packet_size() <= index) return "";
  return trace.packet(index).SerializeAsString();
}

TEST(TrackEventEncoderTest, SliceBeginWithInternedData) {
  TrackEventEncoder encoder;
  std::string out;
  encoder.Begin(7, pb::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE, 1234, 0);
  encoder.Type(pb::TrackEvent::TYPE_SLICE_BEGIN);
  encoder.NameIid(3);
  encoder.CategoryIid(1);
  encoder.InternName(3, "read_index");
  encoder.InternCategory(1, "index");
  encoder.InternAnnotationName(2, "repo");
  encoder.IntArg(2, -5);  // a negative value: a ten-byte varint
  encoder.End(&out);

  pb::TracePacket expected;
  expected.set_timestamp(1234);
  expected.set_trusted_packet_sequence_id(7);
  expected.set_sequence_flags(pb::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE);
  pb::TrackEvent* event = expected.mutable_track_event();
  event->set_type(pb::TrackEvent::TYPE_SLICE_BEGIN);
  event->set_name_iid(3);
  event->add_category_iids(1);
  pb::DebugAnnotation* repo = event->add_debug_annotations();
  repo->set_name_iid(2);
  repo->set_int_value(-5);
  pb::InternedData* interned = expected.mutable_interned_data();
  pb::EventName* name = interned->add_event_names();
  name->set_iid(3);
  name->set_name("read_index");
  pb::EventCategory* category = interned->add_event_categories();
  category->set_iid(1);
  category->set_name("index");
  pb::DebugAnnotationName* annotation = interned->add_debug_annotation_names();
  annotation->set_iid(2);
  annotation->set_name("repo");
  EXPECT_EQ(ParsedPacket(out), expected.SerializeAsString());
}

TEST(TrackEventEncoderTest, EveryAnnotationKindFlowsAndCounters) {
  TrackEventEncoder encoder;
  std::string out = "";
  const std::string long_text(300, 'x');  // lengths of two varint bytes
  encoder.Begin(1, 2, uint64_t{1} << 62, 1);
  encoder.Type(pb::TrackEvent::TYPE_INSTANT);
  encoder.TrackUuid(uint64_t{1} << 40);
  encoder.NameIid(1);
  encoder.StringArg(1, long_text);
  encoder.UintArg(2, ~uint64_t{0});
  encoder.BoolArg(3, true);
  encoder.JsonArg(4, "{\"a\":[1,2]}");
  encoder.BeginArray(5);
  encoder.ArrayItem("git");
  encoder.ArrayItem("");
  encoder.EndArray();
  encoder.FlowId(9);
  encoder.TerminatingFlowId(10);
  encoder.End(&out);
  encoder.Begin(1, 2, 5, 0);
  encoder.Type(pb::TrackEvent::TYPE_COUNTER);
  encoder.TrackUuid(4);
  encoder.CounterValue(-1);
  encoder.End(&out);

  pb::TracePacket first;
  first.set_timestamp(uint64_t{1} << 62);
  first.set_timestamp_clock_id(1);
  first.set_trusted_packet_sequence_id(1);
  first.set_sequence_flags(2);
  pb::TrackEvent* event = first.mutable_track_event();
  event->set_type(pb::TrackEvent::TYPE_INSTANT);
  event->set_track_uuid(uint64_t{1} << 40);
  event->set_name_iid(1);
  pb::DebugAnnotation* a = event->add_debug_annotations();
  a->set_name_iid(1);
  a->set_string_value(long_text);
  a = event->add_debug_annotations();
  a->set_name_iid(2);
  a->set_uint_value(~uint64_t{0});
  a = event->add_debug_annotations();
  a->set_name_iid(3);
  a->set_bool_value(true);
  a = event->add_debug_annotations();
  a->set_name_iid(4);
  a->set_legacy_json_value("{\"a\":[1,2]}");
  a = event->add_debug_annotations();
  a->set_name_iid(5);
  a->add_array_values()->set_string_value("git");
  a->add_array_values()->set_string_value("");
  event->add_flow_ids(9);
  event->add_terminating_flow_ids(10);
  EXPECT_EQ(ParsedPacket(out, 0), first.SerializeAsString());

  pb::TracePacket second;
  second.set_timestamp(5);
  second.set_trusted_packet_sequence_id(1);
  second.set_sequence_flags(2);
  second.mutable_track_event()->set_type(pb::TrackEvent::TYPE_COUNTER);
  second.mutable_track_event()->set_track_uuid(4);
  second.mutable_track_event()->set_counter_value(-1);
  EXPECT_EQ(ParsedPacket(out, 1), second.SerializeAsString());
}

TEST(TrackEventEncoderTest, AppendsToWhatTheOutputHolds) {
  TrackEventEncoder encoder;
  std::string out;
  for (int i = 0; i < 1000; ++i) {
    encoder.Begin(1, 2, static_cast<uint64_t>(i), 0);
    encoder.Type(pb::TrackEvent::TYPE_SLICE_END);
    encoder.End(&out);
  }
  pb::Trace trace;
  ASSERT_TRUE(trace.ParseFromString(out));
  ASSERT_EQ(trace.packet_size(), 1000);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(trace.packet(i).timestamp(), static_cast<uint64_t>(i));
    EXPECT_EQ(trace.packet(i).track_event().type(), pb::TrackEvent::TYPE_SLICE_END);
  }
}

}  // namespace
}  // namespace tracewire::targets
