#include "tools/go_import/go_event_log.h"

#include <cstring>

namespace tracewire::go_trace {
namespace {

// The byte after the time: the number of arguments written (at most kMaxGoArgs), and
// flags: the extras follow, the M, P or goroutine differs from the previous event's.
constexpr uint8_t kArgCount = 0x07, kExtras = 0x08, kNewM = 0x10, kNewP = 0x20, kNewG = 0x40;

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// The log is written by Add only: its varints are well formed and in bounds.
uint64_t GetVarint(const std::string& data, size_t* pos) {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(data[(*pos)++]);
    v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (byte < 0x80) return v;
  }
}

uint64_t Zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t Unzigzag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

}  // namespace

void GoEventLog::Clear() {
  data_.clear();
  count_ = 0;
  last_ = GoEvent();
}

void GoEventLog::Add(const GoEvent& e) {
  data_.push_back(static_cast<char>(e.type));
  PutVarint(Zigzag(static_cast<int64_t>(static_cast<uint64_t>(e.time) -
                                        static_cast<uint64_t>(last_.time))),
            &data_);
  int args = kMaxGoArgs;
  while (args > 0 && e.args[args - 1] == 0) --args;
  const bool extras = e.extra[0] != 0 || e.extra[1] != 0 || !e.extra_string.empty();
  // The context is mostly the previous event's: only what changed is written.
  const uint8_t flags = (extras ? kExtras : 0) | (e.m != last_.m ? kNewM : 0) |
                        (e.p != last_.p ? kNewP : 0) | (e.g != last_.g ? kNewG : 0);
  data_.push_back(static_cast<char>(args | flags));
  // IDs are >= -1 as Go's parser has them, stored plus one (any value round-trips).
  if (flags & kNewM) PutVarint(static_cast<uint64_t>(e.m) + 1, &data_);
  if (flags & kNewP) PutVarint(static_cast<uint64_t>(e.p) + 1, &data_);
  if (flags & kNewG) PutVarint(static_cast<uint64_t>(e.g) + 1, &data_);
  for (int i = 0; i < args; ++i) PutVarint(e.args[i], &data_);
  if (extras) {
    PutVarint(e.extra[0], &data_);
    PutVarint(e.extra[1], &data_);
    const char* p = e.extra_string.data();
    data_.append(reinterpret_cast<const char*>(&p), sizeof(p));
    PutVarint(e.extra_string.size(), &data_);
  }
  last_ = e;
  ++count_;
}

bool GoEventLog::Cursor::Next(GoEvent* out) {
  const std::string& d = log_->data_;
  if (pos_ >= d.size()) return false;
  GoEvent e;
  e.type = static_cast<uint8_t>(d[pos_++]);
  e.time = static_cast<int64_t>(static_cast<uint64_t>(last_.time) +
                                static_cast<uint64_t>(Unzigzag(GetVarint(d, &pos_))));
  const uint8_t packed = static_cast<uint8_t>(d[pos_++]);
  const int args = packed & kArgCount;
  e.m = packed & kNewM ? static_cast<int64_t>(GetVarint(d, &pos_) - 1) : last_.m;
  e.p = packed & kNewP ? static_cast<int64_t>(GetVarint(d, &pos_) - 1) : last_.p;
  e.g = packed & kNewG ? static_cast<int64_t>(GetVarint(d, &pos_) - 1) : last_.g;
  for (int i = 0; i < args; ++i) e.args[i] = GetVarint(d, &pos_);
  if (packed & kExtras) {
    e.extra[0] = GetVarint(d, &pos_);
    e.extra[1] = GetVarint(d, &pos_);
    const char* p = nullptr;
    std::memcpy(&p, d.data() + pos_, sizeof(p));
    pos_ += sizeof(p);
    e.extra_string = absl::string_view(p, GetVarint(d, &pos_));
  }
  e.table = table_;
  last_ = e;
  *out = e;
  return true;
}

}  // namespace tracewire::go_trace
