#include "tests/bench/synthetic_trace.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "absl/strings/str_cat.h"
#include "format/file_header.h"
#include "format/record_encoder.h"
#include "format/varint.h"

namespace tracewire::bench {

using format::EventType;

SyntheticTrace::SyntheticTrace(int threads, uint64_t events_per_generation, bool bursty)
    : threads_(threads), events_per_thread_(events_per_generation / threads) {
  format::GenerationEncoder ids(1);
  Intern(ids);
  std::mt19937 rng(42);
  for (int t = 0; t < threads_; ++t) {
    std::vector<Body>& bodies = bodies_.emplace_back();
    Body* body = &bodies.emplace_back();
    uint64_t events = 0;
    Append(body, EventType::kThreadStatus, {1, name_ids_[t], 1});
    uint64_t i = 0;
    while (events < events_per_thread_) {
      if (body->bytes.size() > 60000) body = &bodies.emplace_back();
      auto dt = [&] { return 1 + rng() % 100; };
      const uint64_t region = region_sites_[i % region_sites_.size()];
      const uint64_t pause = bursty && rng() % 8 == 0 ? 20000 + rng() % 20000 : 0;
      Append(body, EventType::kRegionEnter, {dt() + pause, region, 0});
      Append(body, EventType::kDataInt, {dt(), int_site_, format::ZigzagEncode(i % 5000)});
      Append(body, EventType::kData, {dt(), str_site_, value_id_});
      Append(body, EventType::kDataInt, {dt(), int_site_, format::ZigzagEncode(-7)});
      Append(body, EventType::kRegionLeave, {dt(), region, 0});
      events += 5;
      ++i;
    }
    for (const Body& b : bodies) events_ += b.events;
  }
  uint64_t max_thread = 0;
  for (const auto& bodies : bodies_) {
    uint64_t total = 0;
    for (const Body& b : bodies) total += b.duration;
    max_thread = std::max(max_thread, total);
  }
  span_ = max_thread + 1000;
}

void SyntheticTrace::AppendGeneration(uint64_t gen, std::string* out) const {
  format::GenerationEncoder enc(gen);
  Intern(enc);
  const uint64_t start = 1000 + (gen - 1) * span_;
  format::ClockSync sync;
  sync.trace_time = start;
  sync.mono_ns = start;
  sync.wall_sec = 1767225600 + start / 1000000000;
  sync.wall_nsec = start % 1000000000;
  enc.SetClockSync(sync);
  format::ProcessInfo info;
  info.sid = "20260101T000000.000000Z-H00000000-P00000001";
  info.pid = 1;
  info.start_time = 1;
  info.name = "bench";
  enc.SetProcessInfo(info);
  std::string batches;
  for (int t = 0; t < threads_; ++t) {
    uint64_t base = start + t;
    for (const Body& b : bodies_[t]) {
      batches.push_back(static_cast<char>(EventType::kEventBatch));
      format::AppendUvarint(&batches, gen);
      format::AppendUvarint(&batches, t);
      format::AppendUvarint(&batches, base);
      format::AppendUvarint(&batches, b.bytes.size());
      batches += b.bytes;
      base += b.duration;
    }
  }
  enc.AddEncodedBatches(batches);
  if (!enc.Finish(out).ok()) std::abort();
}

uint64_t SyntheticTrace::WriteFile(const std::string& path, uint64_t min_events,
                                   uint64_t min_bytes) const {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  std::string buf = format::EncodeFileHeader(format::kFormatVersion);
  uint64_t events = 0, bytes = 0;
  for (uint64_t gen = 1; events < min_events || bytes < min_bytes; ++gen) {
    AppendGeneration(gen, &buf);
    if (std::fwrite(buf.data(), 1, buf.size(), f) != buf.size()) std::abort();
    bytes += buf.size();
    buf.clear();
    events += events_;
  }
  if (std::fclose(f) != 0) std::abort();
  return events;
}

void SyntheticTrace::Intern(format::GenerationEncoder& enc) const {
  name_ids_.clear();
  for (int t = 0; t < threads_; ++t) {
    name_ids_.push_back(enc.String(t == 0 ? "main" : absl::StrCat("th", t, ":worker")));
  }
  value_id_ = enc.String("some value");
  region_sites_.clear();
  for (const char* label : {"read_index", "preload", "scan", "refresh"}) {
    format::Site site;
    site.file = "bench.c";
    site.line = 10;
    site.category = "bench";
    site.label = label;
    site.repo = 2;
    region_sites_.push_back(enc.InternSite(site));
  }
  format::Site data_site;
  data_site.file = "bench.c";
  data_site.line = 20;
  data_site.category = "bench";
  data_site.label = "count";
  int_site_ = enc.InternSite(data_site);
  data_site.label = "name";
  str_site_ = enc.InternSite(data_site);
}

void SyntheticTrace::Append(Body* body, EventType type, std::initializer_list<uint64_t> args) {
  const std::vector<uint64_t> all(args);
  if (!format::AppendRecord(&body->bytes, type, all).ok()) std::abort();
  body->duration += all[0];
  ++body->events;
}

}  // namespace tracewire::bench
