#include "tools/go_import/go_generation.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/go_import/go_trace_spec.h"

namespace tracewire::go_trace {
namespace {

constexpr absl::string_view kHeaderPrefix = "go 1.";
constexpr size_t kHeaderSize = 16;

absl::Status Damaged(uint64_t offset, absl::string_view what) {
  return absl::DataLossError(absl::StrCat("byte ", offset, ": ", what));
}

// A batch's header and bytes, before it is sorted into the generation.
struct RawBatch {
  bool experimental = false;
  uint64_t gen = 0;
  int64_t m = 0;
  uint64_t time = 0;
  absl::string_view data;
  uint64_t offset = 0;  // of the batch's first byte
  uint64_t data_offset = 0;
};

// Reads a batch's header at data[*pos]; *pos is then where its data starts. `base` is the
// byte offset of data[0] in the trace.
absl::StatusOr<RawBatch> ReadBatchHeader(absl::string_view data, size_t* pos, int minor,
                                         uint64_t base, uint64_t* size) {
  RawBatch b;
  b.offset = base + *pos;
  const uint8_t type = static_cast<uint8_t>(data[*pos]);
  const bool experimental = minor >= 23 && type == kEvExperimentalBatch;
  if (type != kEvEventBatch && !experimental) {
    return Damaged(base + *pos, absl::StrFormat("expected a batch, found event type %d", type));
  }
  size_t p = *pos + 1;
  if (experimental) {
    if (p >= data.size()) return Damaged(base + p, "truncated experimental batch header");
    ++p;  // the experiment's number
    b.experimental = true;
  }
  uint64_t m = 0;
  if (!ReadUvarint(data, &p, &b.gen)) {
    return Damaged(base + p, "truncated or invalid batch generation");
  }
  if (!ReadUvarint(data, &p, &m)) return Damaged(base + p, "truncated or invalid batch M ID");
  if (!ReadUvarint(data, &p, &b.time)) {
    return Damaged(base + p, "truncated or invalid batch timestamp");
  }
  if (!ReadUvarint(data, &p, size)) return Damaged(base + p, "truncated or invalid batch size");
  if (*size > kGoMaxBatchSize) {
    return Damaged(base + p,
                   absl::StrFormat("invalid batch size %d, maximum is %d", *size, kGoMaxBatchSize));
  }
  b.m = static_cast<int64_t>(m);
  b.data_offset = base + p;
  *pos = p;
  return b;
}

absl::StatusOr<RawBatch> ReadBatch(absl::string_view data, size_t* pos, int minor, uint64_t base) {
  size_t p = *pos;
  uint64_t size = 0;
  absl::StatusOr<RawBatch> b = ReadBatchHeader(data, &p, minor, base, &size);
  if (!b.ok()) return b;
  if (data.size() - p < size) {
    return Damaged(base + p,
                   absl::StrFormat("truncated batch: %d of its %d bytes", data.size() - p, size));
  }
  b->data = data.substr(p, size);
  *pos = p + size;
  return b;
}

absl::Status AddStrings(GoGeneration* g, const RawBatch& b) {
  size_t p = 1;
  const absl::string_view d = b.data;
  while (p < d.size()) {
    const uint64_t at = b.data_offset + p;
    if (static_cast<uint8_t>(d[p]) != kEvString) {
      return Damaged(at, absl::StrFormat("expected a string, found event type %d",
                                         static_cast<uint8_t>(d[p])));
    }
    ++p;
    uint64_t id = 0, len = 0;
    if (!ReadUvarint(d, &p, &id) || !ReadUvarint(d, &p, &len)) {
      return Damaged(at, "truncated string record");
    }
    if (len > kGoMaxStringSize) {
      return Damaged(
          at, absl::StrFormat("invalid string size %d, maximum is %d", len, kGoMaxStringSize));
    }
    if (d.size() - p < len) return Damaged(at, "truncated string");
    if (id == 0 || !g->strings.try_emplace(id, d.substr(p, len)).second) {
      return Damaged(at, absl::StrFormat("string ID %d defined twice", id));
    }
    p += len;
  }
  return absl::OkStatus();
}

absl::Status AddStacks(GoGeneration* g, const RawBatch& b) {
  size_t p = 1;
  const absl::string_view d = b.data;
  while (p < d.size()) {
    const uint64_t at = b.data_offset + p;
    if (static_cast<uint8_t>(d[p]) != kEvStack) {
      return Damaged(
          at, absl::StrFormat("expected a stack, found event type %d", static_cast<uint8_t>(d[p])));
    }
    ++p;
    uint64_t id = 0, n = 0;
    if (!ReadUvarint(d, &p, &id) || !ReadUvarint(d, &p, &n)) {
      return Damaged(at, "truncated stack record");
    }
    if (n > kGoMaxFramesPerStack) {
      return Damaged(
          at, absl::StrFormat("invalid stack size %d, maximum is %d", n, kGoMaxFramesPerStack));
    }
    std::vector<uint64_t> pcs;
    pcs.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
      GoFrame f;
      if (!ReadUvarint(d, &p, &f.pc) || !ReadUvarint(d, &p, &f.func) ||
          !ReadUvarint(d, &p, &f.file) || !ReadUvarint(d, &p, &f.line)) {
        return Damaged(at, absl::StrFormat("truncated frame %d of stack %d", i + 1, id));
      }
      pcs.push_back(f.pc);
      g->frames.try_emplace(f.pc, f);
    }
    if (id == 0 || !g->stacks.try_emplace(id, std::move(pcs)).second) {
      return Damaged(at, absl::StrFormat("stack ID %d defined twice", id));
    }
  }
  return absl::OkStatus();
}

absl::Status AddCpuSamples(GoGeneration* g, const RawBatch& b) {
  size_t p = 1;
  const absl::string_view d = b.data;
  while (p < d.size()) {
    const uint64_t at = b.data_offset + p;
    if (static_cast<uint8_t>(d[p]) != kEvCPUSample) {
      return Damaged(at, absl::StrFormat("expected a CPU sample, found event type %d",
                                         static_cast<uint8_t>(d[p])));
    }
    ++p;
    uint64_t v[5];
    for (uint64_t& x : v) {
      if (!ReadUvarint(d, &p, &x)) return Damaged(at, "truncated CPU sample");
    }
    GoCpuSample s;
    s.time = static_cast<int64_t>(v[0]);  // ticks until the frequency is known
    s.m = static_cast<int64_t>(v[1]);
    s.p = static_cast<int64_t>(v[2]);
    s.g = v[3] == 0 ? -1 : static_cast<int64_t>(v[3]);
    s.stack = v[4];
    g->cpu_samples.push_back(s);
  }
  return absl::OkStatus();
}

absl::Status AddBatch(GoGeneration* g, const RawBatch& b) {
  g->bytes += b.data.size();
  if (b.experimental) {
    ++g->experimental_batches;
    return absl::OkStatus();
  }
  const uint8_t first = b.data.empty() ? 0 : static_cast<uint8_t>(b.data[0]);
  switch (first) {
    case kEvStrings:
      return AddStrings(g, b);
    case kEvStacks:
      return AddStacks(g, b);
    case kEvCPUSamples:
      return AddCpuSamples(g, b);
    case kEvFrequency: {
      size_t p = 1;
      uint64_t freq = 0;
      if (!ReadUvarint(b.data, &p, &freq)) return Damaged(b.data_offset, "truncated frequency");
      if (g->ns_per_tick != 0) return Damaged(b.offset, "a second frequency record");
      // Go: frequency(1.0 / (float64(f) / 1e9)).
      g->ns_per_tick = 1.0 / (static_cast<double>(freq) / 1e9);
      if (!(g->ns_per_tick > 0) || g->ns_per_tick > 1e12) {
        return Damaged(b.data_offset, absl::StrFormat("invalid frequency %d", freq));
      }
      return absl::OkStatus();
    }
    default:
      g->batches[b.m].push_back(GoBatch{b.time, b.data, b.data_offset});
      return absl::OkStatus();
  }
}

absl::Status Finish(GoGeneration* g) {
  if (g->ns_per_tick == 0) {
    return absl::DataLossError(absl::StrCat("generation ", g->gen, ": no frequency record"));
  }
  for (const auto& [pc, frame] : g->frames) {
    if (g->String(frame.func) == nullptr || g->String(frame.file) == nullptr) {
      return absl::DataLossError(
          absl::StrFormat("generation %d: the frame at pc 0x%x names an unknown string (%d or %d)",
                          g->gen, pc, frame.func, frame.file));
    }
  }
  for (GoCpuSample& s : g->cpu_samples) s.time = g->Nanos(static_cast<uint64_t>(s.time));
  std::stable_sort(g->cpu_samples.begin(), g->cpu_samples.end(),
                   [](const GoCpuSample& a, const GoCpuSample& b) { return a.time < b.time; });
  return absl::OkStatus();
}

}  // namespace

bool ReadUvarint(absl::string_view data, size_t* pos, uint64_t* value) {
  uint64_t x = 0;
  for (int i = 0, shift = 0; i < 10; ++i, shift += 7) {
    if (*pos + i >= data.size()) return false;
    const uint8_t byte = static_cast<uint8_t>(data[*pos + i]);
    if (byte < 0x80) {
      if (i == 9 && byte > 1) return false;  // overflow
      *value = x | static_cast<uint64_t>(byte) << shift;
      *pos += i + 1;
      return true;
    }
    x |= static_cast<uint64_t>(byte & 0x7f) << shift;
  }
  return false;
}

bool LooksLikeGoTrace(absl::string_view data) {
  return data.substr(0, kHeaderPrefix.size()) == kHeaderPrefix;
}

absl::StatusOr<int> ReadGoHeader(absl::string_view data, size_t* header_size) {
  if (!LooksLikeGoTrace(data)) {
    return absl::InvalidArgumentError("not a Go execution trace (no \"go 1.N trace\" header)");
  }
  size_t p = kHeaderPrefix.size();
  int minor = 0;
  while (p < data.size() && p < 8 && data[p] >= '0' && data[p] <= '9') {
    minor = minor * 10 + (data[p] - '0');
    ++p;
  }
  if (p == kHeaderPrefix.size() || data.substr(p, 6) != " trace") {
    return absl::InvalidArgumentError("not a Go execution trace (bad \"go 1.N trace\" header)");
  }
  if (minor != 22 && minor != 23) {
    return absl::UnimplementedError(absl::StrFormat(
        "Go execution trace version go 1.%d is not supported (tracewire reads go 1.22 and "
        "go 1.23 traces)",
        minor));
  }
  if (data.size() < kHeaderSize ||
      data.substr(p + 6, kHeaderSize - p - 6) != absl::string_view("\0\0\0", kHeaderSize - p - 6)) {
    return absl::DataLossError("truncated or invalid Go trace header");
  }
  *header_size = kHeaderSize;
  return minor;
}

int64_t GoGeneration::Nanos(uint64_t ticks) const {
  const double ns = static_cast<double>(ticks) * ns_per_tick;
  // Go converts with int64(float64); out of range values are clamped here.
  if (!(ns < 9.2e18)) return std::numeric_limits<int64_t>::max() / 2;
  return static_cast<int64_t>(ns);
}

const std::string* GoGeneration::String(uint64_t id) const {
  static const std::string* const kEmpty = new std::string();
  if (id == 0) return kEmpty;
  auto it = strings.find(id);
  return it == strings.end() ? nullptr : &it->second;
}

absl::StatusOr<GoBatchExtent> PeekGoBatch(absl::string_view data, size_t pos, int minor) {
  uint64_t size = 0;
  absl::StatusOr<RawBatch> b = ReadBatchHeader(data, &pos, minor, 0, &size);
  if (!b.ok()) return b.status();
  return GoBatchExtent{b->gen, pos + size};
}

absl::StatusOr<GoGenerationRead> ReadGoGeneration(absl::string_view data, size_t* pos, int minor,
                                                  uint64_t base) {
  GoGenerationRead read;
  if (*pos >= data.size()) return read;
  GoGeneration g;
  while (*pos < data.size()) {
    size_t p = *pos;
    absl::StatusOr<RawBatch> batch = ReadBatch(data, &p, minor, base);
    if (!batch.ok()) {
      if (g.gen == 0) return batch.status();
      read.trailing_error = batch.status();
      *pos = data.size();
      break;
    }
    if (batch->gen == 0) return Damaged(batch->offset, "invalid generation number 0");
    if (g.gen == 0) g.gen = batch->gen;
    if (batch->gen == g.gen + 1) break;  // the next generation's first batch
    if (batch->gen != g.gen) {
      return Damaged(batch->offset,
                     absl::StrFormat("generations out of order: a batch of generation %d in "
                                     "generation %d",
                                     batch->gen, g.gen));
    }
    *pos = p;
    if (absl::Status s = AddBatch(&g, *batch); !s.ok()) {
      return absl::DataLossError(absl::StrCat("generation ", g.gen, ": ", s.message()));
    }
  }
  if (absl::Status s = Finish(&g); !s.ok()) {
    // A generation cut short lacks what its missing batches held: the cut is the cause.
    if (!read.trailing_error.ok()) {
      return absl::DataLossError(
          absl::StrCat("generation ", g.gen, ": ", read.trailing_error.message()));
    }
    return s;
  }
  read.generation = std::move(g);
  return read;
}

}  // namespace tracewire::go_trace
