#include "runtime/flight_recorder.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <mutex>

#include "absl/strings/string_view.h"
#include "runtime/generation_trailer.h"
#include "runtime/generation_writer.h"
#include "runtime/recorder.h"
#include "runtime/session.h"
#include "runtime/text.h"

namespace tracewire::runtime {
namespace {

// The smallest generation size limit a flight recorder sets (see ConfigureFlightRecorder).
constexpr uint64_t kMinFlightGenerationBytes = 64 * 1024;
// How many cuts a dump makes at most to end with a kept generation (see FlightRecorderDump).
constexpr int kDumpCutAttempts = 3;

// True unless the newest generation closed so far is missing from the ring (dropped).
// Requires advance_mu.
bool NewestClosedGenerationKept(const Session& s) {
  // acquire, as every reader of the word (advance_mu orders the cuts' stores here anyway).
  const uint64_t word = g_gen_word.load(std::memory_order_acquire);
  if ((word & kClosed) != 0) return true;  // no generation can be cut any more
  const uint64_t newest_closed = (word >> 2) - 1;
  if (newest_closed == 0) return true;
  const size_t kept = s.flight_ring.size();
  return kept != 0 && s.flight_ring.Get(kept - 1).gen == newest_closed;
}

void DumpSignalHandler(int) {
  Session& s = GetSession();
  // After fork() the child shares the parent's eventfd: never wake the parent's dumper.
  if (getpid() != static_cast<pid_t>(s.pid)) return;
  RequestFlightRecorderDump();
}

// Waits for dump requests and performs them, off the program's threads.
void DumperLoop() {
  Session& s = GetSession();
  for (;;) {
    uint64_t requests = 0;
    const ssize_t n = read(s.flight_wake_fd, &requests, sizeof(requests));
    if (n < 0 && errno == EINTR) continue;
    if (n != sizeof(requests)) return;
    // A dump requested just before the exit is still written.
    // acquire (both), pairs with the release stores before the eventfd write that woke
    // this thread: the flags are seen. They publish nothing else (a dump takes advance_mu).
    if (s.flight_dump_pending.exchange(false, std::memory_order_acquire)) FlightRecorderDump();
    if (s.flight_dumper_stop.load(std::memory_order_acquire)) return;
  }
}

// Writes `entry` to a datagram socket (one frame per datagram) or appends it to `pieces`.
bool WriteEntry(Session& s, const FlightRing::Entry& entry) {
  if (s.destination.is_datagram()) {
    return WriteFramesAsDatagrams(entry.bytes, entry.bytes + entry.size, s.destination);
  }
  return s.destination.Write(entry.bytes, entry.size);
}

}  // namespace

int ParseFlightSignal(const char* value) {
  if (value == nullptr) return 0;
  std::string name = AsciiStrToUpper(StripAsciiWhitespace(value));
  if (StartsWith(name, "SIG")) name = name.substr(3);
  if (name == "USR1" || name == std::to_string(SIGUSR1)) return SIGUSR1;
  if (name == "USR2" || name == std::to_string(SIGUSR2)) return SIGUSR2;
  return 0;
}

bool ConfigureFlightRecorder(Session& s, const tw_settings& settings) {
  if (settings.flight_recorder_bytes == 0) return true;
  if (!s.flight_ring.Init(settings.flight_recorder_bytes)) return false;
  s.destination.SetFilePerDump(true);
  s.flight_signal = settings.flight_signal == SIGUSR1 || settings.flight_signal == SIGUSR2
                        ? settings.flight_signal
                        : 0;
  s.flight_on_error = settings.flight_on_error != 0;
  // A generation is cut once it holds a quarter of the ring, so that the ring keeps
  // several whole generations whatever the event rate.
  s.generation_bytes = std::min<uint64_t>(
      s.generation_bytes,
      std::max<uint64_t>(settings.flight_recorder_bytes / 4, kMinFlightGenerationBytes));
  // The pool's pre-faulted reserve: half a generation rather than the streaming default
  // (2 MiB, refilled to 4 MiB), so that a small ring keeps the process small.
  s.pool.SetLowWater(s.generation_bytes / kBufferSize / 2);
  return true;
}

void StartFlightRecorder(Session& s) {
  if (!s.flight_ring.enabled()) return;
  s.flight_wake_fd = eventfd(0, EFD_CLOEXEC);
  if (s.flight_wake_fd < 0) return;
  s.flight_dumper_stop.store(false, std::memory_order_relaxed);  // relaxed: before the thread
  sigset_t all;
  sigset_t previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  s.flight_dumper = std::thread(DumperLoop);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (s.flight_signal != 0) {
    struct sigaction current;
    // Like the fatal-signal handlers: never replace the program's own handler.
    if (sigaction(s.flight_signal, nullptr, &current) == 0 && current.sa_handler == SIG_DFL &&
        (current.sa_flags & SA_SIGINFO) == 0) {
      struct sigaction action {};
      action.sa_handler = DumpSignalHandler;
      sigemptyset(&action.sa_mask);
      action.sa_flags = SA_RESTART;
      sigaction(s.flight_signal, &action, nullptr);
    } else {
      fprintf(stderr,
              "warning: tracewire: the program handles signal %d itself; "
              "TRACEWIRE_FLIGHT_SIGNAL is ignored\n",
              s.flight_signal);
    }
  }
}

void StopFlightRecorder(Session& s) {
  if (!s.flight_dumper.joinable()) return;
  s.flight_dumper_stop.store(true, std::memory_order_release);  // release: see DumperLoop
  const uint64_t one = 1;
  const ssize_t ignored = write(s.flight_wake_fd, &one, sizeof(one));
  (void)ignored;
  s.flight_dumper.join();
}

void RequestFlightRecorderDump() {
  Session& s = GetSession();
  if (s.flight_wake_fd < 0) return;
  const int saved = errno;
  s.flight_dump_pending.store(true, std::memory_order_release);  // release: see DumperLoop
  const uint64_t one = 1;
  const ssize_t ignored = write(s.flight_wake_fd, &one, sizeof(one));
  (void)ignored;
  errno = saved;
}

void NoteErrorForFlightRecorder() {
  Session& s = GetSession();
  // relaxed: a one-shot latch, publishes nothing.
  if (s.flight_on_error && !s.flight_error_seen.exchange(true, std::memory_order_relaxed)) {
    RequestFlightRecorderDump();
  }
}

bool BeginFlightDumpLocked(Session& s) {
  // relaxed: a count, under advance_mu.
  const uint64_t number = s.flight_dumps.fetch_add(1, std::memory_order_relaxed) + 1;
  if (s.destination.file_per_dump() &&
      !s.destination.OpenDumpFile(number, s.file_header, sizeof(s.file_header))) {
    return false;
  }
  if (!BeginGenerationOutput(s)) return false;
  // A file per dump holds every kept generation; a stream (file, fd, socket) receives each
  // generation at most once, so that several dumps appended to one stream read as one
  // trace (with gaps).
  const uint64_t after = s.destination.file_per_dump() ? 0 : s.flight_dumped_gen;
  for (size_t i = 0; i < s.flight_ring.size(); ++i) {
    const FlightRing::Entry entry = s.flight_ring.Get(i);
    if (entry.gen <= after) continue;
    if (!WriteEntry(s, entry)) return false;
    s.flight_dumped_gen = std::max(s.flight_dumped_gen, entry.gen);
  }
  return true;
}

void EndFlightDumpLocked(Session& s) { s.destination.CloseDumpFile(); }

int FlightRecorderDump() {
  Session& s = GetSession();
  if (!s.flight_ring.enabled() || s.forked_child || getpid() != static_cast<pid_t>(s.pid)) {
    return -1;
  }
  if (s.emergency.load(std::memory_order_relaxed)) return -1;  // relaxed: a latch
  AdvanceLock advance_lock(s);
  // The generation being filled joins the ring first (the threads wait only for this cut).
  AdvanceGenerationLocked(/*final=*/false);
  // If the newest generation closed was dropped (it outgrew its memory limit or the ring),
  // by this cut or by an earlier one with nothing recorded since, the dump would end with
  // an older generation and hide the loss of the newest events. One more cut, of what was
  // recorded meanwhile and at least the threads' re-statements, makes the dropped number a
  // gap the reader reports. That one is small; it is tried a few times.
  for (int attempt = 1; attempt < kDumpCutAttempts && !NewestClosedGenerationKept(s); ++attempt) {
    AdvanceGenerationLocked(/*final=*/false, /*even_if_empty=*/true);
  }
  const bool ok = BeginFlightDumpLocked(s);
  EndFlightDumpLocked(s);
  return ok ? 0 : -1;
}

}  // namespace tracewire::runtime
