// threadpool: one request's story across threads, traced with tracewire's tasks and gauges.
//
// An acceptor thread begins a task per request (tracewire::Task) and queues it; one of four
// workers adopts it (tracewire::TaskScope), computes, and queues it for the writer thread,
// which adopts it, "writes" and ends it. Every request so crosses three threads; regions
// recorded while a thread works for a request belong to it. Gauges sample the depth of
// both queues and the requests in flight at every change. The "debug" category holds a
// costly check that production filters out: TRACEWIRE_CATEGORIES=-debug drops its events,
// and tw_category_enabled() skips computing it.
//
// usage: threadpool [REQUESTS [ROUNDS]]   (defaults 2000 and 64); prints the number of requests
// and a checksum. ROUNDS is the mixing rounds of a worker's compute stage per request: a larger
// value makes that stage (and only it) slower.
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tracewire/tracewire.h"
#include "tracewire/tracewire.hpp"

namespace {

constexpr int kWorkers = 4;

struct Request {
  int number = 0;
  uint64_t value = 0;
  tracewire::Task task;  // travels with the request from thread to thread
};

// A blocking queue whose depth is a gauge.
class Queue {
 public:
  explicit Queue(const char* gauge_name) : gauge_(tw_gauge_define("queue", gauge_name, "items")) {}

  void Push(Request request) {
    std::lock_guard<std::mutex> lock(mu_);
    items_.push_back(std::move(request));
    tw_gauge_set(gauge_, static_cast<int64_t>(items_.size()));
    ready_.notify_one();
  }
  // The next request, or nothing once closed and empty.
  std::optional<Request> Pop() {
    std::unique_lock<std::mutex> lock(mu_);
    ready_.wait(lock, [this] { return closed_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    Request request = std::move(items_.front());
    items_.pop_front();
    tw_gauge_set(gauge_, static_cast<int64_t>(items_.size()));
    return request;
  }
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    ready_.notify_all();
  }

 private:
  int gauge_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<Request> items_;
  bool closed_ = false;
};

uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

}  // namespace

int main(int argc, const char** argv) {
  tw_initialize_clock();
  tw_initialize();
  tw_cmd_start(argv);
  const int requests = argc > 1 ? std::atoi(argv[1]) : 2000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 64;
  if (requests <= 0 || rounds <= 0) {
    std::fprintf(stderr, "usage: threadpool [REQUESTS [ROUNDS]]\n");
    return tw_cmd_exit(2);
  }
  Queue work("work-depth");
  Queue done("write-depth");
  const int in_flight_gauge = tw_gauge_define("server", "in-flight", "requests");
  std::mutex in_flight_mu;
  int64_t in_flight = 0;
  auto change_in_flight = [&](int64_t delta) {
    std::lock_guard<std::mutex> lock(in_flight_mu);
    in_flight += delta;
    tw_gauge_set(in_flight_gauge, in_flight);
  };

  std::thread acceptor([&] {
    tracewire::ThreadScope thread("acceptor");
    for (int i = 0; i < requests; ++i) {
      Request request;
      request.number = i;
      request.task = tracewire::Task("server", "request");
      {
        tracewire::TaskScope working(request.task);
        tracewire::RegionScope region("server", "accept");
        request.value = Mix(static_cast<uint64_t>(i) + 1);
      }
      change_in_flight(+1);
      work.Push(std::move(request));
    }
    work.Close();
  });

  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&] {
      tracewire::ThreadScope thread("worker");
      while (std::optional<Request> request = work.Pop()) {
        {
          tracewire::TaskScope working(request->task);
          tw_region_enter("work", "compute", TW_NO_REPO);
          for (int round = 0; round < rounds; ++round) request->value = Mix(request->value);
          if (tw_category_enabled("debug")) {
            // A costly self-check only a debugging session records.
            tw_region_enter("debug", "verify", TW_NO_REPO);
            tw_data_intmax("debug", TW_NO_REPO, "value-bits",
                           static_cast<intmax_t>(__builtin_popcountll(request->value)));
            tw_region_leave("debug", "verify", TW_NO_REPO);
          }
          tw_region_leave("work", "compute", TW_NO_REPO);
        }
        done.Push(std::move(*request));
      }
    });
  }

  uint64_t checksum = 0;
  int written = 0;
  std::thread writer([&] {
    tracewire::ThreadScope thread("writer");
    while (std::optional<Request> request = done.Pop()) {
      tracewire::TaskScope working(request->task);
      {
        tracewire::RegionScope region("server", "write");
        checksum += request->value;
        ++written;
      }
      request->task.End();  // the request is done: on this thread, as it may be on any
      change_in_flight(-1);
    }
  });

  acceptor.join();
  for (std::thread& worker : workers) worker.join();
  done.Close();
  writer.join();
  std::printf("%d requests, checksum %016llx\n", written,
              static_cast<unsigned long long>(checksum));
  return tw_cmd_exit(0);
}
