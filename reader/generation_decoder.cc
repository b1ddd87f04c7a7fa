// GenerationDecoder's constructor (the per-type hot-path info from the EventSpec table)
// and Next(): the hot loop that processes the current thread's head record, decodes its
// next one and keeps the thread while it stays the earliest (the inline parts come from
// event_meaning-inl.h and thread_merge-inl.h), and NextSlow() for everything else.
#include "reader/generation_decoder.h"

#include <algorithm>

#include "absl/base/optimization.h"
#include "format/event_spec.h"
#include "reader/event_meaning-inl.h"
#include "reader/thread_merge-inl.h"

namespace tracewire::reader {

GenerationDecoder::GenerationDecoder() {
  for (int i = 0; i < 256; ++i) {
    const format::EventSpec* spec = format::LookupSpec(static_cast<uint8_t>(i));
    specs_[i] = spec;
    TypeInfo& info = types_[i];
    info.kind = EventKindOfType(static_cast<uint8_t>(i));
    if (spec == nullptr) continue;
    if (spec->scope == format::Scope::kEventBody && !spec->has_data) {
      info.fast = true;
      info.nargs = spec->NumArgsIn(version_);
    }
    if (spec->timed && !spec->experimental && !spec->trace2_event.empty() && spec->num_args >= 2 &&
        spec->args[1].type == format::ArgType::kSite &&
        spec->num_string_ids <= sizeof(info.strings)) {
      info.trace2 = true;
      info.nstrings = spec->num_string_ids;
      std::copy(spec->string_ids, spec->string_ids + spec->num_string_ids, info.strings);
      if (info.nstrings > 2) {
        info.str_a = kOnesArg;
      } else {
        if (info.nstrings >= 1) info.str_a = info.strings[0];
        if (info.nstrings >= 2) info.str_b = info.strings[1];
      }
    }
  }
}

void GenerationDecoder::SetVersion(uint32_t version) {
  if (version == version_) return;
  version_ = version;
  for (int i = 0; i < 256; ++i) {
    if (types_[i].fast) types_[i].nargs = specs_[i]->NumArgsIn(version);
  }
}

const Event* GenerationDecoder::Next() {
  // Hot path: cur_ holds a plain Trace2 row; process it, decode the cursor's next record
  // and keep the cursor while its head stays the smallest.
  if (ABSL_PREDICT_TRUE(cur_ != nullptr)) {
    Cursor& c = *cur_;
    const TypeInfo& info = types_[c.head_type];
    if (ABSL_PREDICT_TRUE(info.trace2 && !c.restating && !c.ts->exited)) {
      const Outcome outcome =
          fill_ ? ProcessTrace2(c, info, /*common_done=*/false) : CheckTrace2(c, info);
      if (ABSL_PREDICT_FALSE(outcome == kError)) {
        cur_ = nullptr;
        return nullptr;
      }
      if (ABSL_PREDICT_FALSE(!DecodeHead(c))) {
        // Deliver the processed event first; the error stays in error_ for the next call.
        cur_ = nullptr;
        return &event_;
      }
      if (ABSL_PREDICT_FALSE(c.time >= run_limit_ || !c.has_head)) {
        if (ABSL_PREDICT_TRUE(linear_ && c.has_head)) {
          Reinsert((static_cast<unsigned __int128>(c.time) << 64) | c.index);
        } else {
          Repick(c);
        }
      }
      return &event_;
    }
  }
  return NextSlow();
}

const Event* GenerationDecoder::NextSlow() {
  if (ABSL_PREDICT_FALSE(!error_.ok())) return nullptr;
  if (ABSL_PREDICT_FALSE(pick_at_start_)) {
    pick_at_start_ = false;
    Pick();
  }
  while (cur_ != nullptr) {
    Cursor& c = *cur_;
    const Outcome outcome = Process(c);
    if (ABSL_PREDICT_FALSE(outcome == kError)) {
      cur_ = nullptr;
      return nullptr;
    }
    if (ABSL_PREDICT_FALSE(!DecodeHead(c))) {
      // Deliver the processed event first; the error stays in error_ for the next call.
      cur_ = nullptr;
      return outcome == kEvent ? &event_ : nullptr;
    }
    if (c.time >= run_limit_ || !c.has_head) Repick(c);
    if (outcome == kEvent) return &event_;
    if (!error_.ok()) return nullptr;
  }
  if (!error_.ok()) return nullptr;
  if (!finished_) {
    FinishGeneration();
    finished_ = true;
  }
  return nullptr;
}

}  // namespace tracewire::reader
