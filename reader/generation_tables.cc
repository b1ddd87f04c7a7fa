#include "reader/generation_tables.h"

#include <algorithm>

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/constants.h"
#include "format/raw_decoder.h"
#include "format/raw_event.h"

namespace tracewire::reader {
namespace {

using format::EventType;

absl::Status RecordError(const RawGeneration& gen, const absl::Status& status) {
  // Table bodies are complete, so a record running past its batch is corruption.
  return absl::DataLossError(absl::StrCat(gen.Describe(), ": ", status.message()));
}

absl::Status Error(const RawGeneration& gen, uint64_t offset, absl::string_view reason) {
  return absl::DataLossError(
      absl::StrFormat("%s: byte offset %d: %s", gen.Describe(), offset, reason));
}

}  // namespace

bool GenerationTables::Resolve(uint64_t id, absl::string_view* out) const {
  if (id == 0) {
    *out = {};
    return true;
  }
  const absl::string_view* value = strings_.Find(id);
  if (value == nullptr) return false;
  *out = *value;
  return true;
}

absl::Status GenerationTables::Build(const RawGeneration& gen) {
  if (absl::Status s = BuildStrings(gen); !s.ok()) return s;
  return BuildSitesAndStacks(gen);
}

absl::Status GenerationTables::BuildStrings(const RawGeneration& gen) {
  strings_.Clear();
  joined_.clear();
  parts_.clear();
  format::RawEvent raw;
  for (const Frame& frame : gen.frames) {
    if (frame.type != EventType::kStringBatch) continue;
    format::RecordDecoder decoder(frame.payload, frame.payload_offset, format::Scope::kStringBody);
    while (true) {
      absl::StatusOr<bool> decoded = decoder.Next(&raw);
      if (!decoded.ok()) return RecordError(gen, decoded.status());
      if (!*decoded) break;
      const uint64_t id = raw.args[0];
      if (id == 0) return Error(gen, raw.offset, "string record with ID 0 (0 means no string)");
      if (raw.type == static_cast<uint8_t>(EventType::kStringPart)) {
        std::string& part = parts_[id];
        if (part.size() + raw.data.size() > format::kMaxStringSize) {
          return Error(gen, raw.offset,
                       absl::StrFormat("string %d exceeds the maximum string size %d", id,
                                       format::kMaxStringSize));
        }
        part.append(raw.data.data(), raw.data.size());
        continue;
      }
      auto it = parts_.find(id);
      if (it == parts_.end()) {
        strings_.Stage(id, raw.data, raw.offset);
        continue;
      }
      if (it->second.size() + raw.data.size() > format::kMaxStringSize) {
        return Error(gen, raw.offset,
                     absl::StrFormat("string %d exceeds the maximum string size %d", id,
                                     format::kMaxStringSize));
      }
      std::string& joined = joined_.emplace_back(std::move(it->second));
      joined.append(raw.data.data(), raw.data.size());
      parts_.erase(it);
      strings_.Stage(id, absl::string_view(joined), raw.offset);
    }
  }
  if (!parts_.empty()) {
    // The smallest such ID: the message must not depend on the hash map's order.
    uint64_t first = parts_.begin()->first;
    for (const auto& [id, part] : parts_) first = std::min(first, id);
    return absl::DataLossError(
        absl::StrFormat("%s: string_part records of string ID %d have no final string record",
                        gen.Describe(), first));
  }
  if (auto dup = strings_.Build(); dup.id != 0) {
    return Error(gen, dup.offset, absl::StrFormat("duplicate string ID %d", dup.id));
  }
  return absl::OkStatus();
}

absl::Status GenerationTables::BuildSitesAndStacks(const RawGeneration& gen) {
  symbolized_ = true;  // nothing to symbolize unless the tables are built
  sites_.Clear();
  stacks_.Clear();
  frames_.clear();
  modules_.clear();
  module_ids_.clear();
  format::RawEvent raw;
  for (const Frame& frame : gen.frames) {
    const bool is_site = frame.type == EventType::kSiteBatch;
    if (!is_site && frame.type != EventType::kStackBatch) continue;
    format::RecordDecoder decoder(frame.payload, frame.payload_offset,
                                  is_site ? format::Scope::kSiteBody : format::Scope::kStackBody);
    while (true) {
      absl::StatusOr<bool> decoded = decoder.Next(&raw);
      if (!decoded.ok()) return RecordError(gen, decoded.status());
      if (!*decoded) break;
      const uint64_t id = raw.args[0];
      if (id == 0) {
        return Error(gen, raw.offset, absl::StrFormat("%s record with ID 0", raw.Name()));
      }
      auto missing = [&](absl::string_view field, uint64_t string_id) {
        return Error(gen, raw.offset,
                     absl::StrFormat("%s %d: %s %d is not in the string table", raw.Name(), id,
                                     field, string_id));
      };
      if (is_site) {
        SiteInfo site;
        // Arguments: id, file_string, line, category_string, label_string, repo.
        if (!Resolve(raw.args[1], &site.file)) return missing("file_string", raw.args[1]);
        site.line = static_cast<int64_t>(raw.args[2]);
        if (!Resolve(raw.args[3], &site.category)) {
          return missing("category_string", raw.args[3]);
        }
        if (!Resolve(raw.args[4], &site.label)) return missing("label_string", raw.args[4]);
        site.repo = raw.args[5];
        if (site.repo != 0) site.event_repo = static_cast<int64_t>(site.repo - 1);
        sites_.Stage(id, site, raw.offset);
        continue;
      }
      if (raw.type == static_cast<uint8_t>(EventType::kModule)) {
        // Arguments: id, start, end, bias, path_string, build_id_string.
        ModuleRecord module{raw.args[1], raw.args[2], raw.args[3], {}, {}};
        if (module.start >= module.end) {
          return Error(gen, raw.offset,
                       absl::StrFormat("module %d: empty address range [0x%x, 0x%x)", id,
                                       module.start, module.end));
        }
        if (!Resolve(raw.args[4], &module.path)) return missing("path_string", raw.args[4]);
        if (!Resolve(raw.args[5], &module.build_id)) {
          return missing("build_id_string", raw.args[5]);
        }
        if (!module_ids_.emplace(id, raw.offset).second) {
          return Error(gen, raw.offset, absl::StrFormat("duplicate module ID %d", id));
        }
        modules_.push_back(module);
        continue;
      }
      const uint32_t first = static_cast<uint32_t>(frames_.size());
      for (const format::StackFrame& f : raw.frames) {
        SymbolFrame& out = frames_.emplace_back();
        out.pc = f.pc;
        out.line = f.line;
        if (!Resolve(f.func_string, &out.func)) return missing("func_string", f.func_string);
        if (!Resolve(f.file_string, &out.file)) return missing("file_string", f.file_string);
      }
      stacks_.Stage(id, {first, static_cast<uint32_t>(raw.frames.size())}, raw.offset);
    }
  }
  if (auto dup = sites_.Build(); dup.id != 0) {
    return Error(gen, dup.offset, absl::StrFormat("duplicate site ID %d", dup.id));
  }
  if (auto dup = stacks_.Build(); dup.id != 0) {
    return Error(gen, dup.offset, absl::StrFormat("duplicate stack ID %d", dup.id));
  }
  symbolized_ = frames_.empty();  // symbolized when an event first shows a stack
  return absl::OkStatus();
}

void GenerationTables::SymbolizeFramesSlow() {
  symbolized_ = true;
  if (frame_symbolizer_ == nullptr) frame_symbolizer_ = std::make_unique<FrameSymbolizer>();
  frame_symbolizer_->ClearModules();
  for (const ModuleRecord& module : modules_) frame_symbolizer_->AddModule(module);
  // A frame in inlined code becomes several (its inline chain): the stacks' ranges move.
  std::vector<SymbolFrame> symbolized;
  symbolized.reserve(frames_.size());
  std::vector<uint32_t> moved_to(frames_.size() + 1);
  for (size_t i = 0; i < frames_.size(); ++i) {
    moved_to[i] = static_cast<uint32_t>(symbolized.size());
    frame_symbolizer_->Symbolize(frames_[i], &symbolized);
  }
  moved_to[frames_.size()] = static_cast<uint32_t>(symbolized.size());
  if (symbolized.size() != frames_.size()) {
    stacks_.UpdateEach([&moved_to](std::pair<uint32_t, uint32_t>& range) {
      const uint32_t first = moved_to[range.first];
      range = {first, moved_to[range.first + range.second] - first};
    });
  }
  frames_ = std::move(symbolized);
}

const absl::string_view* GenerationTables::FindStringSlow(uint64_t id) const {
  return strings_.Find(id);
}

const SiteInfo* GenerationTables::FindSiteSlow(uint64_t id) const { return sites_.Find(id); }

}  // namespace tracewire::reader
