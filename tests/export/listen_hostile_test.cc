// Hostile clients of the collector behind `tracewire listen`: the socket is owner-only
// whatever the umask; planted symlinks, FIFOs and hard links are never written through; no
// sid reaches outside the output directory; silent and stalled connections time out;
// memory is bounded per connection and in total; the connection limit holds; at the file
// descriptor limit it does not spin; 200 concurrent clients are all served; 100 MB of
// garbage (stream and dgram) leaves it alive, small and serving. Every loop is bounded in
// count and time; everything is local (Unix sockets in the test's directory).
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "format/constants.h"
#include "format/event_spec.h"
#include "format/file_header.h"
#include "format/raw_decoder.h"
#include "format/raw_event.h"
#include "gtest/gtest.h"
#include "reader/reader.h"
#include "tests/cli/cli_runner.h"
#include "tests/export/collector_support.h"
#include "tests/export/export_support.h"
#include "tests/export/otlp_support.h"
#include "tools/collector/collector.h"
#include "tools/collector/generation_splitter.h"
#include "tools/trace2_import/trace2_import.h"

namespace tracewire::testing {
namespace {

using tools::Collector;
using tools::CollectorOptions;
using tools::CollectorStats;

// A sid component as git and the runtime write them.
std::string Sid(int n) {
  return absl::StrCat("20261122T020000.", 100000 + n, "Z-H0a7c9cdf-P",
                      absl::Hex(0x1000 + n, absl::kZeroPad8));
}

// git's EVENT lines of one small process with sid `sid` (JSON-escaped already).
std::string GitLines(const std::string& sid, int regions = 2) {
  return SyntheticGitEventStream(sid, regions);
}

// The runtime's stream of one process ("file header + generation", repeatedly).
std::string RuntimeStream(const std::string& sid, int regions = 2) {
  absl::StatusOr<std::string> trace = tools::ImportTrace2Event(GitLines(sid, regions), {});
  EXPECT_TRUE(trace.ok()) << trace.status();
  return trace.ok() ? *trace : "";
}

// The number of generations of a runtime stream.
size_t Generations(const std::string& stream) {
  tools::GenerationSplitter splitter;
  splitter.Append(stream);
  size_t count = 0;
  while (true) {
    absl::StatusOr<std::optional<tools::SplitGeneration>> gen = splitter.Next();
    if (!gen.ok() || !gen->has_value()) return count;
    ++count;
  }
}

// A stream that opens a generation and keeps adding frames to it without ever ending it,
// `size` bytes long.
std::string UnfinishedGeneration(size_t size) {
  const std::string stream = RuntimeStream(Sid(999), 50);
  tools::GenerationSplitter splitter;
  splitter.Append(stream);
  absl::StatusOr<std::optional<tools::SplitGeneration>> gen = splitter.Next();
  EXPECT_TRUE(gen.ok() && gen->has_value());
  const std::string frames((*gen)->frames);
  // Every frame but the last (end_of_generation).
  format::RecordDecoder decoder(frames, 0, format::Scope::kFrame);
  format::RawEvent frame;
  size_t body_end = 0;
  while (decoder.Next(&frame).value_or(false)) {
    if (frame.type != static_cast<uint8_t>(format::EventType::kEndOfGeneration)) {
      body_end = frame.offset + frame.size;
    }
  }
  const std::string body = frames.substr(0, body_end);
  std::string out = format::EncodeFileHeader(format::kFormatVersion);
  while (out.size() < size) out += body;
  return out;
}

CollectorOptions Options(const std::string& name) {
  CollectorOptions options;
  options.socket_path = SocketPath(name);
  options.out_dir = TempDir(name);
  return options;
}

// Waits until `done` holds, 60 s at most (a bound on hangs only).
template <typename F>
bool WaitUntil(F done) {
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (!done()) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return true;
}

TEST(ListenHostileTest, SocketIsOwnerOnlyWhateverTheUmask) {
  const mode_t saved = umask(0);
  for (mode_t mode : {mode_t{0600}, mode_t{0660}}) {
    CollectorOptions options = Options("hostile_mode");
    options.socket_mode = mode;
    absl::StatusOr<std::unique_ptr<Collector>> c = Collector::Listen(options);
    ASSERT_TRUE(c.ok()) << c.status();
    struct stat st;
    ASSERT_EQ(stat(options.socket_path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, mode);
  }
  EXPECT_EQ(umask(saved), 0);  // the umask is left as it was
}

TEST(ListenHostileTest, PlantedSymlinksFifosAndHardLinksAreNeverWrittenThrough) {
  CollectorOptions options = Options("hostile_plant");
  const std::string victim_dir = TempDir("hostile_victim");
  const std::string victim = victim_dir + "/victim";
  ASSERT_TRUE(cli_test::WriteFile(victim, "precious\n"));
  RunningCollector collector(options);
  ASSERT_NE(collector.get(), nullptr);
  // A symlink (runtime stream), a FIFO nobody reads (git lines), a hard link (runtime).
  ASSERT_EQ(symlink(victim.c_str(), collector.get()->FileFor(Sid(1)).c_str()), 0);
  ASSERT_EQ(mkfifo(collector.get()->FileFor(Sid(2)).c_str(), 0600), 0);
  ASSERT_EQ(link(victim.c_str(), collector.get()->FileFor(Sid(3)).c_str()), 0);
  for (const std::string& bytes :
       {RuntimeStream(Sid(1)), GitLines(Sid(2)), RuntimeStream(Sid(3)), RuntimeStream(Sid(4))}) {
    const int fd = ConnectStream(options.socket_path);
    SendAll(fd, bytes);
    close(fd);
  }
  const CollectorStats stats = collector.Stop(true, 4);
  EXPECT_EQ(cli_test::ReadFile(victim), "precious\n");
  // Every generation of 1 and 3, and git process 2.
  EXPECT_EQ(stats.unsafe_files,
            Generations(RuntimeStream(Sid(1))) + Generations(RuntimeStream(Sid(3))) + 1);
  EXPECT_EQ(stats.write_errors, 0u);
  struct stat st;
  ASSERT_EQ(lstat(collector.get()->FileFor(Sid(1)).c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  // The honest client was served.
  EXPECT_EQ(RunTool({Tool("tools/tracewire"), "validate", collector.get()->FileFor(Sid(4))}, {}),
            0);
}

TEST(ListenHostileTest, NoSidWritesOutsideTheOutputDirectory) {
  CollectorOptions options = Options("hostile_sids");
  const std::string parent = options.out_dir.substr(0, options.out_dir.rfind('/'));
  const size_t parent_entries = FilesIn(parent).size();
  RunningCollector collector(options);
  ASSERT_NE(collector.get(), nullptr);
  // In git's JSON lines a sid may hold anything, NUL included (\u0000).
  const std::vector<std::string> sids = {
      "..", "../../escaped",       "a/../../b/..", "/etc/passwd", "x\\u0000y/..", ".",
      "",   std::string(5000, 'n')};
  for (const std::string& sid : sids) {
    const int fd = ConnectStream(options.socket_path);
    SendAll(fd, GitLines(sid));
    close(fd);
  }
  // The runtime's streams carry the sid in their string table: the same rules apply.
  const std::vector<std::string> runtime_sids = {"../../runtime", "r/../..", ".."};
  for (const std::string& sid : runtime_sids) {
    const int fd = ConnectStream(options.socket_path);
    SendAll(fd, RuntimeStream(sid));
    close(fd);
  }
  const CollectorStats stats = collector.Stop(true, sids.size() + runtime_sids.size());
  EXPECT_EQ(stats.git_processes, sids.size()) << "every process lands inside the directory";
  EXPECT_GE(stats.generations_written, runtime_sids.size());
  EXPECT_EQ(stats.write_errors + stats.unsafe_files + stats.stream_errors, 0u);
  EXPECT_EQ(FilesIn(parent).size(), parent_entries);  // nothing new next to it
  const std::vector<std::string> files = FilesIn(options.out_dir);
  EXPECT_GE(files.size(), 5u);
  for (const std::string& file : files) {
    EXPECT_EQ(file.rfind('/'), options.out_dir.size()) << file;
    const std::string name = file.substr(options.out_dir.size() + 1);
    EXPECT_LE(name.size(), 200u);
    EXPECT_NE(name[0], '.') << name;
  }
}

TEST(ListenHostileTest, TheConnectionLimitHolds) {
  CollectorOptions options = Options("hostile_limit");
  options.max_connections = 40;  // the default idle timeout (5 minutes): none leaves by itself
  RunningCollector collector(options);
  ASSERT_NE(collector.get(), nullptr);
  std::vector<int> silent;
  for (int i = 0; i < 40; ++i) silent.push_back(ConnectStream(options.socket_path));
  ASSERT_TRUE(WaitUntil([&] { return collector.get()->stats().active_connections == 40; }));
  const int refused = ConnectStream(options.socket_path);  // the 41st
  ASSERT_TRUE(WaitUntil([&] { return collector.get()->stats().refused_connections == 1; }));
  // One leaves: a real client is served again.
  close(silent.back());
  silent.pop_back();
  ASSERT_TRUE(WaitUntil([&] { return collector.get()->stats().active_connections == 39; }));
  const int client = ConnectStream(options.socket_path);
  SendAll(client, RuntimeStream(Sid(8)));
  close(client);
  ASSERT_TRUE(WaitUntil([&] { return collector.get()->stats().generations_written >= 1; }));
  for (int fd : silent) close(fd);
  close(refused);
  const CollectorStats stats = collector.Stop(/*wait_for_disconnects=*/false);
  EXPECT_EQ(stats.refused_connections, 1u);
  EXPECT_EQ(stats.partial_generations, 0u);
  EXPECT_EQ(RunTool({Tool("tools/tracewire"), "validate", collector.get()->FileFor(Sid(8))}, {}),
            0);
}

TEST(ListenHostileTest, SilentAndStalledConnectionsTimeOut) {
  CollectorOptions options = Options("hostile_idle");
  options.idle_timeout = absl::Seconds(1);
  RunningCollector collector(options);
  ASSERT_NE(collector.get(), nullptr);
  std::vector<int> silent;
  for (int i = 0; i < 39; ++i) silent.push_back(ConnectStream(options.socket_path));
  const int stalled = ConnectStream(options.socket_path);  // half a generation, then nothing
  SendAll(stalled, UnfinishedGeneration(10000));
  // After the idle time every one of them is closed (each on its own clock: whether they
  // were open at once is the scheduler's choice), and a real client is served.
  ASSERT_TRUE(WaitUntil([&] { return collector.get()->stats().idle_timeouts == 40; }));
  const int client = ConnectStream(options.socket_path);
  SendAll(client, RuntimeStream(Sid(7)));
  close(client);
  ASSERT_TRUE(WaitUntil([&] { return collector.get()->stats().generations_written >= 1; }));
  for (int fd : silent) close(fd);
  close(stalled);
  const CollectorStats stats = collector.Stop(/*wait_for_disconnects=*/false);
  EXPECT_EQ(stats.partial_generations, 1u);  // the stalled one's
  EXPECT_EQ(stats.refused_connections, 0u);
  EXPECT_EQ(RunTool({Tool("tools/tracewire"), "validate", collector.get()->FileFor(Sid(7))}, {}),
            0);
}

TEST(ListenHostileTest, MemoryIsBoundedPerConnectionAndInTotal) {
  CollectorOptions options = Options("hostile_memory");
  options.max_generation_size = 1 << 20;  // per connection
  options.max_total_buffered = 3 << 20;   // in all
  RunningCollector collector(options);
  ASSERT_NE(collector.get(), nullptr);
  // One connection past its own limit: a generation that never ends, and a git line that
  // never ends.
  for (const std::string& bytes :
       {UnfinishedGeneration(2 << 20), "{" + std::string(2 << 20, 'x')}) {
    const int fd = ConnectStream(options.socket_path);
    send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);  // cut short when dropped
    close(fd);
  }
  ASSERT_TRUE(WaitUntil([&] { return collector.get()->stats().memory_limit_drops == 2; }));
  // Four connections of 0.9 MiB each: the fourth crosses the total.
  const std::string big = UnfinishedGeneration(900 << 10);
  std::vector<int> fds;
  for (int i = 0; i < 4; ++i) {
    fds.push_back(ConnectStream(options.socket_path));
    send(fds.back(), big.data(), big.size(), MSG_NOSIGNAL);
  }
  ASSERT_TRUE(WaitUntil([&] { return collector.get()->stats().memory_limit_drops == 3; }));
  for (int fd : fds) close(fd);
  // A real client still gets through.
  const int client = ConnectStream(options.socket_path);
  SendAll(client, RuntimeStream(Sid(8)));
  close(client);
  const CollectorStats stats = collector.Stop(true, 7);
  EXPECT_EQ(stats.memory_limit_drops, 3u);
  EXPECT_EQ(stats.partial_generations, 3u);  // the three under the limits, at their close
  EXPECT_EQ(RunTool({Tool("tools/tracewire"), "validate", collector.get()->FileFor(Sid(8))}, {}),
            0);
}

TEST(ListenHostileTest, TwoHundredConcurrentClients) {
  CollectorOptions options = Options("hostile_200");
  RunningCollector collector(options);
  ASSERT_NE(collector.get(), nullptr);
  // 100 runtime streams and 100 git EVENT streams, all connected at once, sent in 1 KiB
  // pieces round-robin, then closed.
  std::vector<int> fds;
  std::vector<std::string> payloads;
  for (int i = 0; i < 200; ++i) {
    fds.push_back(ConnectStream(options.socket_path));
    payloads.push_back(i % 2 == 0 ? RuntimeStream(Sid(100 + i), 20) : GitLines(Sid(100 + i), 20));
  }
  for (size_t offset = 0;; offset += 1024) {
    bool any = false;
    for (int i = 0; i < 200; ++i) {
      if (offset >= payloads[i].size()) continue;
      any = true;
      SendAll(fds[i], absl::string_view(payloads[i]).substr(offset, 1024));
    }
    if (!any) break;
  }
  for (int fd : fds) close(fd);
  const CollectorStats stats = collector.Stop(true, 200);
  EXPECT_EQ(stats.connections, 200u);
  EXPECT_EQ(stats.git_connections, 100u);
  EXPECT_EQ(stats.git_processes, 100u);
  EXPECT_EQ(stats.stream_errors + stats.partial_generations + stats.memory_limit_drops, 0u);
  EXPECT_EQ(FilesIn(options.out_dir).size(), 200u);
  const cli_test::CommandResult valid =
      cli_test::RunCommand({Tool("tools/tracewire"), "validate", options.out_dir});
  EXPECT_EQ(valid.exit_code, 0) << valid.err;
  EXPECT_TRUE(absl::StrContains(valid.out, "200 processes")) << valid.out;
}

// Peak resident memory of a process in KiB (VmHWM).
uint64_t PeakKib(pid_t pid) {
  for (const std::string& line :
       cli_test::Lines(cli_test::ReadFile(absl::StrCat("/proc/", pid, "/status")))) {
    if (absl::StartsWith(line, "VmHWM:")) {
      uint64_t kib = 0;
      absl::SimpleAtoi(absl::StripAsciiWhitespace(absl::StripSuffix(line.substr(6), "kB")), &kib);
      return kib;
    }
  }
  return 0;
}

TEST(ListenHostileTest, NoBusyLoopAtTheFileDescriptorLimit) {
  // 16 descriptors: the listener's own (stdio, socket, wake pipe, …) leave a few for clients.
  const Listener l = StartListener("hostile_fds", "stream", {}, "ulimit -n 16 &&");
  std::vector<int> fds;
  for (int i = 0; i < 30; ++i) fds.push_back(ConnectStream(l.socket));
  // The listener has run out of descriptors (it says so as it pauses); then 2 s more at the
  // limit, while the connections still wait in the backlog.
  ASSERT_TRUE(WaitUntil([&] {
    return absl::StrContains(cli_test::ReadFile(l.log), "Too many open files");
  })) << cli_test::ReadFile(l.log);
  absl::SleepFor(absl::Seconds(2));
  // Free the descriptors: the connections waiting in the backlog are served.
  for (int fd : fds) close(fd);
  const int client = ConnectStream(l.socket);
  SendAll(client, RuntimeStream(Sid(9)));
  close(client);
  EXPECT_TRUE(WaitUntil([&] { return FilesIn(l.out_dir).size() == 1; }));
  EXPECT_EQ(StopListener(l), 0);
  const std::string log = cli_test::ReadFile(l.log);
  const uint64_t pauses = Counted(log, "pauses at the file descriptor limit");
  // It rested (100 ms each) instead of retrying accept(2) in a loop: a handful of pauses in
  // 2 s, where a busy loop makes millions of attempts.
  EXPECT_GE(pauses, 1u) << log;
  EXPECT_LE(pauses, 200u) << log;
  EXPECT_TRUE(absl::StrContains(log, "Too many open files")) << log;
}

TEST(ListenHostileTest, HundredMegabytesOfGarbage) {
  constexpr size_t kTotal = size_t{100} << 20;
  std::mt19937_64 random(42);
  std::string chunk(1 << 20, '\0');
  for (char& c : chunk) c = static_cast<char>(random());
  for (const std::string kind : {"stream", "dgram"}) {
    const Listener l =
        StartListener("hostile_garbage_" + kind, kind, {"--max-connection-memory=8M"});
    size_t sent = 0;
    int connections = 0;
    const absl::Time deadline = absl::Now() + absl::Seconds(90);
    if (kind == "stream") {
      // Random bytes (not starting with '{'), and '{' then bytes without a newline: each
      // connection is dropped at its first bad frame or over its memory limit; reconnect.
      while (sent < kTotal && connections < 20000 && absl::Now() < deadline) {
        const int fd = ConnectStream(l.socket);
        chunk[0] = connections % 2 == 0 ? '\x01' : '{';
        if (connections % 2 == 1) std::replace(chunk.begin(), chunk.end(), '\n', ' ');
        for (size_t off = 0; off < chunk.size() && sent < kTotal;) {
          const ssize_t n = send(fd, chunk.data() + off, chunk.size() - off, MSG_NOSIGNAL);
          if (n <= 0) break;  // dropped by the listener
          off += n;
          sent += n;
        }
        close(fd);
        ++connections;
      }
    } else {
      const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      strncpy(addr.sun_path, l.socket.c_str(), sizeof(addr.sun_path) - 1);
      ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
      for (size_t off = 0; sent < kTotal && absl::Now() < deadline;
           off = (off + 60000) % (chunk.size() - 60000)) {
        chunk[off] = (sent / 60000) % 2 == 0 ? '\x02' : '{';
        const ssize_t n = send(fd, chunk.data() + off, 60000, 0);
        ASSERT_EQ(n, 60000);
        sent += n;
      }
      close(fd);
    }
    EXPECT_GE(sent, kTotal) << kind;
    // Still alive and serving.
    const int client =
        socket(AF_UNIX, (kind == "dgram" ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    strncpy(addr.sun_path, l.socket.c_str(), sizeof(addr.sun_path) - 1);
    ASSERT_EQ(connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    for (const std::string& line : cli_test::Lines(GitLines(Sid(10)))) {
      const std::string datagram = line + "\n";
      if (kind == "dgram") {
        ASSERT_EQ(send(client, datagram.data(), datagram.size(), 0),
                  static_cast<ssize_t>(datagram.size()));
      } else {
        SendAll(client, datagram);
      }
    }
    close(client);
    EXPECT_TRUE(WaitUntil([&] { return FilesIn(l.out_dir).size() == 1; })) << kind;
    const uint64_t peak_kib = PeakKib(l.pid);
    std::cout << kind << ": " << sent << " bytes of garbage"
              << (kind == "stream" ? absl::StrCat(" over ", connections, " connections") : "")
              << "; peak RSS of the listener " << peak_kib << " KiB\n";
    EXPECT_EQ(StopListener(l), 0) << kind;
    EXPECT_GT(peak_kib, 0u);
#ifndef __SANITIZE_ADDRESS__  // ASan keeps freed memory in quarantine
    EXPECT_LT(peak_kib, 100u << 10) << kind << ": peak RSS of the listener";
#endif
    const std::string log = cli_test::ReadFile(l.log);
    EXPECT_EQ(Counted(log, "git processes ("), 1u) << log;
  }
}

}  // namespace
}  // namespace tracewire::testing
