#include "format/batch_encoder.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "format/record_encoder.h"
#include "format/varint.h"

namespace tracewire::format {

EventBatchEncoder::EventBatchEncoder(uint64_t gen, uint64_t thread, uint64_t base_time)
    : gen_(gen), thread_(thread), base_time_(base_time), last_time_(base_time) {}

size_t EventBatchEncoder::HeaderSize(size_t body_size) const {
  return 1 + UvarintSize(gen_) + UvarintSize(thread_) + UvarintSize(base_time_) +
         UvarintSize(body_size);
}

size_t EventBatchEncoder::size() const { return HeaderSize(body_.size()) + body_.size(); }

absl::StatusOr<bool> EventBatchEncoder::Append(EventType type, uint64_t time,
                                               absl::Span<const uint64_t> args,
                                               absl::string_view data) {
  const EventSpec* spec = LookupSpec(type);
  const bool experimental = IsExperimentalType(static_cast<uint8_t>(type));
  if ((spec == nullptr && !experimental) || (spec != nullptr && !spec->timed)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("event type %d is not a timed event", static_cast<int>(type)));
  }
  if (args.size() + 1 > kMaxArgs) {
    return absl::InvalidArgumentError("too many arguments");
  }
  const uint64_t event_time = std::max(time, last_time_ + 1);
  uint64_t all_args[kMaxArgs];
  all_args[0] = event_time - last_time_;
  std::copy(args.begin(), args.end(), all_args + 1);
  const absl::Span<const uint64_t> full(all_args, args.size() + 1);
  const size_t record_size = RecordSize(type, full, data);
  const size_t new_body = body_.size() + record_size;
  if (HeaderSize(new_body) + new_body > kMaxBatchSize) return false;
  if (absl::Status s = AppendRecord(&body_, type, full, data); !s.ok()) return s;
  last_time_ = event_time;
  return true;
}

void EventBatchEncoder::AppendTo(std::string* out) const {
  out->push_back(static_cast<char>(EventType::kEventBatch));
  AppendUvarint(out, gen_);
  AppendUvarint(out, thread_);
  AppendUvarint(out, base_time_);
  AppendUvarint(out, body_.size());
  out->append(body_);
}

EventStreamEncoder::EventStreamEncoder(uint64_t gen, uint64_t thread, std::string* out)
    : gen_(gen), thread_(thread), out_(out) {}

absl::Status EventStreamEncoder::Append(EventType type, uint64_t time,
                                        absl::Span<const uint64_t> args, absl::string_view data) {
  if (!batch_.has_value()) batch_.emplace(gen_, thread_, time > 0 ? time - 1 : 0);
  absl::StatusOr<bool> appended = batch_->Append(type, time, args, data);
  if (!appended.ok()) return appended.status();
  if (*appended) return absl::OkStatus();
  if (batch_->empty()) {
    return absl::InvalidArgumentError("event does not fit in an empty batch");
  }
  const uint64_t last = batch_->last_time();
  Flush();
  batch_.emplace(gen_, thread_, last);
  appended = batch_->Append(type, time, args, data);
  if (!appended.ok()) return appended.status();
  if (!*appended) return absl::InvalidArgumentError("event does not fit in an empty batch");
  return absl::OkStatus();
}

void EventStreamEncoder::Flush() {
  if (!batch_.has_value() || batch_->empty()) return;
  batch_->AppendTo(out_);
  ++batches_written_;
  batch_.emplace(gen_, thread_, batch_->last_time());
}

TableStreamEncoder::TableStreamEncoder(EventType batch_type, uint64_t gen, std::string* out)
    : batch_type_(batch_type), gen_(gen), out_(out) {}

absl::Status TableStreamEncoder::Append(EventType type, absl::Span<const uint64_t> args,
                                        absl::string_view data,
                                        absl::Span<const StackFrame> frames) {
  const EventSpec* spec = LookupSpec(type);
  const EventSpec* batch_spec = LookupSpec(batch_type_);
  if (spec == nullptr || batch_spec == nullptr || spec->scope != BodyScope(batch_spec->body)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "event type %d does not belong in a %s", static_cast<int>(type),
        batch_spec == nullptr ? "table batch" : batch_spec->name));
  }
  const size_t record_size = RecordSize(type, args, data, frames);
  auto batch_size = [&](size_t body) {
    return 1 + UvarintSize(gen_) + UvarintSize(body) + body;
  };
  if (batch_size(record_size) > kMaxBatchSize) {
    return absl::InvalidArgumentError("record does not fit in a batch");
  }
  if (batch_size(body_.size() + record_size) > kMaxBatchSize) Flush();
  return AppendRecord(&body_, type, args, data, frames);
}

absl::Status TableStreamEncoder::AppendString(uint64_t id, absl::string_view value) {
  if (value.size() > kMaxStringSize) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "string of %d bytes exceeds the maximum %d", value.size(), kMaxStringSize));
  }
  while (value.size() > kMaxRecordDataSize) {
    const uint64_t args[] = {id};
    if (absl::Status s = Append(EventType::kStringPart, args, value.substr(0, kMaxRecordDataSize));
        !s.ok()) {
      return s;
    }
    value.remove_prefix(kMaxRecordDataSize);
  }
  const uint64_t args[] = {id};
  return Append(EventType::kString, args, value);
}

void TableStreamEncoder::Flush() {
  if (body_.empty()) return;
  out_->push_back(static_cast<char>(batch_type_));
  AppendUvarint(out_, gen_);
  AppendUvarint(out_, body_.size());
  out_->append(body_);
  body_.clear();
}

}  // namespace tracewire::format
