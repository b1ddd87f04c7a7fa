#include "tools/otlp/otlp_forwarder.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "reader/reader.h"
#include "reader/targets/otlp_target.h"

namespace tracewire::tools {
namespace {

// Formatter output handed to the sender once it holds this much.
constexpr size_t kChunk = size_t{1} << 20;

// Drops are logged at the 1st, 10th, 100th, … so that a flood stays readable.
bool IsPowerOfTen(uint64_t n) {
  while (n >= 10 && n % 10 == 0) n /= 10;
  return n == 1;
}

}  // namespace

OtlpForwarder::OtlpForwarder(std::unique_ptr<OtlpHttpExporter> exporter, size_t capacity,
                             std::function<void(const std::string&)> log)
    : exporter_(std::move(exporter)), capacity_(capacity), log_(std::move(log)) {
  sender_ = std::make_unique<OtlpSender>(*exporter_, log_);
  worker_ = std::thread([this] { Work(); });
}

OtlpForwarder::~OtlpForwarder() { Shutdown(absl::ZeroDuration()); }

bool OtlpForwarder::Enqueue(const std::string& sid, const std::string& path) {
  uint64_t dropped = 0;
  {
    absl::MutexLock lock(&mu_);
    if (!stopping_ && queue_.size() < capacity_) {
      queue_.push_back({sid, path});
      return true;
    }
    dropped = ++stats_.dropped;
  }
  if (IsPowerOfTen(dropped)) {
    log_(absl::StrCat("OTLP queue full (", capacity_, " processes waiting for ", url(),
                      "): process ", sid, " not forwarded (its trace stays in ", path, "); ",
                      dropped, dropped == 1 ? " process" : " processes", " dropped so far"));
  }
  return false;
}

void OtlpForwarder::Work() {
  while (true) {
    Item item;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](OtlpForwarder* f) { return !f->queue_.empty() || f->stopping_; }, this));
      if (queue_.empty()) return;  // stopping
      item = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    Forward(item);
    absl::MutexLock lock(&mu_);
    busy_ = false;
  }
}

void OtlpForwarder::Forward(const Item& item) {
  const OtlpTotals before = sender_->totals();
  bool readable = true;
  reader::ReaderOptions options;
  options.salvage = true;  // send what validates, even of a damaged file
  absl::StatusOr<std::unique_ptr<reader::Reader>> reader =
      reader::Reader::OpenFile(item.path, options);
  if (!reader.ok()) {
    readable = false;
    log_(absl::StrCat("OTLP: process ", item.sid, " not forwarded: ", reader.status().message()));
  } else {
    std::unique_ptr<targets::Formatter> formatter = targets::MakeOtlpFormatter({});
    std::string out;
    while (true) {
      absl::StatusOr<const reader::Event*> event = (*reader)->Next();
      if (!event.ok() || *event == nullptr) break;
      formatter->Write(**event, &out);
      if (out.size() >= kChunk) {
        sender_->Add(out);
        out.clear();
      }
    }
    formatter->Finish(&out);
    sender_->Add(out);
    if (!(*reader)->loss_report().errors.empty()) readable = false;
  }
  sender_->Flush();
  const OtlpTotals& after = sender_->totals();
  const bool delivered = readable && after.failed_requests == before.failed_requests &&
                         after.rejected_spans == before.rejected_spans;
  absl::MutexLock lock(&mu_);
  stats_.totals = after;
  if (!readable) ++stats_.unreadable;
  if (delivered) {
    ++stats_.forwarded;
  } else {
    ++stats_.failed;
  }
}

void OtlpForwarder::Shutdown(absl::Duration drain) {
  if (joined_) return;
  {
    absl::MutexLock lock(&mu_);
    const auto idle = +[](OtlpForwarder* f) { return f->queue_.empty() && !f->busy_; };
    mu_.AwaitWithTimeout(absl::Condition(idle, this), drain);
    stopping_ = true;
    if (!queue_.empty() || busy_) {
      log_(absl::StrCat("OTLP: stopping with ", queue_.size() + (busy_ ? 1 : 0),
                        " processes not forwarded to ", url()));
    }
    stats_.failed += queue_.size();
    queue_.clear();
  }
  exporter_->Cancel();  // ends the request in progress, if any
  worker_.join();
  joined_ = true;
}

OtlpForwarderStats OtlpForwarder::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

}  // namespace tracewire::tools
