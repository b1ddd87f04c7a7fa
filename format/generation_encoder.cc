#include "format/generation_encoder.h"

#include <zstd.h>

#include "absl/strings/str_format.h"
#include "format/record_encoder.h"
#include "format/varint.h"

namespace tracewire::format {

std::string EncodeStringList(absl::Span<const std::string> items) {
  std::string bytes;
  for (const std::string& item : items) {
    bytes.append(item);
    bytes.push_back('\0');
  }
  return bytes;
}

absl::StatusOr<std::vector<std::string>> DecodeStringList(absl::string_view bytes) {
  std::vector<std::string> items;
  if (!bytes.empty() && bytes.back() != '\0') {
    return absl::DataLossError("string list does not end with a NUL byte");
  }
  while (!bytes.empty()) {
    const size_t nul = bytes.find('\0');
    items.emplace_back(bytes.substr(0, nul));
    bytes.remove_prefix(nul + 1);
  }
  return items;
}

GenerationEncoder::GenerationEncoder(uint64_t gen) : gen_(gen) {}

uint64_t GenerationEncoder::String(absl::string_view value) {
  auto [it, inserted] = strings_.try_emplace(value, string_order_.size() + 1);
  if (inserted) string_order_.emplace_back(value);
  return it->second;
}

uint64_t GenerationEncoder::OptionalString(const std::optional<std::string>& value) {
  return value.has_value() ? String(*value) : 0;
}

uint64_t GenerationEncoder::StringList(absl::Span<const std::string> items) {
  return String(EncodeStringList(items));
}

uint64_t GenerationEncoder::InternSite(const Site& site) {
  auto [it, inserted] = sites_.try_emplace(site, site_order_.size() + 1);
  if (inserted) site_order_.push_back(site);
  return it->second;
}

uint64_t GenerationEncoder::InternStack(absl::Span<const StackFrame> frames) {
  std::vector<uint64_t> key;
  for (const StackFrame& f : frames) {
    key.insert(key.end(), {f.pc, f.func_string, f.file_string, f.line});
  }
  auto [it, inserted] = stacks_.try_emplace(key, stack_order_.size() + 1);
  if (inserted) stack_order_.emplace_back(frames.begin(), frames.end());
  return it->second;
}

absl::Status GenerationEncoder::Event(uint64_t thread, EventType type, uint64_t time,
                                      absl::Span<const uint64_t> args, absl::string_view data) {
  auto it = threads_.find(thread);
  if (it == threads_.end()) {
    it = threads_.try_emplace(thread, gen_, thread, &thread_batches_[thread]).first;
  }
  return it->second.Append(type, time, args, data);
}

absl::Status GenerationEncoder::Finish(std::string* out, bool compress) {
  if (!clock_sync_.has_value() || !process_info_.has_value()) {
    return absl::FailedPreconditionError("generation needs a clock sync and a process info");
  }
  std::string frames;
  const ClockSync& sync = *clock_sync_;
  const uint64_t sync_args[] = {gen_,          sync.freq,      sync.trace_time,
                                sync.mono_ns,  sync.wall_sec,  sync.wall_nsec,
                                ZigzagEncode(sync.utc_offset_sec)};
  if (absl::Status s = AppendRecord(&frames, EventType::kClockSync, sync_args); !s.ok()) return s;
  const ProcessInfo& info = *process_info_;
  const uint64_t info_args[] = {gen_,
                                String(info.sid),
                                info.pid,
                                info.start_time,
                                OptionalString(info.name),
                                OptionalString(info.hierarchy)};
  if (absl::Status s = AppendRecord(&frames, EventType::kProcessInfo, info_args); !s.ok()) {
    return s;
  }
  for (auto& [thread, stream] : threads_) stream.Flush();
  for (const auto& [thread, batches] : thread_batches_) frames.append(batches);
  frames.append(extra_batches_);

  TableStreamEncoder sites(EventType::kSiteBatch, gen_, &frames);
  for (size_t i = 0; i < site_order_.size(); ++i) {
    const Site& site = site_order_[i];
    const uint64_t args[] = {i + 1,
                             OptionalString(site.file),
                             site.line,
                             OptionalString(site.category),
                             OptionalString(site.label),
                             site.repo};
    if (absl::Status s = sites.Append(EventType::kSite, args); !s.ok()) return s;
  }
  sites.Flush();
  TableStreamEncoder stacks(EventType::kStackBatch, gen_, &frames);
  for (size_t i = 0; i < stack_order_.size(); ++i) {
    const uint64_t args[] = {i + 1, stack_order_[i].size()};
    if (absl::Status s = stacks.Append(EventType::kStack, args, {}, stack_order_[i]); !s.ok()) {
      return s;
    }
  }
  stacks.Flush();
  TableStreamEncoder strings(EventType::kStringBatch, gen_, &frames);
  for (size_t i = 0; i < string_order_.size(); ++i) {
    if (absl::Status s = strings.AppendString(i + 1, string_order_[i]); !s.ok()) return s;
  }
  strings.Flush();
  const uint64_t end_args[] = {gen_};
  if (absl::Status s = AppendRecord(&frames, EventType::kEndOfGeneration, end_args); !s.ok()) {
    return s;
  }

  if (!compress) {
    out->append(frames);
    return absl::OkStatus();
  }
  if (frames.size() > kMaxGenerationSize) {
    return absl::ResourceExhaustedError("generation exceeds the maximum generation size");
  }
  std::string compressed(ZSTD_compressBound(frames.size()), '\0');
  const size_t n = ZSTD_compress(compressed.data(), compressed.size(), frames.data(),
                                 frames.size(), /*compressionLevel=*/3);
  if (ZSTD_isError(n)) {
    return absl::InternalError(absl::StrFormat("zstd: %s", ZSTD_getErrorName(n)));
  }
  compressed.resize(n);
  const uint64_t args[] = {gen_, frames.size()};
  return AppendRecord(out, EventType::kCompressedGeneration, args, compressed);
}

}  // namespace tracewire::format
