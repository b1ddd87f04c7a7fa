#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "reader/targets/perfetto/perfetto_formatter.h"
#include "reader/targets/valid_utf8.h"

namespace tracewire::targets::perfetto_export {
namespace {

// The mapping of frames in no known module (perf's name for them).
constexpr absl::string_view kUnknownModule = "[unknown]";

}  // namespace

void PerfettoFormatter::OnSample(const Event& e, const reader::SampleContext& at) {
  if (at.thread >= threads_.size() || threads_[at.thread].sequence.id == 0) return;
  Thread& t = threads_[at.thread];
  const Process& p = processes_[t.process];
  // The interning tables are updated when skipping too; `interned` is null then.
  const bool write = StartDescriptor(t, now_ns_);
  Sequence& seq = t.sequence;
  pb::InternedData* interned = write ? packet_.mutable_interned_data() : nullptr;
  std::string frames_key;
  // Outermost frame first (Perfetto's "bottom frame first").
  for (auto frame = e.stack.rbegin(); frame != e.stack.rend(); ++frame) {
    std::string function = frame->func.empty() ? absl::StrCat("0x", absl::Hex(frame->pc))
                                               : std::string(ValidUtf8(frame->func, &scratch_));
    auto [fn, new_function] = seq.functions.try_emplace(function, seq.functions.size() + 1);
    if (new_function && write) {
      pb::InternedString* entry = interned->add_function_names();
      entry->set_iid(fn->second);
      entry->set_str(function);
    }
    // The frame's module: a mapping whose path is interned by its components. A frame in no
    // known module (a Go trace's, a pc outside the modules) is in "[unknown]", as perf names
    // it: the trace processor wants a mapping for every frame.
    uint64_t mapping = 0;
    {
      const std::string module = frame->module.empty()
                                     ? std::string(kUnknownModule)
                                     : std::string(ValidUtf8(frame->module, &scratch_));
      auto [m, new_mapping] = seq.mappings.try_emplace(module, seq.mappings.size() + 1);
      if (new_mapping) {
        pb::Mapping* entry = write ? interned->add_mappings() : nullptr;
        if (write) entry->set_iid(m->second);
        for (absl::string_view part : absl::StrSplit(module, '/', absl::SkipEmpty())) {
          auto [c, new_part] =
              seq.mapping_paths.try_emplace(std::string(part), seq.mapping_paths.size() + 1);
          if (!write) continue;
          if (new_part) {
            pb::InternedString* path = interned->add_mapping_paths();
            path->set_iid(c->second);
            path->set_str(std::string(part));
          }
          entry->add_path_string_ids(c->second);
        }
      }
      mapping = m->second;
    }
    const uint64_t rel_pc = frame->module.empty() ? frame->pc : frame->module_offset;
    auto [fr, new_frame] = seq.frames.try_emplace(
        absl::StrCat(fn->second, ":", mapping, ":", rel_pc), seq.frames.size() + 1);
    if (new_frame && write) {
      pb::Frame* entry = interned->add_frames();
      entry->set_iid(fr->second);
      entry->set_function_name_id(fn->second);
      entry->set_mapping_id(mapping);
      entry->set_rel_pc(rel_pc);
    }
    absl::StrAppend(&frames_key, fr->second, ",");
  }
  auto [cs, new_callstack] = seq.callstacks.try_emplace(frames_key, seq.callstacks.size() + 1);
  if (!write) return;
  if (new_callstack) {
    pb::Callstack* entry = interned->add_callstacks();
    entry->set_iid(cs->second);
    for (absl::string_view id : absl::StrSplit(frames_key, ',', absl::SkipEmpty())) {
      uint64_t value = 0;
      if (absl::SimpleAtoi(id, &value)) entry->add_frame_ids(value);
    }
  }
  if (interned->ByteSizeLong() == 0) packet_.clear_interned_data();
  pb::PerfSample* sample = packet_.mutable_perf_sample();
  sample->set_pid(static_cast<uint32_t>(p.pid));
  sample->set_tid(static_cast<uint32_t>(t.tid));
  sample->set_callstack_iid(cs->second);
  // PerfSample has no weight: a sample of weight w (the periods of CPU time it stands for)
  // is w packets at its time, the later ones without the interned data.
  EmitPacket();
  const uint64_t copies = std::min<uint64_t>(std::max<uint64_t>(e.count, 1), kMaxSampleWeight);
  if (copies < 2) return;
  packet_.clear_interned_data();
  const size_t start = out_->size();
  EmitPacket();
  const size_t size = out_->size() - start;
  for (uint64_t copy = 2; copy < copies; ++copy) out_->append(*out_, start, size);
}

}  // namespace tracewire::targets::perfetto_export
