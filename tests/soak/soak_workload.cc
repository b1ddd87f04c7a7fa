// The traced program of the soak test (soak_test.cc): THREADS threads record at full
// speed for SECONDS seconds, each event countable. Tracing is set up from the environment
// (TRACEWIRE, TRACEWIRE_FLIGHT_RECORDER, TRACEWIRE_COMPRESS, ...).
//
//   soak_workload THREADS SECONDS DUMP_EVERY_MS EVENTS_PER_MS TAG
//
// Thread i names itself "soak<i>" (the runtime makes it "thNN:soak<i>") and records
// `data` events with category "soak", key "seq" and the values 0, 1, 2, ... in order, so a
// reader finds every missing event: as fast as they can with EVENTS_PER_MS = 0, else about
// that many per millisecond each (a busy program rather than a benchmark). With DUMP_EVERY_MS > 0
// (flight-recorder mode), the main thread calls tw_flight_recorder_dump() that often, and once more
// after the threads have ended, so the last dump holds the end of every thread. TAG is only
// recorded (in the `start` event's argv) to tell runs apart.
//
// At the end it prints, on stdout, one line per thread, "thread soak<i> events <n>", and
// one line "dumps <ok> <failed>".
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "tracewire/tracewire.h"

namespace {

std::atomic<bool> g_stop{false};

// Records seq events until g_stop, `per_ms` per millisecond (0: at full speed); returns
// how many.
uint64_t RecordUntilStopped(int index, int per_ms) {
  const std::string name = "soak" + std::to_string(index);
  tw_thread_start(name.c_str());
  uint64_t seq = 0;
  while (!g_stop.load(std::memory_order_relaxed)) {
    // 256 events between two looks at the flag.
    for (int i = 0; i < 256; ++i) {
      tw_data_intmax("soak", TW_NO_REPO, "seq", static_cast<intmax_t>(seq));
      ++seq;
    }
    if (per_ms > 0) std::this_thread::sleep_for(std::chrono::microseconds(256 * 1000 / per_ms));
  }
  tw_thread_exit();
  return seq;
}

}  // namespace

int main(int argc, const char** argv) {
  tw_initialize_clock();
  if (argc != 6) {
    std::fprintf(stderr, "usage: soak_workload THREADS SECONDS DUMP_EVERY_MS EVENTS_PER_MS TAG\n");
    return 2;
  }
  const int threads = std::atoi(argv[1]);
  const int seconds = std::atoi(argv[2]);
  const int dump_every_ms = std::atoi(argv[3]);
  const int events_per_ms = std::atoi(argv[4]);
  tw_initialize();
  tw_cmd_start(argv);

  std::vector<uint64_t> counts(threads, 0);
  std::vector<std::thread> workers;
  for (int i = 0; i < threads; ++i) {
    workers.emplace_back(
        [i, events_per_ms, &counts] { counts[i] = RecordUntilStopped(i, events_per_ms); });
  }
  int dumps_ok = 0;
  int dumps_failed = 0;
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::seconds(seconds);
  auto next_dump = start + std::chrono::milliseconds(dump_every_ms);
  while (std::chrono::steady_clock::now() < end) {
    if (dump_every_ms > 0 && std::chrono::steady_clock::now() >= next_dump) {
      (tw_flight_recorder_dump() == 0 ? dumps_ok : dumps_failed) += 1;
      next_dump += std::chrono::milliseconds(dump_every_ms);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  g_stop.store(true);
  for (std::thread& worker : workers) worker.join();
  if (dump_every_ms > 0) (tw_flight_recorder_dump() == 0 ? dumps_ok : dumps_failed) += 1;
  for (int i = 0; i < threads; ++i) {
    std::printf("thread soak%d events %llu\n", i, static_cast<unsigned long long>(counts[i]));
  }
  std::printf("dumps %d %d\n", dumps_ok, dumps_failed);
  std::fflush(stdout);
  return tw_cmd_exit(0);
}
