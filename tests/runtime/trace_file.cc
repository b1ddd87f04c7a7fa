#include "tests/runtime/trace_file.h"

#include <zstd.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_format.h"
#include "format/constants.h"
#include "format/file_header.h"
#include "format/raw_decoder.h"
#include "format/varint.h"

namespace tracewire::testing {
namespace {

using format::EventType;

struct PendingEvent {
  format::RawEvent raw;
  uint64_t thread;
  uint64_t time;
};

struct Pending {
  uint64_t gen = 0;
  std::map<uint64_t, std::string> strings;
  std::map<uint64_t, std::string> parts;
  std::map<uint64_t, std::vector<uint64_t>> sites;  // id -> args
  std::map<uint64_t, std::vector<format::StackFrame>> stacks;
  std::vector<PendingEvent> events;
  uint64_t sid_id = 0;
  uint64_t name_id = 0;
  DecodedGeneration out;
};

absl::Status DecodeBody(const format::RawEvent& frame, Pending* p) {
  format::RecordDecoder body(frame.body, frame.body_offset, format::BodyScope(frame.spec->body));
  format::RawEvent record;
  uint64_t time = frame.Arg("base_time");
  for (;;) {
    absl::StatusOr<bool> more = body.Next(&record);
    if (!more.ok()) return more.status();
    if (!*more) return absl::OkStatus();
    const uint64_t id = record.num_args > 0 ? record.args[0] : 0;
    switch (static_cast<EventType>(record.type)) {
      case EventType::kStringPart:
        p->parts[id].append(record.data.data(), record.data.size());
        break;
      case EventType::kString: {
        std::string value = std::move(p->parts[id]);
        p->parts.erase(id);
        value.append(record.data.data(), record.data.size());
        if (!p->strings.emplace(id, std::move(value)).second) {
          return absl::DataLossError(absl::StrFormat("duplicate string id %d", id));
        }
        break;
      }
      case EventType::kSite:
        p->sites[id] = std::vector<uint64_t>(record.args, record.args + record.num_args);
        break;
      case EventType::kStack:
        p->stacks[id] = record.frames;
        break;
      default: {
        if (record.args[0] == 0) return absl::DataLossError("dt of 0");
        time += record.args[0];
        PendingEvent e{record, frame.Arg("thread"), time};
        e.raw.frames.clear();
        p->events.push_back(std::move(e));
        break;
      }
    }
  }
}

absl::StatusOr<std::string> Resolve(const Pending& p, uint64_t id) {
  auto it = p.strings.find(id);
  if (it == p.strings.end()) return absl::DataLossError(absl::StrFormat("no string %d", id));
  return it->second;
}

absl::Status Finish(Pending* p, std::vector<DecodedGeneration>* out) {
  if (!p->parts.empty()) return absl::DataLossError("unfinished string parts");
  DecodedGeneration& gen = p->out;
  gen.gen = p->gen;
  auto optional_string = [&](uint64_t id) -> absl::StatusOr<std::optional<std::string>> {
    if (id == 0) return std::optional<std::string>();
    absl::StatusOr<std::string> s = Resolve(*p, id);
    if (!s.ok()) return s.status();
    return std::optional<std::string>(*s);
  };
  for (PendingEvent& pe : p->events) {
    DecodedEvent e;
    e.type = static_cast<EventType>(pe.raw.type);
    e.name = pe.raw.Name();
    e.gen = p->gen;
    e.thread = pe.thread;
    e.time = pe.time;
    e.args.assign(pe.raw.args, pe.raw.args + pe.raw.num_args);
    if (pe.raw.spec != nullptr) {
      const auto args = pe.raw.spec->Args();
      for (size_t i = 0; i < args.size(); ++i) {
        const uint64_t v = pe.raw.args[i];
        if ((args[i].type == format::ArgType::kString ||
             args[i].type == format::ArgType::kStringList) &&
            v != 0) {
          absl::StatusOr<std::string> s = Resolve(*p, v);
          if (!s.ok()) return s.status();
          e.strings[std::string(args[i].name)] = *s;
        } else if (args[i].type == format::ArgType::kSite) {
          auto it = p->sites.find(v);
          if (it == p->sites.end()) return absl::DataLossError(absl::StrFormat("no site %d", v));
          const std::vector<uint64_t>& s = it->second;
          auto file = optional_string(s[1]);
          auto category = optional_string(s[3]);
          auto label = optional_string(s[4]);
          if (!file.ok() || !category.ok() || !label.ok()) return absl::DataLossError("site string");
          e.site.file = *file;
          e.site.line = s[2];
          e.site.category = *category;
          e.site.label = *label;
          e.site.repo = s[5];
        } else if (args[i].type == format::ArgType::kStack && v != 0) {
          auto it = p->stacks.find(v);
          if (it == p->stacks.end()) return absl::DataLossError(absl::StrFormat("no stack %d", v));
          e.stack = it->second;
          for (const format::StackFrame& f : e.stack) {
            auto func = optional_string(f.func_string);
            if (!func.ok()) return func.status();
            e.stack_functions.push_back(func->value_or(""));
          }
        }
      }
    }
    gen.events.push_back(std::move(e));
  }
  out->push_back(std::move(gen));
  return absl::OkStatus();
}

// Decodes frames (possibly with repeated file headers). Complete generations go to `out`;
// returns the offset just past the last complete generation and the first error, if any.
absl::Status DecodeFrames(absl::string_view bytes, bool compressed,
                          std::vector<DecodedGeneration>* out, uint64_t* complete_bytes) {
  const absl::string_view magic(reinterpret_cast<const char*>(format::kFileMagic),
                                sizeof(format::kFileMagic));
  Pending pending;
  bool open = false;
  size_t pos = 0;
  while (pos < bytes.size()) {
    if (bytes.substr(pos, magic.size()) == magic) {
      if (open) return absl::DataLossError("file header inside a generation");
      absl::StatusOr<uint32_t> version = format::ParseFileHeader(bytes.substr(pos));
      if (!version.ok()) return version.status();
      pos += format::kFileHeaderSize;
      if (!open) *complete_bytes = pos;
      continue;
    }
    format::RecordDecoder decoder(bytes.substr(pos), pos, format::Scope::kFrame);
    format::RawEvent frame;
    absl::StatusOr<bool> got = decoder.Next(&frame);
    if (!got.ok()) return got.status();
    pos += frame.size;
    const EventType type = static_cast<EventType>(frame.type);
    if (type == EventType::kCompressedGeneration) {
      if (open) return absl::DataLossError("compressed generation inside a generation");
      std::string raw(frame.Arg("raw_length"), '\0');
      const size_t n = ZSTD_decompress(raw.data(), raw.size(), frame.data.data(), frame.data.size());
      if (ZSTD_isError(n) || n != raw.size()) return absl::DataLossError("zstd");
      uint64_t ignored = 0;
      if (absl::Status s = DecodeFrames(raw, true, out, &ignored); !s.ok()) return s;
      *complete_bytes = pos;
      continue;
    }
    const uint64_t gen = frame.Arg("gen");
    if (!open) {
      pending = Pending();
      pending.gen = gen;
      pending.out.compressed = compressed;
      open = true;
    } else if (gen != pending.gen) {
      return absl::DataLossError(absl::StrFormat("generation %d inside generation %d", gen,
                                                 pending.gen));
    }
    switch (type) {
      case EventType::kEventBatch:
      case EventType::kStringBatch:
      case EventType::kSiteBatch:
      case EventType::kStackBatch:
        if (absl::Status s = DecodeBody(frame, &pending); !s.ok()) return s;
        break;
      case EventType::kClockSync:
        pending.out.sync.freq = frame.Arg("freq");
        pending.out.sync.trace_time = frame.Arg("trace_time");
        pending.out.sync.mono_ns = frame.Arg("mono_ns");
        pending.out.sync.wall_sec = frame.Arg("wall_sec");
        pending.out.sync.wall_nsec = frame.Arg("wall_nsec");
        pending.out.sync.utc_offset_sec = format::ZigzagDecode(frame.Arg("utc_offset_sec"));
        ++pending.out.clock_syncs;
        break;
      case EventType::kProcessInfo:
        // Strings may come later in the generation: resolved at its end.
        pending.out.pid = frame.Arg("pid");
        pending.out.start_time = frame.Arg("start_time");
        pending.sid_id = frame.Arg("sid_string");
        pending.name_id = frame.Arg("name_string");
        break;
      case EventType::kEndOfGeneration: {
        absl::StatusOr<std::string> sid = Resolve(pending, pending.sid_id);
        if (!sid.ok()) return sid.status();
        pending.out.sid = *sid;
        if (pending.name_id != 0) {
          absl::StatusOr<std::string> name = Resolve(pending, pending.name_id);
          if (!name.ok()) return name.status();
          pending.out.cmd_name = *name;
        }
        if (absl::Status s = Finish(&pending, out); !s.ok()) return s;
        open = false;
        *complete_bytes = pos;
        break;
      }
      default:
        break;
    }
  }
  if (open) return absl::OutOfRangeError("trace ends inside a generation");
  return absl::OkStatus();
}

}  // namespace

uint64_t DecodedEvent::Arg(absl::string_view arg_name) const {
  const format::EventSpec* spec = format::LookupSpec(type);
  const int index = spec == nullptr ? -1 : spec->ArgIndex(arg_name);
  return index < 0 || index >= static_cast<int>(args.size()) ? 0 : args[index];
}

std::optional<std::string> DecodedEvent::Str(absl::string_view arg_name) const {
  auto it = strings.find(std::string(arg_name));
  if (it == strings.end()) return std::nullopt;
  return it->second;
}

std::vector<DecodedEvent> DecodedTrace::AllEvents() const {
  std::vector<DecodedEvent> all;
  for (const DecodedGeneration& g : generations) all.insert(all.end(), g.events.begin(), g.events.end());
  return all;
}

std::vector<DecodedEvent> DecodedTrace::Events(absl::string_view name) const {
  std::vector<DecodedEvent> matching;
  for (const DecodedGeneration& g : generations) {
    for (const DecodedEvent& e : g.events) {
      if (e.name == name) matching.push_back(e);
    }
  }
  return matching;
}

absl::StatusOr<DecodedTrace> DecodeTrace(absl::string_view bytes) {
  DecodedTrace trace;
  trace.total_bytes = bytes.size();
  trace.tail_status = DecodeFrames(bytes, false, &trace.generations, &trace.complete_bytes);
  return trace;
}

absl::StatusOr<DecodedTrace> DecodeTraceFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(path);
  std::ostringstream buffer;
  buffer << file.rdbuf();
  return DecodeTrace(buffer.str());
}

}  // namespace tracewire::testing
