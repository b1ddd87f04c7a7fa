// Event meaning on the hot path, inline (included only by the decoder's .cc files): the
// checks, state updates and event fields of the Trace2 rows region_enter, region_leave,
// data, data_int and data_json (ProcessTrace2, CheckTrace2), the common event fields
// (FillCommon) and wall time. The other rows go to ProcessOther (event_meaning.cc).
#ifndef TRACEWIRE_READER_EVENT_MEANING_INL_H_
#define TRACEWIRE_READER_EVENT_MEANING_INL_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "format/event_spec.h"
#include "format/varint.h"
#include "reader/generation_decoder.h"

namespace tracewire::reader {
namespace event_meaning_internal {

// Deepest region stack accepted per thread (garbage must not grow memory without bound).
constexpr size_t kMaxRegionDepth = size_t{1} << 20;

constexpr uint8_t T(format::EventType type) { return static_cast<uint8_t>(type); }

// "00" "01" ... "99".
constexpr struct TwoDigits {
  char pairs[200];
  constexpr TwoDigits() : pairs() {
    for (int i = 0; i < 100; ++i) {
      pairs[2 * i] = static_cast<char>('0' + i / 10);
      pairs[2 * i + 1] = static_cast<char>('0' + i % 10);
    }
  }
} kTwoDigits;

// Writes the decimal form of `value` (what std::to_chars writes: at most 20 characters) so
// that it ends at `end`, and returns its first character. Branch-free below 10000 in
// magnitude (the usual data_int values, whose digit counts vary unpredictably).
inline char* FormatDecimalBackward(int64_t value, char* end) {
  const uint64_t u = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  char* p;
  if (ABSL_PREDICT_TRUE(u < 10000)) {
    const uint64_t high = u / 100;
    std::memcpy(end - 2, kTwoDigits.pairs + 2 * (u - high * 100), 2);
    std::memcpy(end - 4, kTwoDigits.pairs + 2 * high, 2);
    p = end -
        (1 + static_cast<int>(u >= 10) + static_cast<int>(u >= 100) + static_cast<int>(u >= 1000));
  } else {
    uint64_t rest = u;
    p = end;
    while (rest >= 100) {
      const uint64_t q = rest / 100;
      p -= 2;
      std::memcpy(p, kTwoDigits.pairs + 2 * (rest - q * 100), 2);
      rest = q;
    }
    if (rest >= 10) {
      p -= 2;
      std::memcpy(p, kTwoDigits.pairs + 2 * rest, 2);
    } else {
      *--p = static_cast<char>('0' + rest);
    }
  }
  p[-1] = '-';
  return p - static_cast<int>(value < 0);
}

}  // namespace event_meaning_internal

ABSL_ATTRIBUTE_ALWAYS_INLINE inline absl::Time GenerationDecoder::WallTime(uint64_t ticks) {
  const int64_t delta = static_cast<int64_t>(ticks - info_.clock.trace_time);
  int64_t ns, unix_ns;
  if (ABSL_PREDICT_TRUE(ns_per_tick_ != 0) && !__builtin_mul_overflow(delta, ns_per_tick_, &ns) &&
      !__builtin_add_overflow(wall_unix_ns_, ns, &unix_ns)) {
    return absl::FromUnixNanos(unix_ns);
  }
  return SlowWallTime(ticks);
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline void GenerationDecoder::FillCommon(Cursor& c, uint8_t type,
                                                                       uint64_t now) {
  const ThreadState& ts = *c.ts;
  // gen, sid, depth and utc_offset_sec are set once per generation (Start).
  Event& e = event_;
  e.wire_type = type;
  e.thread_id = c.thread_id;
  e.ticks = now;
  e.thread_name = ts.name;
  e.thread_tid = ts.tid;
  e.time = WallTime(now);
  e.t_abs = SignedSeconds(start_time_, now);
  ClearOpt(&e.t_rel);
  ClearOpt(&e.msg);
  e.adopted_task = ts.adopted_task;
  if (ABSL_PREDICT_FALSE(c.has_pending_stack)) {
    // The first stack delivered of the generation: symbolize them all.
    if (fill_) {
      tables_.SymbolizeFrames();
      // Symbolizing moved the frames (inline chains): look the stack up again.
      tables_.FindStack(c.pending_stack_id, &c.pending_stack);
    }
    e.stack = c.pending_stack;
    c.has_pending_stack = false;
  } else {
    e.stack = {};
  }
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline GenerationDecoder::Outcome GenerationDecoder::ProcessTrace2(
    Cursor& c, const TypeInfo& info, bool common_done) {
  using event_meaning_internal::FormatDecimalBackward;
  using event_meaning_internal::kMaxRegionDepth;
  using event_meaning_internal::T;
  using format::EventType;
  const uint8_t type = c.head_type;
  const uint64_t* a = c.head_args;
  // A Trace2 row: dt, site, then the row's own arguments.
  const SiteInfo* site = tables_.FindSite(a[1]);
  if (ABSL_PREDICT_FALSE(site == nullptr)) return SiteError(c);
  // All string IDs below string_limit() exist (0 = none included): one comparison on the
  // usual dense table (str_a/str_b cover every string argument of the row, or force the
  // general check); the general lookup otherwise.
  if (ABSL_PREDICT_FALSE((a[info.str_a] | a[info.str_b]) >= tables_.string_limit())) {
    if (!CheckStrings(c, info)) return kError;
  }
  const uint64_t now = c.time;
  if (!common_done) FillCommon(c, type, now);
  Event& e = event_;
  e.kind = info.kind;
  e.file = site->file;
  e.line = site->line;
  e.repo = site->event_repo;
  e.category = site->category;
  e.label = site->label;
  ThreadState& ts = *c.ts;
  auto innermost = [&ts]() { return ts.regions.empty() ? ts.start_time : ts.regions.back(); };
  switch (type) {
    case T(EventType::kRegionEnter):
      if (ABSL_PREDICT_FALSE(ts.regions.size() >= kMaxRegionDepth)) {
        return Fail(HeadError(c, "regions nest too deep"));
      }
      e.nesting = 1 + static_cast<int>(ts.regions.size());
      ts.regions.push_back(now);
      if (a[2] != 0) StoreOpt(&e.msg, *tables_.FindString(a[2]));
      return kEvent;
    case T(EventType::kRegionLeave):
      if (ABSL_PREDICT_FALSE(ts.regions.empty())) {
        return Fail(HeadError(c, "region_leave with no open region on the thread"));
      }
      StoreOpt(&e.t_rel, SignedSeconds(ts.regions.back(), now));
      ts.regions.pop_back();
      if (a[2] != 0) StoreOpt(&e.msg, *tables_.FindString(a[2]));
      e.nesting = 1 + static_cast<int>(ts.regions.size());
      return kEvent;
    case T(EventType::kData):
      StoreOpt(&e.t_rel, SignedSeconds(innermost(), now));
      e.value_kind = ValueKind::kString;
      e.value_string = Str(a[2]);
      e.nesting = 1 + static_cast<int>(ts.regions.size());
      return kEvent;
    case T(EventType::kDataInt): {
      StoreOpt(&e.t_rel, SignedSeconds(innermost(), now));
      e.value_kind = ValueKind::kInt;
      e.value_int = format::ZigzagDecode(a[2]);
      char* const end = e.int_buffer + sizeof(e.int_buffer);
      const char* const begin = FormatDecimalBackward(e.value_int, end);
      e.value_string = absl::string_view(begin, end - begin);
      e.nesting = 1 + static_cast<int>(ts.regions.size());
      return kEvent;
    }
    case T(EventType::kDataJson):
      StoreOpt(&e.t_rel, SignedSeconds(innermost(), now));
      e.value_kind = ValueKind::kJson;
      e.value_string = Str(a[2]);
      e.nesting = 1 + static_cast<int>(ts.regions.size());
      return kEvent;
    default:
      return ProcessOther(c);
  }
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline GenerationDecoder::Outcome GenerationDecoder::CheckTrace2(
    Cursor& c, const TypeInfo& info) {
  using event_meaning_internal::kMaxRegionDepth;
  using event_meaning_internal::T;
  using format::EventType;
  const uint8_t type = c.head_type;
  const uint64_t* a = c.head_args;
  // The checks of ProcessTrace2, in the same order (so that the same error is reported).
  if (ABSL_PREDICT_FALSE(tables_.FindSite(a[1]) == nullptr)) return SiteError(c);
  if (ABSL_PREDICT_FALSE((a[info.str_a] | a[info.str_b]) >= tables_.string_limit())) {
    if (!CheckStrings(c, info)) return kError;
  }
  ThreadState& ts = *c.ts;
  const uint64_t now = c.time;
  Event& e = event_;
  switch (type) {
    case T(EventType::kRegionEnter):
      if (ABSL_PREDICT_FALSE(ts.regions.size() >= kMaxRegionDepth)) {
        return Fail(HeadError(c, "regions nest too deep"));
      }
      ts.regions.push_back(now);
      break;
    case T(EventType::kRegionLeave):
      if (ABSL_PREDICT_FALSE(ts.regions.empty())) {
        return Fail(HeadError(c, "region_leave with no open region on the thread"));
      }
      ts.regions.pop_back();
      break;
    case T(EventType::kData):
    case T(EventType::kDataInt):
    case T(EventType::kDataJson):
      break;
    default:
      // The other rows have checks and state of their own: the full path.
      return ProcessTrace2(c, info, /*common_done=*/false);
  }
  e.kind = info.kind;
  e.wire_type = type;
  e.thread_id = c.thread_id;
  e.ticks = now;
  c.has_pending_stack = false;  // the stack would have gone to this event
  return kEvent;
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline GenerationDecoder::Outcome GenerationDecoder::Process(
    Cursor& c) {
  const TypeInfo& info = types_[c.head_type];
  if (ABSL_PREDICT_TRUE(info.trace2 && !c.restating && !c.ts->exited)) {
    return ProcessTrace2(c, info, /*common_done=*/false);
  }
  return ProcessSlow(c);
}

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_EVENT_MEANING_INL_H_
