// The socket collector (tools/collector): GenerationSplitter on real runtime streams, and
// Collector receiving 20 concurrent traced processes over af_unix stream sockets (plus a
// client that disconnects mid-generation and one that sends garbage), a client writing
// one byte at a time, datagram sockets, and the socket-path rules.
#include "tools/collector/collector.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "format/constants.h"
#include "format/file_header.h"
#include "gtest/gtest.h"
#include "reader/process_tree.h"
#include "reader/reader.h"
#include "reader/sid_parts.h"
#include "tests/export/collector_support.h"
#include "tests/export/export_support.h"
#include "tools/collector/generation_splitter.h"

namespace tracewire::testing {
namespace {

using tools::Collector;
using tools::CollectorOptions;
using tools::CollectorStats;
using tools::GenerationSplitter;
using tools::SplitGeneration;

// A runtime stream of several generations: the bytes a traced demo writes (a file target
// receives exactly what a stream socket would: "header + generation", repeatedly).
std::string DemoStream(bool compress = false) {
  const std::string path = TempDir("collector_stream") + "/trace.twr";
  EXPECT_EQ(RunTool({Tool("examples/demo/demo")}, {{"TRACEWIRE", path},
                                                   {"TRACEWIRE_GENERATION_MS", "1"},
                                                   {"TRACEWIRE_COMPRESS", compress ? "1" : ""}}),
            1);
  return ReadWholeFile(path);
}

struct Split {
  std::vector<SplitGeneration> gens;  // frames copied into `storage`
  std::vector<std::string> storage;
  absl::Status error;
};

Split SplitAll(absl::string_view stream, size_t piece, size_t max = format::kMaxGenerationSize) {
  Split out;
  GenerationSplitter splitter(max);
  for (size_t pos = 0; pos < stream.size() && out.error.ok(); pos += piece) {
    splitter.Append(stream.substr(pos, piece));
    while (true) {
      absl::StatusOr<std::optional<SplitGeneration>> gen = splitter.Next();
      if (!gen.ok()) {
        out.error = gen.status();
        break;
      }
      if (!gen->has_value()) break;
      out.storage.emplace_back((*gen)->frames);
      out.gens.push_back(**gen);
    }
  }
  for (size_t i = 0; i < out.gens.size(); ++i) out.gens[i].frames = out.storage[i];
  return out;
}

TEST(GenerationSplitterTest, CutsARuntimeStreamIntoItsGenerations) {
  for (bool compress : {false, true}) {
    const std::string stream = DemoStream(compress);
    const std::string header = format::EncodeFileHeader(format::kFormatVersion);
    for (size_t piece : {size_t{1}, size_t{7}, size_t{4096}, stream.size()}) {
      const Split split = SplitAll(stream, piece);
      ASSERT_TRUE(split.error.ok()) << split.error;
      ASSERT_GE(split.gens.size(), 2u) << "two processes";
      // Every byte of the stream but its file headers is in a generation, in order. (A
      // process writes a header when it opens the file, so another process's header may
      // come between a header and the generation after it.)
      std::string rebuilt;
      std::set<std::string> sids;
      for (const SplitGeneration& gen : split.gens) {
        rebuilt += std::string(gen.frames);
        EXPECT_FALSE(gen.sid.empty());
        sids.insert(gen.sid);
      }
      EXPECT_EQ(rebuilt, absl::StrReplaceAll(stream, {{header, ""}}))
          << "piece " << piece << " compress " << compress;
      EXPECT_EQ(sids.size(), 2u);
    }
  }
}

TEST(GenerationSplitterTest, KeepsAPartialGenerationPending) {
  const std::string stream = DemoStream();
  GenerationSplitter splitter;
  splitter.Append(absl::string_view(stream).substr(0, 40));
  absl::StatusOr<std::optional<SplitGeneration>> gen = splitter.Next();
  ASSERT_TRUE(gen.ok());
  EXPECT_FALSE(gen->has_value());
  EXPECT_TRUE(splitter.has_partial());
}

TEST(GenerationSplitterTest, RejectsMalformedStreams) {
  const std::string stream = DemoStream();
  // Garbage instead of a frame.
  EXPECT_TRUE(absl::IsDataLoss(SplitAll(std::string(32, '\0'), 32).error));
  // An unknown format version.
  std::string future = stream;
  future[8] = 99;
  EXPECT_TRUE(absl::IsUnimplemented(SplitAll(future, 64).error));
  // A generation above the size limit.
  EXPECT_TRUE(absl::IsResourceExhausted(SplitAll(stream, 64, /*max=*/100).error));
  // A frame of generation 2 inside generation 1: the first generation without its end.
  const Split ok = SplitAll(stream, stream.size());
  ASSERT_GE(ok.gens.size(), 2u);
  absl::string_view first = ok.gens[0].frames;
  first.remove_suffix(2);  // end_of_generation of gen 1 (07 01)
  absl::string_view second = ok.gens[1].frames;
  std::string mixed = format::EncodeFileHeader(format::kFormatVersion);
  mixed += std::string(first);
  if (ok.gens[1].gen != ok.gens[0].gen) {
    mixed += std::string(second);
    EXPECT_TRUE(absl::IsDataLoss(SplitAll(mixed, 100).error));
  }
}

// Every file of `dir` decodes completely and holds exactly one sid, named after it.
void CheckFiles(const std::string& dir, size_t expected_files) {
  const std::vector<std::string> files = FilesIn(dir);
  EXPECT_EQ(files.size(), expected_files);
  for (const std::string& file : files) {
    absl::StatusOr<std::unique_ptr<reader::Reader>> r = reader::Reader::OpenFile(file);
    ASSERT_TRUE(r.ok()) << r.status();
    std::set<std::string> sids;
    size_t events = 0;
    bool atexit = false;
    while (true) {
      absl::StatusOr<const reader::Event*> event = (*r)->Next();
      ASSERT_TRUE(event.ok()) << file << ": " << event.status();
      if (*event == nullptr) break;
      ++events;
      sids.insert(std::string((*event)->sid));
      atexit |= (*event)->kind == reader::EventKind::kAtexit;
    }
    EXPECT_GT(events, 0u) << file;
    EXPECT_TRUE(atexit) << file;
    ASSERT_EQ(sids.size(), 1u) << file;
    EXPECT_EQ(file.substr(file.rfind('/') + 1),
              reader::SidFileName(reader::SidLastComponent(*sids.begin())));
  }
}

TEST(CollectorTest, ReceivesTwentyConcurrentTracedProcesses) {
  // A partial generation and garbage, to send alongside the real clients.
  const std::string stream = DemoStream();
  const Split split = SplitAll(stream, stream.size());
  ASSERT_FALSE(split.gens.empty());
  const std::string partial =
      format::EncodeFileHeader(format::kFormatVersion) +
      std::string(split.gens[0].frames.substr(0, split.gens[0].frames.size() / 2));

  CollectorOptions options;
  options.socket_path = SocketPath("twenty");
  options.out_dir = TempDir("collector_out");
  RunningCollector collector(options);
  ASSERT_NE(collector.get(), nullptr);

  const int half_done = ConnectStream(options.socket_path);
  SendAll(half_done, partial);
  const int garbage = ConnectStream(options.socket_path);
  SendAll(garbage, std::string(64, '\0'));  // type 0 is never valid

  std::vector<pid_t> pids;
  for (int i = 0; i < 20; ++i) {
    pids.push_back(
        Spawn({Tool("examples/demo/demo")},
              {{"TRACEWIRE", "af_unix:" + options.socket_path}, {"TRACEWIRE_GENERATION_MS", "2"}}));
  }
  close(half_done);  // disconnects in the middle of a generation
  for (pid_t pid : pids) EXPECT_EQ(Wait(pid), 1);
  close(garbage);
  // Every connection served (a starved collector can still hold exited demos' connections
  // in its backlog): 40 processes, the half-done one and the garbage.
  const CollectorStats stats = collector.Stop(/*wait_for_disconnects=*/true, 42);

  // 20 demos and their 20 children: one file per sid, each a complete, valid trace.
  CheckFiles(options.out_dir, 40);
  absl::StatusOr<std::unique_ptr<reader::ProcessTreeReader>> tree =
      reader::ProcessTreeReader::OpenDirectory(options.out_dir);
  ASSERT_TRUE(tree.ok()) << tree.status();
  while (true) {
    absl::StatusOr<const reader::Event*> event = (*tree)->Next();
    ASSERT_TRUE(event.ok()) << event.status();
    if (*event == nullptr) break;
  }
  int roots = 0;
  for (const reader::ProcessNode& node : (*tree)->processes()) {
    if (node.parent < 0) {
      ++roots;
      EXPECT_EQ(node.children.size(), 1u) << node.sid;
    }
  }
  EXPECT_EQ(roots, 20);
  EXPECT_EQ(stats.connections, 42u);
  EXPECT_EQ(stats.partial_generations, 1u);
  EXPECT_EQ(stats.stream_errors, 1u);
  EXPECT_EQ(stats.write_errors, 0u);
  EXPECT_EQ(stats.invalid_generations, 0u);
  EXPECT_GE(stats.generations_written, 40u);
  EXPECT_EQ(stats.active_connections, 0u);
}

TEST(CollectorTest, AClientWritingOneByteAtATime) {
  const std::string stream = DemoStream();
  CollectorOptions options;
  options.socket_path = SocketPath("bytes");
  options.out_dir = TempDir("collector_bytes");
  RunningCollector collector(options);
  ASSERT_NE(collector.get(), nullptr);
  const int fd = ConnectStream(options.socket_path);
  for (char byte : stream) SendAll(fd, absl::string_view(&byte, 1));
  close(fd);
  const CollectorStats stats = collector.Stop();
  EXPECT_EQ(stats.partial_generations, 0u);
  // The demo stream holds two processes: each generation went to its own sid's file, and
  // the two files together hold exactly the stream's bytes.
  const std::vector<std::string> files = FilesIn(options.out_dir);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(ReadWholeFile(files[0]).size() + ReadWholeFile(files[1]).size(), stream.size());
  CheckFiles(options.out_dir, 2);
}

TEST(CollectorTest, DatagramSockets) {
  CollectorOptions options;
  ASSERT_TRUE(tools::ParseListenAddress("af_unix:dgram:" + SocketPath("dgram"), &options).ok());
  options.out_dir = TempDir("collector_dgram");
  // Senders count as gone after this: long enough that a sender the scheduler stops in the
  // middle of a generation is not ended there, short enough to keep the test quick.
  options.dgram_idle = absl::Seconds(2);
  RunningCollector collector(options);
  ASSERT_NE(collector.get(), nullptr);
  std::vector<pid_t> pids;
  for (int i = 0; i < 5; ++i) {
    pids.push_back(
        Spawn({Tool("examples/demo/demo")},
              {{"TRACEWIRE", "af_unix:" + options.socket_path}, {"TRACEWIRE_GENERATION_MS", "2"}}));
  }
  for (pid_t pid : pids) EXPECT_EQ(Wait(pid), 1);
  // Stopped once the 10 senders (5 demos, 5 children) were seen and went idle: every
  // datagram they sent was read.
  const CollectorStats stats = collector.Stop(/*wait_for_disconnects=*/true, 10);
  EXPECT_EQ(stats.stream_errors, 0u);
  CheckFiles(options.out_dir, 10);
}

TEST(CollectorTest, ListenAddressesAndSocketPaths) {
  CollectorOptions options;
  EXPECT_TRUE(tools::ParseListenAddress("af_unix:/tmp/x.sock", &options).ok());
  EXPECT_EQ(options.socket_path, "/tmp/x.sock");
  EXPECT_FALSE(options.datagram);
  EXPECT_TRUE(tools::ParseListenAddress("af_unix:stream:/tmp/y.sock", &options).ok());
  EXPECT_EQ(options.socket_path, "/tmp/y.sock");
  EXPECT_TRUE(tools::ParseListenAddress("af_unix:dgram:/tmp/z.sock", &options).ok());
  EXPECT_TRUE(options.datagram);
  EXPECT_FALSE(tools::ParseListenAddress("/tmp/x.sock", &options).ok());
  EXPECT_FALSE(tools::ParseListenAddress("af_unix:relative.sock", &options).ok());
  EXPECT_FALSE(tools::ParseListenAddress("af_unix:/" + std::string(200, 'a'), &options).ok());

  CollectorOptions live;
  live.socket_path = SocketPath("live");
  live.out_dir = TempDir("collector_live");
  RunningCollector first(live);
  ASSERT_NE(first.get(), nullptr);
  EXPECT_TRUE(absl::IsAlreadyExists(Collector::Listen(live).status()));

  // A stale socket file (nobody listens) is replaced.
  CollectorOptions stale = live;
  stale.socket_path = SocketPath("stale");
  {
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    strncpy(addr.sun_path, stale.socket_path.c_str(), sizeof(addr.sun_path) - 1);
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    close(fd);
  }
  EXPECT_TRUE(Collector::Listen(stale).ok());

  // Any other file is left alone.
  CollectorOptions occupied = live;
  occupied.socket_path = live.out_dir + "/regular";
  if (occupied.socket_path.size() < 100) {
    const int fd = open(occupied.socket_path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    close(fd);
    EXPECT_TRUE(absl::IsFailedPrecondition(Collector::Listen(occupied).status()));
  }
}

// A client that finds the socket file can connect at once: the socket is listening before
// its file appears (a program started just after the file appeared once traced to nothing).
TEST(CollectorTest, TheSocketFileAppearsOnlyWhenListening) {
  CollectorOptions options;
  options.socket_path = SocketPath("appears");
  options.out_dir = TempDir("collector_appears");
  const std::string dir = options.socket_path.substr(0, options.socket_path.rfind('/'));
  for (const bool datagram : {false, true}) {
    options.datagram = datagram;
    for (int round = 0; round < 100; ++round) {
      // The watcher connects the moment the file is there, while Listen is still running.
      std::atomic<bool> stop{false};
      int connect_errno = -1;
      std::thread watcher([&] {
        struct stat st;
        while (!stop.load() &&
               (stat(options.socket_path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode))) {
        }
        if (stop.load()) return;
        const int fd = socket(AF_UNIX, (datagram ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        strncpy(addr.sun_path, options.socket_path.c_str(), sizeof(addr.sun_path) - 1);
        connect_errno =
            connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 ? 0 : errno;
        close(fd);
      });
      absl::StatusOr<std::unique_ptr<Collector>> collector = Collector::Listen(options);
      ASSERT_TRUE(collector.ok()) << collector.status();
      stop.store(true);
      watcher.join();
      if (connect_errno != -1) {
        ASSERT_EQ(connect_errno, 0) << "round " << round << (datagram ? " (datagram)" : "")
                                    << ": " << strerror(connect_errno);
      }
      collector->reset();
      struct stat st;
      EXPECT_NE(stat(options.socket_path.c_str(), &st), 0) << "the socket file outlived it";
    }
  }
  // No staging socket was left beside it.
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    EXPECT_NE(entry.path().filename().string(), absl::StrCat(".tracewire-listen-", getpid()));
  }
}

}  // namespace
}  // namespace tracewire::testing
