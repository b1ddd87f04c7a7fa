// PacketCompressor: the chunks inflate back to the packets, in order, each ends at a packet
// boundary at or after kChunkBytes, and the output is the same whatever pieces the packets
// were handed over in (a parallel decode hands over stripes, a serial one events).
#include "reader/targets/perfetto/packet_compressor.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "reader/targets/perfetto/perfetto_trace.pb.h"

namespace tracewire::targets {
namespace {

namespace pb = ::tracewire::perfetto;

// A serialized Trace.packet field holding a track event named `name`.
std::string Packet(const std::string& name) {
  pb::Trace trace;
  pb::TracePacket* p = trace.add_packet();
  p->set_trusted_packet_sequence_id(1);
  p->set_timestamp(12345);
  p->mutable_track_event()->set_name(name);
  return trace.SerializeAsString();
}

std::string Inflate(const std::string& compressed) {
  std::string out(4 << 20, '\0');
  uLongf size = out.size();
  EXPECT_EQ(uncompress(reinterpret_cast<Bytef*>(out.data()), &size,
                       reinterpret_cast<const Bytef*>(compressed.data()), compressed.size()),
            Z_OK);
  out.resize(size);
  return out;
}

// The output for `packets` handed over `per_piece` packets at a time.
std::string Compressed(const std::vector<std::string>& packets, size_t per_piece) {
  PacketCompressor compressor;
  std::string out;
  for (size_t i = 0; i < packets.size(); i += per_piece) {
    for (size_t j = i; j < std::min(packets.size(), i + per_piece); ++j) {
      compressor.pending()->append(packets[j]);
    }
    compressor.MaybeFlush(&out);
  }
  compressor.Flush(&out);
  return out;
}

TEST(PacketCompressorTest, ChunksInflateToThePacketsWhateverThePieces) {
  std::vector<std::string> packets;
  std::string all;
  for (int i = 0; i < 60000; ++i) {
    packets.push_back(
        Packet(absl::StrCat("region ", i % 97, i % 5 == 0 ? std::string(300, 'x') : "")));
    all += packets.back();
  }
  ASSERT_GT(all.size(), 3 * PacketCompressor::kChunkBytes);
  const std::string out = Compressed(packets, 1);
  EXPECT_EQ(Compressed(packets, 7), out);
  EXPECT_EQ(Compressed(packets, 5000), out);
  EXPECT_EQ(Compressed(packets, packets.size()), out);
  EXPECT_LT(out.size() * 4, all.size());

  pb::Trace trace;
  ASSERT_TRUE(trace.ParseFromString(out));
  ASSERT_GE(trace.packet_size(), 4);
  std::string inflated;
  for (int i = 0; i < trace.packet_size(); ++i) {
    ASSERT_TRUE(trace.packet(i).has_compressed_packets());
    const std::string chunk = Inflate(trace.packet(i).compressed_packets());
    if (i + 1 < trace.packet_size()) {
      EXPECT_GE(chunk.size(), PacketCompressor::kChunkBytes);
      EXPECT_LT(chunk.size(), PacketCompressor::kChunkBytes + 400);  // ends at a boundary
    }
    pb::Trace inner;
    EXPECT_TRUE(inner.ParseFromString(chunk)) << "chunk " << i;
    inflated += chunk;
  }
  EXPECT_EQ(inflated, all);
}

TEST(PacketCompressorTest, NothingPendingWritesNothing) {
  PacketCompressor compressor;
  std::string out;
  compressor.MaybeFlush(&out);
  compressor.Flush(&out);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace tracewire::targets
