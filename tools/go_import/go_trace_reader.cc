#include "tools/go_import/go_trace_reader.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tracewire::go_trace {
namespace {

// The read position in one M's batches, and the event read there.
struct Cursor {
  int64_t m = 0;
  const std::vector<GoBatch>* batches = nullptr;
  size_t batch = 0;
  size_t offset = 0;  // in the batch's data
  int64_t last = 0;   // time of the previous event (0: at a batch start)
  GoEvent ev;
};

// Reads the cursor's next event; false at the end of its batches.
absl::StatusOr<bool> Advance(Cursor* c, const GoGeneration& gen, int minor) {
  while (c->batch < c->batches->size() && (*c->batches)[c->batch].data.size() == c->offset) {
    ++c->batch;
    c->offset = 0;
    c->last = 0;
  }
  if (c->batch == c->batches->size()) return false;
  const GoBatch& b = (*c->batches)[c->batch];
  if (c->last == 0) c->last = gen.Nanos(b.time);
  const uint64_t at = b.offset + c->offset;
  const uint8_t type = static_cast<uint8_t>(b.data[c->offset]);
  const GoEventSpec& spec = GoSpec(type);
  if (!spec.timed || (spec.go123 && minor < 23)) {
    return absl::DataLossError(absl::StrFormat(
        "generation %d, M %d, byte %d: event type %d is not an event of a go 1.%d event batch",
        gen.gen, c->m, at, type, minor));
  }
  size_t p = c->offset + 1;
  uint64_t dt = 0;
  if (!ReadUvarint(b.data, &p, &dt)) {
    return absl::DataLossError(absl::StrFormat("generation %d, M %d, byte %d: %s: bad timestamp",
                                               gen.gen, c->m, at, spec.name));
  }
  GoEvent ev;
  ev.type = type;
  for (int i = 0; i < spec.args; ++i) {
    if (!ReadUvarint(b.data, &p, &ev.args[i])) {
      return absl::DataLossError(
          absl::StrFormat("generation %d, M %d, byte %d: %s: truncated or invalid argument %d",
                          gen.gen, c->m, at, spec.name, i + 1));
    }
  }
  // Go adds the converted delta to the previous time (wrapping, as int64 does in Go).
  ev.time =
      static_cast<int64_t>(static_cast<uint64_t>(gen.Nanos(dt)) + static_cast<uint64_t>(c->last));
  c->last = ev.time;
  c->offset = p;
  c->ev = ev;
  return true;
}

// The IDs of the event's table references exist (Go's validateTableIDs).
absl::Status CheckTableIds(const GoEvent& e, const GoGeneration& gen) {
  if (e.type == kEvSync) return absl::OkStatus();
  const GoEventSpec& spec = e.spec();
  auto stack_ok = [&](uint64_t id) { return gen.HasStack(id); };
  const uint64_t own = e.stack();
  if (!stack_ok(own) ||
      ((e.type == kEvGoCreate || e.type == kEvGoCreateBlocked) && !stack_ok(e.args[1]))) {
    return absl::DataLossError(absl::StrFormat("generation %d: %s at %d ns: unknown stack ID",
                                               gen.gen, spec.name, e.time));
  }
  for (int8_t i : spec.string_args) {
    if (i >= 0 && gen.String(e.args[i]) == nullptr) {
      return absl::DataLossError(absl::StrFormat("generation %d: %s at %d ns: unknown string ID %d",
                                                 gen.gen, spec.name, e.time, e.args[i]));
    }
  }
  return absl::OkStatus();
}

// The frontier: a binary min-heap of cursors by their event's time that, like Go's, moves
// an element only past strictly greater ones, so that on equal times the cursor that just
// advanced stays first (the order Go's parser gives events with equal timestamps).
class Frontier {
 public:
  std::vector<Cursor*>& items() { return heap_; }
  bool empty() const { return heap_.empty(); }
  void Insert(Cursor* c) {
    heap_.push_back(c);
    SiftUp(heap_.size() - 1);
  }
  void Update(size_t i) {
    if (SiftUp(i) != i) return;
    SiftDown(i);
  }
  void Remove(size_t i) {
    for (; i > 0; i = (i - 1) / 2) std::swap(heap_[(i - 1) / 2], heap_[i]);
    std::swap(heap_.front(), heap_.back());
    heap_.pop_back();
    SiftDown(0);
  }

 private:
  size_t SiftUp(size_t i) {
    while (i > 0 && heap_[(i - 1) / 2]->ev.time > heap_[i]->ev.time) {
      std::swap(heap_[(i - 1) / 2], heap_[i]);
      i = (i - 1) / 2;
    }
    return i;
  }
  void SiftDown(size_t i) {
    while (true) {
      size_t m = i;
      for (size_t child : {2 * i + 1, 2 * i + 2}) {
        if (child < heap_.size() && heap_[child]->ev.time < heap_[m]->ev.time) m = child;
      }
      if (m == i) return;
      std::swap(heap_[i], heap_[m]);
      i = m;
    }
  }
  std::vector<Cursor*> heap_;
};

// The whole trace in memory, as a source.
class StringSource : public reader::ByteSource {
 public:
  explicit StringSource(std::string data) : data_(std::move(data)) {}
  absl::StatusOr<size_t> Read(char* buffer, size_t size) override {
    const size_t n = std::min(size, data_.size() - pos_);
    std::memcpy(buffer, data_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  std::optional<uint64_t> Size() const override { return data_.size(); }

 private:
  std::string data_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<GoTraceReader>> GoTraceReader::Open(
    std::unique_ptr<reader::ByteSource> source, GoReaderOptions options) {
  std::unique_ptr<GoTraceReader> r(new GoTraceReader());
  r->source_ = std::move(source);
  r->options_ = options;
  absl::StatusOr<bool> filled = r->Fill(kGoHeaderSize);
  if (!filled.ok()) return filled.status();
  size_t header = 0;
  absl::StatusOr<int> minor = ReadGoHeader(r->chunk_, &header);
  if (!minor.ok()) return minor.status();
  r->minor_ = *minor;
  r->next_ = r->chunk_.substr(header);
  r->chunk_.clear();
  r->chunk_base_ = header;
  return r;
}

absl::StatusOr<std::unique_ptr<GoTraceReader>> GoTraceReader::Open(std::string data,
                                                                   GoReaderOptions options) {
  if (data.size() > options.max_bytes) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "the Go trace has %d bytes, more than the %d accepted", data.size(), options.max_bytes));
  }
  return Open(std::make_unique<StringSource>(std::move(data)), options);
}

absl::StatusOr<bool> GoTraceReader::Fill(size_t n) {
  constexpr size_t kRead = 64 << 10;
  while (chunk_.size() < n && !eof_) {
    const size_t old = chunk_.size();
    chunk_.resize(old + kRead);
    absl::StatusOr<size_t> got = source_->Read(chunk_.data() + old, kRead);
    chunk_.resize(old + (got.ok() ? *got : 0));
    if (!got.ok()) return got.status();
    if (*got == 0) eof_ = true;
    bytes_read_ += *got;
    if (bytes_read_ > options_.max_bytes) {
      return absl::ResourceExhaustedError(
          absl::StrFormat("the Go trace has more than the %d bytes accepted", options_.max_bytes));
    }
  }
  peak_buffered_ = std::max<uint64_t>(peak_buffered_, chunk_.capacity() + next_.capacity());
  return chunk_.size() >= n;
}

absl::Status GoTraceReader::TakeGeneration() {
  chunk_base_ += chunk_.size();
  chunk_.assign(next_);  // each keeps its capacity: chunk_ a generation's, next_ a read's
  next_.clear();
  size_t scan = 0;
  uint64_t first = 0;
  while (true) {
    absl::StatusOr<bool> more = Fill(scan + 1);
    if (!more.ok()) return more.status();
    if (!*more) break;
    if (absl::StatusOr<bool> s = Fill(scan + kGoMaxBatchHeader); !s.ok()) return s.status();
    absl::StatusOr<GoBatchExtent> batch = PeekGoBatch(chunk_, scan, minor_);
    if (!batch.ok()) {  // ReadGoGeneration says what broke
      scan = chunk_.size();
      break;
    }
    if (first == 0) {
      first = batch->gen;
    } else if (batch->gen == first + 1) {
      break;  // the next generation's first batch
    }
    if (absl::StatusOr<bool> s = Fill(batch->end); !s.ok()) return s.status();
    if (chunk_.size() < batch->end) {  // cut short: ReadGoGeneration says so
      scan = chunk_.size();
      break;
    }
    scan = batch->end;
  }
  next_.assign(chunk_, scan, std::string::npos);
  chunk_.resize(scan);
  largest_generation_ = std::max<uint64_t>(largest_generation_, scan);
  peak_buffered_ = std::max<uint64_t>(peak_buffered_, chunk_.capacity() + next_.capacity());
  return absl::OkStatus();
}

absl::StatusOr<bool> GoTraceReader::NextGeneration(std::vector<GoEvent>* events) {
  GoEventLog log;
  absl::StatusOr<bool> more = NextGeneration(&log);
  events->clear();
  if (!more.ok() || !*more) return more;
  events->reserve(log.size());
  GoEventLog::Cursor cursor(log, generation_.get());
  GoEvent e;
  while (cursor.Next(&e)) events->push_back(e);
  return true;
}

absl::StatusOr<bool> GoTraceReader::NextGeneration(GoEventLog* events) {
  while (!done_) {
    events->Clear();
    generation_.reset();  // its bytes are replaced
    if (absl::Status s = TakeGeneration(); !s.ok()) {
      done_ = true;
      return s;
    }
    size_t pos = 0;
    absl::StatusOr<GoGenerationRead> read = ReadGoGeneration(chunk_, &pos, minor_, chunk_base_);
    if (!read.ok()) {
      done_ = true;  // the batches cannot be told apart beyond a damaged one
      if (!options_.salvage) return read.status();
      damage_.push_back(std::string(read.status().message()));
      return false;
    }
    if (!read->generation.has_value()) {
      done_ = true;
      return false;
    }
    generation_ = std::make_unique<GoGeneration>(std::move(*read->generation));
    absl::Status status = OrderGeneration(events);
    if (status.ok() && !read->trailing_error.ok()) {
      status = absl::DataLossError(absl::StrCat("after generation ", generation_->gen, ": ",
                                                read->trailing_error.message()));
      done_ = true;
      // The generation itself may be whole (the damage is in the next one's first batch),
      // but nothing tells: salvage keeps it only if its events were ordered.
      if (options_.salvage) {
        damage_.push_back(std::string(status.message()));
        return true;
      }
    }
    if (status.ok()) return true;
    if (!options_.salvage) return status;
    damage_.push_back(
        absl::StrCat("generation ", generation_->gen, " dropped: ", status.message()));
    if (!read->trailing_error.ok()) {  // nothing can be read beyond the damage
      done_ = true;
      return false;
    }
    // Start again from the next generation's restated statuses.
    ordering_ = std::make_unique<GoOrdering>();
  }
  return false;
}

absl::Status GoTraceReader::OrderGeneration(GoEventLog* events) {
  GoGeneration& gen = *generation_;
  std::vector<Cursor> cursors;
  cursors.reserve(gen.batches.size());
  for (const auto& [m, batches] : gen.batches) {
    Cursor c;
    c.m = m;
    c.batches = &batches;
    absl::StatusOr<bool> ok = Advance(&c, gen, minor_);
    if (!ok.ok()) return ok.status();
    if (*ok) cursors.push_back(std::move(c));
  }
  Frontier frontier;
  for (Cursor& c : cursors) frontier.Insert(&c);
  size_t sample = 0;
  auto deliver = [&](GoEvent ev) -> absl::Status {
    if (absl::Status s = CheckTableIds(ev, gen); !s.ok()) return s;
    if (ev.time <= last_time_) ev.time = last_time_ + 1;
    last_time_ = ev.time;
    events->Add(ev);
    return absl::OkStatus();
  };
  // Advances the event of frontier[i]: false if it must wait.
  auto try_advance = [&](size_t i) -> absl::StatusOr<bool> {
    Cursor* c = frontier.items()[i];
    absl::StatusOr<bool> ok = ordering_->Advance(&c->ev, &gen, c->m);
    if (!ok.ok()) {
      return absl::DataLossError(
          absl::StrCat("generation ", gen.gen, ", M ", c->m, ": ", ok.status().message()));
    }
    if (!*ok) return false;
    absl::StatusOr<bool> more = Advance(c, gen, minor_);
    if (!more.ok()) return more.status();
    if (*more) {
      frontier.Update(i);
    } else {
      frontier.Remove(i);
    }
    return true;
  };
  GoEvent queued;
  while (!frontier.empty() || sample < gen.cpu_samples.size()) {
    if (sample < gen.cpu_samples.size() &&
        (frontier.empty() || gen.cpu_samples[sample].time < frontier.items()[0]->ev.time)) {
      const GoCpuSample& s = gen.cpu_samples[sample++];
      GoEvent ev;
      ev.type = kEvCPUSample;
      ev.time = s.time;
      ev.args[0] = s.stack;
      ev.m = s.m;
      ev.p = s.p;
      ev.g = s.g;
      ev.table = &gen;
      if (absl::Status st = deliver(ev); !st.ok()) return st;
      continue;
    }
    // The earliest event; if it must wait, the others in time order (a sorted array is a
    // heap, as Go's parser relies on).
    absl::StatusOr<bool> advanced = try_advance(0);
    if (!advanced.ok()) return advanced.status();
    if (!*advanced) {
      std::vector<Cursor*>& items = frontier.items();
      std::stable_sort(items.begin(), items.end(),
                       [](const Cursor* a, const Cursor* b) { return a->ev.time < b->ev.time; });
      for (size_t i = 1; i < items.size() && !*advanced; ++i) {
        advanced = try_advance(i);
        if (!advanced.ok()) return advanced.status();
      }
      if (!*advanced) {
        const Cursor* c = items.front();
        return absl::DataLossError(absl::StrFormat(
            "generation %d: no M's next event can happen (earliest: M %d's %s at %d ns): the "
            "trace is inconsistent or events are missing",
            gen.gen, c->m, c->ev.spec().name, c->ev.time));
      }
    }
    while (ordering_->Next(&queued)) {
      if (absl::Status s = deliver(queued); !s.ok()) return s;
    }
  }
  GoEvent sync;
  sync.type = kEvSync;
  sync.time = last_time_;
  sync.table = &gen;
  return deliver(sync);
}

}  // namespace tracewire::go_trace
