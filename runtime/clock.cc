#include "runtime/clock.h"

#include <cstdlib>
#include <cstring>

#include "runtime/startup_path.h"

namespace tracewire::runtime {

TRACEWIRE_STARTUP_DATA bool g_clock_is_counter = false;

namespace {

TRACEWIRE_STARTUP_DATA bool g_clock_source_chosen = false;
TRACEWIRE_STARTUP_DATA bool g_clock_initialized = false;  // the calibration origin is set
TRACEWIRE_STARTUP_DATA uint64_t g_origin_ticks = 0;
TRACEWIRE_STARTUP_DATA uint64_t g_origin_mono = 0;
TRACEWIRE_STARTUP_DATA int64_t g_last_utc_offset = 0;

TRACEWIRE_STARTUP_DATA char g_clock_variable[] = "TRACEWIRE_CLOCK";

TRACEWIRE_STARTUP_PATH bool MonotonicClockRequested() {
  const char* choice = getenv(g_clock_variable);
  return choice != nullptr && strcmp(choice, "monotonic") == 0;
}

}  // namespace

TRACEWIRE_STARTUP_PATH uint64_t MonotonicNanos() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + ts.tv_nsec;
}

void InitClockSource() {
  if (g_clock_source_chosen) return;
  g_clock_is_counter = counter::kAvailable && !MonotonicClockRequested() && counter::Usable();
  g_clock_source_chosen = true;
}

TRACEWIRE_STARTUP_PATH StartInstant ReadStartInstant() {
  StartInstant instant;
  instant.is_counter = counter::kAvailable && !MonotonicClockRequested();
  instant.ticks = instant.is_counter ? counter::Read() : MonotonicNanos();
  return instant;
}

uint64_t TraceTicksAt(const StartInstant& instant) {
  return instant.is_counter == g_clock_is_counter ? instant.ticks : ReadTicks();
}

void InitClock() {
  InitClockSource();
  if (g_clock_initialized) return;
  g_origin_mono = MonotonicNanos();
  g_origin_ticks = ReadTicks();
  g_clock_initialized = true;
}

uint64_t TicksPerSecond() {
  if (!g_clock_is_counter) return 1'000'000'000u;
  uint64_t mono = MonotonicNanos();
  if (mono - g_origin_mono < 1'000'000u) {
    const uint64_t nominal = counter::NominalRate();
    if (nominal != 0) return nominal;
    while (mono - g_origin_mono < 1'000'000u) mono = MonotonicNanos();  // >= 1 ms of data
  }
  const uint64_t ticks = ReadTicks();
  const double rate =
      static_cast<double>(ticks - g_origin_ticks) * 1e9 / static_cast<double>(mono - g_origin_mono);
  return static_cast<uint64_t>(rate + 0.5);
}

format::ClockSync TakeClockSync(bool signal_safe) {
  format::ClockSync sync;
  sync.freq = TicksPerSecond();
  // Read the three clocks as close together as possible: bracket the wall clock read.
  timespec wall;
  const uint64_t mono_before = MonotonicNanos();
  const uint64_t ticks = ReadTicks();
  clock_gettime(CLOCK_REALTIME, &wall);
  const uint64_t mono_after = MonotonicNanos();
  sync.trace_time = ticks;
  sync.mono_ns = mono_before + (mono_after - mono_before) / 2;
  sync.wall_sec = wall.tv_sec;
  sync.wall_nsec = wall.tv_nsec;
  if (!signal_safe) {
    tm local;
    const time_t now = wall.tv_sec;
    localtime_r(&now, &local);  // tm_gmtoff: seconds east of UTC
    g_last_utc_offset = local.tm_gmtoff;
  }
  sync.utc_offset_sec = g_last_utc_offset;
  return sync;
}

}  // namespace tracewire::runtime
