#include "tools/commands/decode_stripes.h"

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "reader/event_window.h"

namespace tracewire::tools {
namespace {

uint64_t StripeEvents() {
  uint64_t events = 0;
  const char* env = std::getenv("TRACEWIRE_DECODE_STRIPE_EVENTS");
  if (env != nullptr && absl::SimpleAtoi(env, &events) && events > 0) return events;
  return kDefaultStripeEvents;
}

// One stripe's text, handed from a worker thread to the output.
struct Stripe {
  std::string text;
  bool last = false;        // the stripe after the last event (or a thread's end marker)
  uint64_t events = 0;      // events read up to the stripe's end
  uint64_t bytes_read = 0;  // input bytes read by then
};

// A worker thread: reads the whole input, writes its own stripes into a bounded queue.
class Worker {
 public:
  Worker(const DecodeOptions& options, int index, int workers, uint64_t stripe_events,
         TraceInput* input)
      : options_(options),
        index_(index),
        workers_(workers),
        stripe_events_(stripe_events),
        input_(input) {}

  // Runs on the worker's thread.
  void Run() {
    if (input_ == nullptr) {
      reader::ReaderOptions reader_options;
      reader_options.salvage = options_.salvage;
      absl::StatusOr<std::unique_ptr<TraceInput>> opened =
          TraceInput::Open(options_.input, reader_options, /*keep_stdin=*/false);
      if (!opened.ok()) {
        open_error_ = opened.status();
        End(/*finish=*/false);
        return;
      }
      own_input_ = std::move(*opened);
      input_ = own_input_.get();
    }
    formatter_ = *targets::MakeFormatter(options_.format, options_.formatter);
    if (options_.window.active()) window_.emplace(options_.window);
    Read();
  }

  // The next stripe this worker wrote (waits for it); after the `last` one, more `last`
  // ones.
  Stripe Take() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !queue_.empty(); });
    Stripe stripe = std::move(queue_.front());
    if (!stripe.last) queue_.pop_front();
    cv_.notify_all();
    return stripe;
  }

  // Makes the worker stop at its next stripe.
  void Cancel() {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    cv_.notify_all();
  }

  const absl::Status& open_error() const { return open_error_; }
  const absl::Status& trace_error() const { return trace_error_; }

 private:
  bool Mine(uint64_t event_index) const {
    return (event_index / stripe_events_) % static_cast<uint64_t>(workers_) ==
           static_cast<uint64_t>(index_);
  }

  void Read() {
    // A context-free formatter has no state to keep: others' stripes are passed over
    // without being decoded in full.
    const bool pass_over = formatter_->context_free() && !window_.has_value();
    std::string* text = &current_.text;
    auto write = [&](const reader::Event& e) { formatter_->Write(e, text); };
    auto skip = [&](const reader::Event& e) { formatter_->Skip(e); };
    while (true) {
      const bool mine = Mine(index_read_);
      if (!mine && pass_over) {
        const uint64_t to_next = stripe_events_ - index_read_ % stripe_events_;
        absl::StatusOr<uint64_t> passed = input_->SkipEvents(to_next);
        if (!passed.ok()) {
          trace_error_ = passed.status();
          break;
        }
        if (*passed == 0) break;
        index_read_ += *passed;
        continue;
      }
      absl::StatusOr<const reader::Event*> event = input_->Next();
      if (!event.ok()) {
        trace_error_ = event.status();
        break;
      }
      if (*event == nullptr) break;
      if (window_.has_value()) {
        // Past the window's end nothing more is written: stop reading.
        const bool more = mine ? window_->Add(**event, write) : window_->Add(**event, skip);
        if (!more) break;
      } else if (mine) {
        formatter_->Write(**event, text);
      } else {
        formatter_->Skip(**event);
      }
      ++index_read_;
      if (mine && index_read_ % stripe_events_ == 0 && !Push(/*last=*/false)) return;
    }
    End(/*finish=*/trace_error_.ok());
  }

  // Queues the stripe being written; false if cancelled.
  bool Push(bool last) {
    current_.last = last;
    current_.events = index_read_;
    current_.bytes_read = input_ != nullptr ? input_->bytes_read() : 0;
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return cancelled_ || queue_.size() < kQueuedStripes; });
    if (cancelled_) return false;
    queue_.push_back(std::move(current_));
    current_ = Stripe();
    cv_.notify_all();
    return true;
  }

  // At the end of the read: the owner of the stripe after the last event writes Finish's
  // output into it; every thread then queues an end marker.
  void End(bool finish) {
    if (formatter_ != nullptr && Mine(index_read_)) {
      if (finish) formatter_->Finish(&current_.text);
    } else {
      current_.text.clear();
    }
    Push(/*last=*/true);
  }

  const DecodeOptions& options_;
  const int index_;
  const int workers_;
  const uint64_t stripe_events_;
  TraceInput* input_;
  std::unique_ptr<TraceInput> own_input_;
  std::unique_ptr<targets::Formatter> formatter_;
  std::optional<reader::EventWindow> window_;
  uint64_t index_read_ = 0;  // events read
  Stripe current_;
  absl::Status open_error_;
  absl::Status trace_error_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Stripe> queue_;
  bool cancelled_ = false;
};

}  // namespace

bool DecodesInStripes(const DecodeOptions& options, int jobs, const targets::Formatter& formatter) {
  return jobs >= 2 && !options.follow && options.input != "-" && formatter.skips_cheaply();
}

StripedResult DecodeInStripes(const DecodeOptions& options, int jobs, TraceInput* input,
                              DecodeOutput* out, Progress* progress) {
  const uint64_t stripe_events = StripeEvents();
  std::vector<std::unique_ptr<Worker>> workers;
  for (int w = 0; w < jobs; ++w) {
    workers.push_back(
        std::make_unique<Worker>(options, w, jobs, stripe_events, w == 0 ? input : nullptr));
  }
  std::vector<std::thread> threads;
  for (const std::unique_ptr<Worker>& worker : workers) {
    threads.emplace_back([w = worker.get()] { w->Run(); });
  }
  StripedResult result;
  for (uint64_t s = 0;; ++s) {
    Worker& worker = *workers[s % workers.size()];
    Stripe stripe = worker.Take();
    if (stripe.last) {
      result.open_error = worker.open_error();
      result.trace_error = worker.trace_error();
    }
    if (!stripe.text.empty()) {
      result.write_error = out->Write(stripe.text);
      if (!result.write_error.ok()) break;
    }
    progress->Report(stripe.bytes_read, input->total_bytes(), stripe.events);
    if (stripe.last) break;
  }
  for (const std::unique_ptr<Worker>& worker : workers) worker->Cancel();
  for (std::thread& thread : threads) thread.join();
  // A thread that could not open the input names the error (the others may have read on).
  for (const std::unique_ptr<Worker>& worker : workers) {
    if (!worker->open_error().ok() && result.open_error.ok()) {
      result.open_error = worker->open_error();
    }
  }
  return result;
}

}  // namespace tracewire::tools
