// The soak test: tracewire under sustained load for about a minute, every step bounded in
// time (and the workload's memory: past kMaxRssKb it is killed).
//
//   * A flight-recorder process (soak_workload, 8 threads recording at full speed, small
//     generations, compressed; uncompressed with SOAK_FLIGHT_COMPRESS=0) runs for kSeconds and
//     dumps every second through tw_flight_recorder_dump(), plus on SIGUSR2 every few seconds. Its
//     RSS is sampled every second; after a warm-up, the slope of a least-squares line through the
//     samples must stay below kMaxRssSlopeKbPerMin.
//   * Meanwhile short streaming processes (2 busy threads each, compression on) are started
//     every second against a `tracewire listen` collector, which is restarted twice while
//     they stream to it.
//
// Then every dump and every collected file must validate, and every event the workloads
// recorded (each thread counts its events: `data` soak/seq = 0, 1, 2, ...) must either be
// there, in order, or be missing where the runtime says something was lost:
//   * in the dumps, only across generation numbers that no dump holds (a generation the
//     ring dropped: evicted before a dump, or too large to keep; or one the runtime dropped
//     because it outgrew its memory limit before it was cut);
//   * in a collected file, only across a generation number the file skips (the same memory
//     limit), or at the end, and only for a process that the runtime's warning ("tracing is
//     off") says lost its destination: by a write timeout, or while the collector restarted.
// The figures (RSS slope, dumps, events, losses) go to the test log.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "reader/event.h"
#include "reader/reader.h"

namespace tracewire::soak {
namespace {

using reader::Event;
using reader::EventKind;
using reader::Reader;

// How long the flight-recorder process records, and its threads.
constexpr int kSeconds = 60;
constexpr int kFlightThreads = 8;
// Its RSS samples before this are the warm-up: the ring's pages being touched and the
// buffers reaching their high-water mark.
constexpr absl::Duration kWarmUp = absl::Seconds(30);
// The bound on the RSS slope from the warm-up to the end of the recording. The ring is
// mapped once and the buffers are recycled, but at full speed their high-water mark still
// rises in steps of 1-3 MiB until about 50 s in (then stays flat: 3 minutes of the same
// workload end at the RSS of 50 s), which a 30-second window sees as up to about 8 MB/min.
// So this bound catches leaks of more than about 270 KiB per second, not slow ones.
constexpr double kMaxRssSlopeKbPerMin = 16384;
// Far above what the process needs (the ring, the generation being filled and the batches:
// under 100 MiB): past it, the workload is killed at once and the test fails, so that
// runaway memory cannot exhaust the machine.
constexpr int64_t kMaxRssKb = 1 << 20;
// Streaming processes: one started every second, each recording this long, each thread
// about this many events per millisecond (a busy program; the collector must keep up).
constexpr int kStreamThreads = 2;
constexpr int kStreamSeconds = 2;
constexpr int kStreamEventsPerMs = 200;
// The collector is restarted at these offsets from the start.
const absl::Duration kRestarts[] = {absl::Seconds(20), absl::Seconds(40)};
// SIGUSR2 (a dump requested by signal) at this interval.
constexpr absl::Duration kSignalEvery = absl::Seconds(7);
// Bounds on waiting for a process to end after it should have.
constexpr absl::Duration kExitGrace = absl::Seconds(30);

// The flight recorder compresses its generations (TRACEWIRE_COMPRESS=1) unless
// SOAK_FLIGHT_COMPRESS=0 (e.g. bazel test --test_env=SOAK_FLIGHT_COMPRESS=0).
bool FlightCompress() {
  const char* value = getenv("SOAK_FLIGHT_COMPRESS");
  return value == nullptr || std::string(value) != "0";
}

std::string Runfile(const std::string& path) {
  const char* dir = getenv("TEST_SRCDIR");
  const char* workspace = getenv("TEST_WORKSPACE");
  return absl::StrCat(dir == nullptr ? "." : dir, "/",
                      workspace == nullptr ? "tracewire" : workspace, "/", path);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A child process, its output in files.
struct Child {
  pid_t pid = -1;
  std::string out;  // stdout file
  std::string err;  // stderr file
  absl::Time started;
  std::optional<int> status;  // once reaped
  absl::Time ended;
};

Child Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
            const std::string& log_prefix) {
  Child child;
  child.out = log_prefix + ".out";
  child.err = log_prefix + ".err";
  child.started = absl::Now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int out = open(child.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(child.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 1);
    dup2(err, 2);
    for (const std::string& setting : env) putenv(strdup(setting.c_str()));
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  child.pid = pid;
  return child;
}

// Reaps `child` if it has ended; true if it has.
bool Poll(Child& child) {
  if (child.status.has_value()) return true;
  int status = 0;
  if (waitpid(child.pid, &status, WNOHANG) == child.pid) {
    child.status = status;
    child.ended = absl::Now();
    return true;
  }
  return false;
}

// Waits up to `timeout` for `child` to end; kills it (and fails) otherwise.
void WaitBounded(Child& child, absl::Duration timeout, const std::string& what) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!Poll(child)) {
    if (absl::Now() > deadline) {
      ADD_FAILURE() << what << " (pid " << child.pid << ") did not end within " << timeout
                    << "; killed";
      kill(child.pid, SIGKILL);
      int status = 0;
      waitpid(child.pid, &status, 0);
      child.status = status;
      child.ended = absl::Now();
      return;
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
}

// Kills and reaps `child` if it is still running (a test that stops early leaves nothing
// behind).
void KillIfRunning(Child& child) {
  if (child.pid <= 0 || Poll(child)) return;
  kill(child.pid, SIGKILL);
  int status = 0;
  waitpid(child.pid, &status, 0);
  child.status = status;
  child.ended = absl::Now();
}

bool ExitedZero(const Child& child) {
  return child.status.has_value() && WIFEXITED(*child.status) && WEXITSTATUS(*child.status) == 0;
}

// VmRSS of `pid` in KiB, or -1.
int64_t RssKb(pid_t pid) {
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(status, line)) {
    if (absl::StartsWith(line, "VmRSS:")) {
      int64_t kb = -1;
      std::string value(absl::StripAsciiWhitespace(absl::StripSuffix(line.substr(6), "kB")));
      if (absl::SimpleAtoi(value, &kb)) return kb;
    }
  }
  return -1;
}

// True when process `pid` has a handler installed for `signo` (its SigCgt mask in
// /proc/PID/status): a signal sent before that would meet the default action.
bool CatchesSignal(pid_t pid, int signo) {
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(status, line)) {
    if (!absl::StartsWith(line, "SigCgt:")) continue;
    uint64_t mask = 0;
    if (!absl::SimpleHexAtoi(absl::StripAsciiWhitespace(line.substr(7)), &mask)) return false;
    return (mask >> (signo - 1)) & 1;
  }
  return false;
}

// The workload's "thread soak<i> events <n>" lines, and its dumps line.
struct WorkloadReport {
  std::map<std::string, uint64_t> events;  // "soak<i>" -> events recorded
  int dumps_ok = 0;
  int dumps_failed = 0;
};

WorkloadReport ParseReport(const std::string& text) {
  WorkloadReport report;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    std::vector<std::string> words = absl::StrSplit(line, ' ');
    uint64_t n = 0;
    if (words.size() == 4 && words[0] == "thread" && absl::SimpleAtoi(words[3], &n)) {
      report.events[words[1]] = n;
    } else if (words.size() == 3 && words[0] == "dumps") {
      EXPECT_TRUE(absl::SimpleAtoi(words[1], &report.dumps_ok));
      EXPECT_TRUE(absl::SimpleAtoi(words[2], &report.dumps_failed));
    }
  }
  return report;
}

// The soak/seq events of one thread within one generation: a contiguous run.
struct SeqRun {
  uint64_t first = 0;
  uint64_t last = 0;
  uint64_t count = 0;
};

// What one trace file holds: per thread ("soak<i>") and generation, its run of seq values.
struct FileContent {
  bool ok = true;
  std::string error;
  std::vector<std::string> argv;  // of the `start` event
  std::map<std::string, std::map<uint64_t, SeqRun>> runs;
  uint64_t events = 0;
  std::set<uint64_t> gens;
  std::set<uint64_t> compressed_gens;  // of those, the ones written compressed
};

// Reads `path` strictly; every seq run must be in order without a gap inside a generation.
FileContent ReadTrace(const std::string& path) {
  FileContent content;
  absl::StatusOr<std::unique_ptr<Reader>> reader = Reader::OpenFile(path);
  if (!reader.ok()) {
    content.ok = false;
    content.error = std::string(reader.status().message());
    return content;
  }
  while (true) {
    absl::StatusOr<const Event*> next = (*reader)->Next();
    if (!next.ok()) {
      content.ok = false;
      content.error = std::string(next.status().message());
      break;
    }
    const Event* event = *next;
    if (event == nullptr) break;
    ++content.events;
    content.gens.insert(event->gen);
    const reader::GenerationInfo* generation = (*reader)->generation();
    if (generation != nullptr && generation->compressed) {
      content.compressed_gens.insert(event->gen);
    }
    if (event->kind == EventKind::kStart) {
      content.argv.clear();
      for (absl::string_view arg : event->argv) content.argv.emplace_back(arg);
    }
    if (event->kind != EventKind::kData || event->category != "soak" || event->label != "seq") {
      continue;
    }
    const absl::string_view name = event->thread_name.substr(event->thread_name.find(':') + 1);
    const uint64_t seq = static_cast<uint64_t>(event->value_int);
    auto [it, fresh] = content.runs[std::string(name)].try_emplace(event->gen, SeqRun{seq, seq, 1});
    if (fresh) continue;
    SeqRun& run = it->second;
    EXPECT_EQ(seq, run.last + 1) << path << ": thread " << name << ", generation " << event->gen
                                 << ": seq out of order";
    run.last = seq;
    ++run.count;
  }
  return content;
}

// Least-squares slope of (seconds, KiB) samples, in KiB per minute.
double SlopeKbPerMin(const std::vector<std::pair<double, double>>& samples) {
  const double n = samples.size();
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [x, y] : samples) {
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double denominator = n * sxx - sx * sx;
  if (denominator == 0) return 0;
  return (n * sxy - sx * sy) / denominator * 60;
}

// The collector, run as `tracewire listen af_unix:SOCKET --out DIR`.
class Collector {
 public:
  Collector(std::string socket, std::string out, std::string logs)
      : socket_(std::move(socket)), out_(std::move(out)), logs_(std::move(logs)) {}

  void Start() {
    unlink(socket_.c_str());
    child_ = Spawn({Runfile("tools/tracewire"), "listen", "af_unix:" + socket_, "--out", out_}, {},
                   absl::StrCat(logs_, "/collector-", ++incarnations_));
    const absl::Time deadline = absl::Now() + absl::Seconds(60);  // a bound on hangs only
    struct stat st;
    while (stat(socket_.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) {
      ASSERT_FALSE(Poll(child_)) << "the collector ended at start: " << ReadFile(child_.err);
      ASSERT_LT(absl::Now(), deadline) << "the collector's socket did not appear";
      absl::SleepFor(absl::Milliseconds(10));
    }
  }

  // SIGTERM, a bounded wait, and its "N unfinished generations dropped" count.
  void Stop() {
    kill(child_.pid, SIGTERM);
    WaitBounded(child_, absl::Seconds(60), "the collector");  // a bound on hangs only
    EXPECT_TRUE(ExitedZero(child_)) << ReadFile(child_.err);
    const std::string out = ReadFile(child_.err);  // what it received, on stderr
    std::fprintf(stderr, "collector %d: %s", incarnations_, out.c_str());
    for (absl::string_view line : absl::StrSplit(out, '\n')) {
      const size_t at = line.find(" unfinished generations dropped");
      if (at == absl::string_view::npos) continue;
      const size_t from = line.rfind(' ', at - 1) + 1;
      uint64_t n = 0;
      EXPECT_TRUE(absl::SimpleAtoi(line.substr(from, at - from), &n)) << line;
      partial_generations_ += n;
    }
  }

  ~Collector() { KillIfRunning(child_); }

  int incarnations() const { return incarnations_; }
  uint64_t partial_generations() const { return partial_generations_; }

 private:
  std::string socket_;
  std::string out_;
  std::string logs_;
  Child child_;
  int incarnations_ = 0;
  uint64_t partial_generations_ = 0;
};

// A streaming process and what it is checked against.
struct Streamer {
  std::string tag;
  Child child;
};

TEST(SoakTest, FlightRecorderAndCollectorUnderLoad) {
  const std::string root =
      absl::StrCat(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", "/soak-", getpid());
  const std::string flight_dir = root + "/flight";
  const std::string collected_dir = root + "/collected";
  const std::string logs = root + "/logs";
  for (const std::string& dir : {flight_dir, collected_dir, logs}) {
    std::filesystem::create_directories(dir);
  }
  // A short path: sun_path holds 108 bytes.
  const std::string socket = absl::StrCat("/tmp/tw-soak-", getpid(), ".sock");
  const std::string workload = Runfile("tests/soak/soak_workload");
  const std::vector<std::string> common_env = {
      "TRACEWIRE_GENERATION_MS=50",
      "TRACEWIRE_GENERATION_BYTES=262144",
  };
  Collector collector(socket, collected_dir, logs);
  ASSERT_NO_FATAL_FAILURE(collector.Start());

  std::vector<std::string> flight_env = common_env;
  flight_env.push_back("TRACEWIRE=" + flight_dir);
  flight_env.push_back("TRACEWIRE_FLIGHT_RECORDER=2M");
  flight_env.push_back("TRACEWIRE_FLIGHT_SIGNAL=USR2");
  // Compression at full speed: threads recording on every core outpace the compression,
  // which gives way to the next cut (the generation is then kept uncompressed).
  flight_env.push_back(absl::StrCat("TRACEWIRE_COMPRESS=", FlightCompress() ? 1 : 0));
  Child flight = Spawn(
      {workload, std::to_string(kFlightThreads), std::to_string(kSeconds), "1000", "0", "flight"},
      flight_env, logs + "/flight");

  std::vector<std::string> stream_env = common_env;
  stream_env.push_back("TRACEWIRE=af_unix:" + socket);
  stream_env.push_back("TRACEWIRE_COMPRESS=1");
  // A destination that cannot be opened (a collector between two incarnations) warns too.
  stream_env.push_back("TRACEWIRE_DST_DEBUG=1");
  std::vector<Streamer> streamers;
  // Whatever happens below, no workload outlives the test.
  struct KillAtEnd {
    Child& flight;
    std::vector<Streamer>& streamers;
    ~KillAtEnd() {
      KillIfRunning(flight);
      for (Streamer& streamer : streamers) KillIfRunning(streamer.child);
    }
  } kill_at_end{flight, streamers};
  // The intervals during which the collector was down (stop begun .. restarted).
  std::vector<std::pair<absl::Time, absl::Time>> outages;

  const absl::Time start = absl::Now();
  std::vector<std::pair<double, double>> rss;  // (seconds since start, KiB)
  absl::Time next_sample = start;
  absl::Time next_stream = start;
  absl::Time next_signal = start + kSignalEvery;
  int signals = 0;
  size_t restarts_done = 0;
  while (!Poll(flight)) {
    const absl::Time now = absl::Now();
    if (now > start + absl::Seconds(kSeconds) + kExitGrace) {
      WaitBounded(flight, absl::ZeroDuration(), "the flight-recorder workload");
      break;
    }
    if (now >= next_sample) {
      const int64_t kb = RssKb(flight.pid);
      if (kb > 0) rss.emplace_back(absl::ToDoubleSeconds(now - start), kb);
      if (kb > kMaxRssKb) {
        ADD_FAILURE() << "the flight-recorder workload's RSS reached " << kb << " KiB after "
                      << now - start << "; killed";
        kill(flight.pid, SIGKILL);
        WaitBounded(flight, absl::Seconds(10), "the flight-recorder workload");
        break;
      }
      next_sample += absl::Seconds(1);
    }
    // A signal goes only to a process whose handler is in place (a starved start can take
    // longer than the interval); one not yet sent is sent at the next poll.
    if (now >= next_signal && now < start + absl::Seconds(kSeconds - 2) &&
        CatchesSignal(flight.pid, SIGUSR2)) {
      kill(flight.pid, SIGUSR2);
      ++signals;
      next_signal += kSignalEvery;
    }
    if (restarts_done < std::size(kRestarts) && now >= start + kRestarts[restarts_done]) {
      const absl::Time down = absl::Now();
      collector.Stop();
      ASSERT_NO_FATAL_FAILURE(collector.Start());
      outages.emplace_back(down, absl::Now());
      ++restarts_done;
    }
    if (now >= next_stream && now < start + absl::Seconds(kSeconds - kStreamSeconds)) {
      const std::string tag = absl::StrCat("stream-", streamers.size());
      streamers.push_back(Streamer{
          tag, Spawn({workload, std::to_string(kStreamThreads), std::to_string(kStreamSeconds), "0",
                      std::to_string(kStreamEventsPerMs), tag},
                     stream_env, logs + "/" + tag)});
      next_stream += absl::Seconds(1);
    }
    for (Streamer& streamer : streamers) Poll(streamer.child);
    absl::SleepFor(absl::Milliseconds(50));
  }
  for (Streamer& streamer : streamers) {
    WaitBounded(streamer.child, absl::Seconds(kStreamSeconds) + kExitGrace, streamer.tag);
  }
  collector.Stop();
  unlink(socket.c_str());
  const double recorded_seconds = absl::ToDoubleSeconds(absl::Now() - start);

  // ---- The flight recorder: RSS. ----
  ASSERT_TRUE(ExitedZero(flight)) << ReadFile(flight.err);
  std::vector<std::pair<double, double>> steady;
  for (const auto& sample : rss) {
    // From the warm-up to the end of the recording (not the threads' exit and last dump).
    if (sample.first >= absl::ToDoubleSeconds(kWarmUp) && sample.first < kSeconds - 1) {
      steady.push_back(sample);
    }
  }
  ASSERT_GE(steady.size(), 20u) << "too few RSS samples after the warm-up";
  const double slope = SlopeKbPerMin(steady);
  double rss_min = steady[0].second, rss_max = steady[0].second;
  for (const auto& sample : steady) {
    rss_min = std::min(rss_min, sample.second);
    rss_max = std::max(rss_max, sample.second);
  }
  std::string series;
  for (const auto& [seconds, kb] : rss) absl::StrAppend(&series, " ", static_cast<int64_t>(kb));
  std::fprintf(stderr, "soak: RSS (KiB) every second:%s\n", series.c_str());
  EXPECT_LE(slope, kMaxRssSlopeKbPerMin) << "RSS grows after the warm-up";

  // ---- The flight recorder: every dump validates; losses only at dropped generations. ----
  const WorkloadReport flight_report = ParseReport(ReadFile(flight.out));
  ASSERT_EQ(flight_report.events.size(), static_cast<size_t>(kFlightThreads))
      << ReadFile(flight.out);
  EXPECT_EQ(flight_report.dumps_failed, 0);
  std::vector<std::string> dumps;
  for (const auto& entry : std::filesystem::directory_iterator(flight_dir)) {
    dumps.push_back(entry.path().string());
  }
  std::sort(dumps.begin(), dumps.end());
  for (const std::string& dump : dumps) {
    EXPECT_TRUE(absl::StrContains(dump, ".flight-")) << "not a dump: " << dump;
  }
  // Every API dump wrote a file; a signal may find a dump in progress and join it.
  EXPECT_GE(dumps.size(), static_cast<size_t>(flight_report.dumps_ok));
  EXPECT_LE(dumps.size(), static_cast<size_t>(flight_report.dumps_ok + signals));
  std::map<std::string, std::map<uint64_t, SeqRun>> kept;  // union of the dumps
  std::set<uint64_t> kept_gens;
  std::set<uint64_t> compressed_gens;
  uint64_t dump_bytes = 0;
  uint64_t dump_events = 0;
  for (const std::string& dump : dumps) {
    const FileContent content = ReadTrace(dump);
    EXPECT_TRUE(content.ok) << dump << ": " << content.error;
    dump_bytes += std::filesystem::file_size(dump);
    dump_events += content.events;
    kept_gens.insert(content.gens.begin(), content.gens.end());
    compressed_gens.insert(content.compressed_gens.begin(), content.compressed_gens.end());
    for (const auto& [thread, runs] : content.runs) {
      for (const auto& [gen, run] : runs) {
        auto [it, fresh] = kept[thread].try_emplace(gen, run);
        if (!fresh) {
          // The same generation in two dumps holds the same events.
          EXPECT_EQ(it->second.first, run.first) << dump << " generation " << gen;
          EXPECT_EQ(it->second.last, run.last) << dump << " generation " << gen;
        }
      }
    }
  }
  ASSERT_FALSE(kept_gens.empty());
  // Generation numbers no dump holds, from 1 to the last one: what the ring dropped.
  std::set<uint64_t> dropped_gens;
  for (uint64_t gen = 1; gen < *kept_gens.rbegin(); ++gen) {
    if (!kept_gens.count(gen)) dropped_gens.insert(gen);
  }
  auto dropped_between = [&](uint64_t after, uint64_t before) {
    auto it = dropped_gens.upper_bound(after);
    return it != dropped_gens.end() && *it < before;
  };
  uint64_t flight_recorded = 0;
  uint64_t flight_missing = 0;
  int threads_missing_end = 0;  // threads whose last events were in a dropped generation
  for (const auto& [thread, recorded] : flight_report.events) {
    flight_recorded += recorded;
    const std::map<uint64_t, SeqRun>& runs = kept[thread];
    uint64_t next_seq = 0;  // the seq expected next
    uint64_t previous_gen = 0;
    uint64_t present = 0;
    for (const auto& [gen, run] : runs) {
      if (run.first != next_seq) {
        EXPECT_GT(run.first, next_seq) << thread << " generation " << gen << ": seq goes back";
        EXPECT_TRUE(dropped_between(previous_gen, gen))
            << thread << ": events " << next_seq << ".." << run.first - 1 << " missing between "
            << "generations " << previous_gen << " and " << gen
            << ", and no generation between them was dropped";
      }
      present += run.count;
      next_seq = run.last + 1;
      previous_gen = gen;
    }
    // The last dump was taken after the threads ended: a thread's last events are in it,
    // unless they were in a generation the ring dropped (cut just before the dump and too
    // large to keep).
    EXPECT_LE(next_seq, recorded) << thread << ": more events than it recorded";
    if (next_seq < recorded) {
      ++threads_missing_end;
      EXPECT_TRUE(dropped_between(previous_gen, *kept_gens.rbegin() + 1))
          << thread << ": events " << next_seq << ".." << recorded - 1 << " missing after "
          << "generation " << previous_gen << ", and no later generation was dropped";
    }
    flight_missing += recorded - present;
  }

  // ---- The collector: every file validates; losses only where the runtime said so. ----
  std::map<std::string, FileContent> collected;  // by tag
  uint64_t collected_bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(collected_dir)) {
    FileContent content = ReadTrace(entry.path().string());
    collected_bytes += std::filesystem::file_size(entry.path());
    EXPECT_TRUE(content.ok) << entry.path() << ": " << content.error;
    ASSERT_EQ(content.argv.size(), 6u) << entry.path() << ": no start event with the tag";
    const std::string tag = content.argv[5];
    EXPECT_EQ(collected.count(tag), 0u) << "two files of " << tag;
    collected[tag] = std::move(content);
  }
  int cut_by_restart = 0;
  int cut_by_timeout = 0;
  uint64_t stream_recorded = 0;
  uint64_t stream_missing = 0;
  int stream_gaps = 0;  // at generation numbers a file skips
  for (const Streamer& streamer : streamers) {
    EXPECT_TRUE(ExitedZero(streamer.child)) << streamer.tag << ": " << ReadFile(streamer.child.err);
    const WorkloadReport report = ParseReport(ReadFile(streamer.child.out));
    ASSERT_EQ(report.events.size(), static_cast<size_t>(kStreamThreads)) << streamer.tag;
    // The runtime's own record of a loss: its one warning, "...; tracing is off", or (with
    // TRACEWIRE_DST_DEBUG) "could not open" when no collector was there at the start.
    const std::string err = ReadFile(streamer.child.err);
    const bool warned = absl::StrContains(err, "; tracing is off") ||
                        absl::StrContains(err, "warning: tracewire: could not open");
    const bool timed_out = absl::StrContains(err, "timed out writing");
    bool across_restart = false;
    for (const auto& [down, up] : outages) {
      if (streamer.child.started < up && streamer.child.ended > down) across_restart = true;
    }
    if (warned && timed_out) {
      ++cut_by_timeout;  // a collector starved of CPU: the documented bounded write
    } else if (warned) {
      ++cut_by_restart;
      EXPECT_TRUE(across_restart) << streamer.tag
                                  << " lost its destination without a collector restart: " << err;
    }
    auto file = collected.find(streamer.tag);
    for (const auto& [thread, recorded] : report.events) {
      stream_recorded += recorded;
      uint64_t present = 0;
      uint64_t skipped_events = 0;  // in generations the file skips
      if (file != collected.end()) {
        uint64_t next_seq = 0;
        uint64_t previous_gen = 0;
        for (const auto& [gen, run] : file->second.runs[thread]) {
          // A generation number the file skips is the runtime's record of a dropped
          // generation (one that outgrew its memory limit).
          const std::set<uint64_t>& gens = file->second.gens;
          const bool skipped =
              gen - previous_gen - 1 != static_cast<uint64_t>(std::distance(
                                            gens.upper_bound(previous_gen), gens.lower_bound(gen)));
          if (run.first != next_seq) {
            EXPECT_TRUE(skipped && run.first > next_seq)
                << streamer.tag << " " << thread << " generation " << gen << ": a gap";
            ++stream_gaps;
            skipped_events += run.first - next_seq;
          }
          next_seq = run.last + 1;
          previous_gen = gen;
          present += run.count;
        }
      }
      if (!warned) {
        EXPECT_EQ(present + skipped_events, recorded)
            << streamer.tag << " " << thread << ": events missing and no warning said so"
            << (across_restart ? " (it streamed across a collector restart)" : "");
      }
      stream_missing += recorded - present;
    }
  }
  EXPECT_LE(collector.partial_generations(), static_cast<uint64_t>(cut_by_restart + cut_by_timeout))
      << "the collector dropped unfinished generations of processes that did not lose it";

  const double minutes = recorded_seconds / 60;
  std::fprintf(
      stderr,
      "soak: %.0f s; flight recorder: %d threads, RSS %.0f..%.0f KiB after %.0f s of warm-up, "
      "slope %+.0f KB/min (bound %.0f); %zu dumps (%d by API, %d signals sent), %llu bytes, "
      "%llu events read, %zu of their %zu generations compressed; %llu events recorded (%.1f "
      "M/s), %llu missing, all in the %zu generations the ring dropped (of %llu; %d threads' "
      "last events among them)\n",
      recorded_seconds, kFlightThreads, rss_min, rss_max, absl::ToDoubleSeconds(kWarmUp), slope,
      kMaxRssSlopeKbPerMin, dumps.size(), flight_report.dumps_ok, signals,
      static_cast<unsigned long long>(dump_bytes), static_cast<unsigned long long>(dump_events),
      compressed_gens.size(), kept_gens.size(), static_cast<unsigned long long>(flight_recorded),
      flight_recorded / minutes / 60 / 1e6, static_cast<unsigned long long>(flight_missing),
      dropped_gens.size(), static_cast<unsigned long long>(*kept_gens.rbegin()),
      threads_missing_end);
  std::fprintf(stderr,
               "soak: collector: %d incarnations; %zu streaming processes, %zu files (%llu "
               "bytes); cut off (runtime warning): %d by a restart, %d by a write timeout; %llu "
               "unfinished generations "
               "dropped by the collector; %llu events recorded, %llu missing; %d gaps at "
               "generations the runtime dropped\n",
               collector.incarnations(), streamers.size(), collected.size(),
               static_cast<unsigned long long>(collected_bytes), cut_by_restart, cut_by_timeout,
               static_cast<unsigned long long>(collector.partial_generations()),
               static_cast<unsigned long long>(stream_recorded),
               static_cast<unsigned long long>(stream_missing), stream_gaps);
  RecordProperty("rss_slope_kb_per_min", static_cast<int>(slope));
  RecordProperty("dumps", static_cast<int>(dumps.size()));
  if (!HasFailure()) std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace tracewire::soak
