// Real git streaming its Trace2 EVENT output into `tracewire listen`, over af_unix stream
// and dgram sockets: several git commands at once (a commit that runs its hook, a status
// with a submodule child, an alias, a failing command), all into one listener. A relay in
// the test sits between git and the listener and records exactly what git sent; every file
// the listener wrote must decode back to that process's EVENT lines as `tracewire import`
// would (same lines, keys, order and values; times within 2 µs).
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_runner.h"
#include "tests/cli/event_compare.h"
#include "tests/cli/git_support.h"
#include "tests/export/export_support.h"

namespace tracewire::testing {
namespace {

sockaddr_un Address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  return addr;
}

// Relays git's connections (or datagrams) from socket `front` to the listener's socket
// `back`, recording the bytes; runs on its own thread until destroyed.
class Relay {
 public:
  Relay(const std::string& front, const std::string& back, bool datagram)
      : front_(front), back_(back), datagram_(datagram) {
    listen_fd_ = socket(AF_UNIX, (datagram ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
    const sockaddr_un addr = Address(front);
    EXPECT_EQ(bind(listen_fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)), 0);
    if (!datagram) EXPECT_EQ(listen(listen_fd_, 64), 0);
    thread_ = std::thread([this] { Run(); });
  }

  ~Relay() {
    stop_ = true;
    thread_.join();
    close(listen_fd_);
    for (const auto& [in, out] : pairs_) {
      close(in);
      close(out);
    }
    unlink(front_.c_str());
  }

  // Waits until the relay has found nothing to relay (no connection open or waiting to be
  // accepted, no datagram) in a whole poll that began after this call. Called once git has
  // exited, when everything git sent is in the sockets: then all of it has been relayed,
  // however long the relay thread waited for a CPU. The deadline bounds hangs only.
  void WaitIdle() {
    const int64_t start = quiet_polls_.load();
    const absl::Time deadline = absl::Now() + absl::Seconds(120);
    while (quiet_polls_.load() < start + 2) {
      if (absl::Now() > deadline) {
        ADD_FAILURE() << "the relay did not become idle";
        return;
      }
      absl::SleepFor(absl::Milliseconds(5));
    }
  }

  // Everything git sent, as one text (stream: connection after connection; dgram: datagram
  // after datagram, each one line).
  std::string Recorded() {
    std::lock_guard<std::mutex> lock(mu_);
    std::string all;
    for (const auto& [fd, text] : recorded_) all += text;
    return all + datagrams_;
  }

 private:
  int ConnectBack(int type) {
    const int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
    const sockaddr_un addr = Address(back_);
    EXPECT_EQ(connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)), 0);
    return fd;
  }

  void Run() {
    std::vector<char> buffer(256 * 1024);
    const int back = datagram_ ? ConnectBack(SOCK_DGRAM) : -1;
    const absl::Time deadline = absl::Now() + absl::Seconds(240);  // a bound, never reached
    while (!stop_ && absl::Now() < deadline) {
      std::vector<pollfd> fds = {{listen_fd_, POLLIN, 0}};
      for (const auto& [in, out] : pairs_) fds.push_back({in, POLLIN, 0});
      const int ready = poll(fds.data(), fds.size(), 20);
      if (ready <= 0) {
        if (ready == 0 && pairs_.empty()) ++quiet_polls_;  // nothing open, nothing waiting
        continue;
      }
      if (fds[0].revents & POLLIN) {
        if (datagram_) {
          const ssize_t n = recv(listen_fd_, buffer.data(), buffer.size(), 0);
          if (n > 0) {
            {
              std::lock_guard<std::mutex> lock(mu_);
              datagrams_.append(buffer.data(), n);
              if (datagrams_.back() != '\n') datagrams_.push_back('\n');
            }
            EXPECT_EQ(send(back, buffer.data(), n, 0), n);
          }
        } else {
          const int in = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
          if (in >= 0) {
            pairs_.emplace_back(in, ConnectBack(SOCK_STREAM));
          }
        }
      }
      for (size_t i = 1; i < fds.size(); ++i) {
        if (fds[i].revents == 0) continue;
        auto& [in, out] = pairs_[i - 1];
        const ssize_t n = read(in, buffer.data(), buffer.size());
        if (n <= 0) {
          shutdown(out, SHUT_WR);  // the listener sees the end of the process's stream
          continue;
        }
        {
          std::lock_guard<std::mutex> lock(mu_);
          recorded_[in].append(buffer.data(), n);
        }
        for (ssize_t done = 0; done < n;) {
          const ssize_t w = send(out, buffer.data() + done, n - done, MSG_NOSIGNAL);
          if (w <= 0) break;
          done += w;
        }
      }
      // Forget closed connections (their read returned 0 and was shut down).
      for (size_t i = 0; i < pairs_.size();) {
        char probe;
        if (recv(pairs_[i].first, &probe, 1, MSG_PEEK | MSG_DONTWAIT) == 0) {
          close(pairs_[i].first);
          close(pairs_[i].second);
          pairs_.erase(pairs_.begin() + i);
        } else {
          ++i;
        }
      }
    }
    if (back >= 0) close(back);
  }

  std::string front_, back_;
  bool datagram_;
  int listen_fd_ = -1;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> quiet_polls_{0};     // polls that found nothing to relay, none open
  std::vector<std::pair<int, int>> pairs_;  // relay thread only
  std::mutex mu_;
  std::map<int, std::string> recorded_;  // by accepted fd, in connection order
  std::string datagrams_;
  std::thread thread_;
};

// The EVENT lines of `text`, grouped by sid, in order.
std::map<std::string, std::string> LinesBySid(const std::string& text) {
  std::map<std::string, std::string> by_sid;
  for (const std::string& line : cli_test::Lines(text)) {
    const nlohmann::json event = nlohmann::json::parse(line, nullptr, false);
    EXPECT_TRUE(event.is_object()) << line;
    if (!event.is_object()) continue;
    by_sid[event.value("sid", "")] += line + "\n";
  }
  return by_sid;
}

class ListenGitTest : public ::testing::TestWithParam<bool> {
 protected:
  static void SetUpTestSuite() {
    if (!cli_test::HasGit()) return;
    has_git_ = true;
    for (std::string* root : {&root_a_, &root_b_}) {
      *root = cli_test::NewTempDir("listen_git");
      const cli_test::CommandResult r = cli_test::MakeGitRepository(*root);
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
  }

  void SetUp() override {
    if (!has_git_) GTEST_SKIP() << "git is not installed";
  }

  static inline bool has_git_ = false;
  static inline std::string root_a_, root_b_;
};

TEST_P(ListenGitTest, ConcurrentGitCommandsDecodeBackToTheirEventLines) {
  const bool datagram = GetParam();
  const std::string kind = datagram ? "dgram" : "stream";
  const std::string socket = SocketPath("listen_git_" + kind);
  const std::string front = SocketPath("listen_git_front_" + kind);
  const std::string out = TempDir("listen_git_out_" + kind);
  const pid_t listener = Spawn({Tool("tools/tracewire"), "listen",
                                absl::StrCat("af_unix:", kind, ":", socket), "--out", out},
                               {});
  const absl::Time deadline = absl::Now() + absl::Seconds(60);  // a bound on hangs only
  struct stat st;
  while (stat(socket.c_str(), &st) != 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_EQ(stat(socket.c_str(), &st), 0) << "the listener did not start";
  std::string recorded;
  {
    Relay relay(front, socket, datagram);
    cli_test::RunOptions options = cli_test::HermeticGitOptions(root_a_, root_a_, 60);
    options.env.insert(options.env.end(),
                       {{"GIT_TRACE2_EVENT", absl::StrCat("af_unix:", kind, ":", front)},
                        {"GIT_TRACE2_EVENT_NESTING", "100"}});
    const std::string g = cli_test::kGit;
    // Four commands at once, in two sets of repositories (no index lock between them).
    const cli_test::CommandResult git = cli_test::Shell(
        absl::StrCat("(cd ", root_a_, "/repo && echo ", kind, " >> c && ", g, " add c && ", g,
                     " commit -qm ", kind, ") & (cd ", root_b_,
                     "/repo && git status >/dev/null) & (cd ", root_a_, "/sub && ", g,
                     " -c alias.l='log -1' l >/dev/null) & (cd ", root_b_,
                     "/sub && git rev-parse --verify nonexistent >/dev/null 2>&1); wait"),
        options);
    EXPECT_EQ(git.exit_code, 0) << git.err;
    relay.WaitIdle();
    recorded = relay.Recorded();
  }
  const std::map<std::string, std::string> by_sid = LinesBySid(recorded);
  // Stream: the listener converts each process at its atexit or the end of its connection;
  // dgram: at its atexit. Wait for every file before stopping it.
  const absl::Time written = absl::Now() + absl::Seconds(60);  // a bound on hangs only
  while (absl::Now() < written) {
    const std::vector<std::string> files = FilesIn(out);
    if (files.size() >= by_sid.size() &&
        std::all_of(files.begin(), files.end(),
                    [](const std::string& f) { return !ReadWholeFile(f).empty(); })) {
      break;
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
  kill(listener, SIGTERM);
  EXPECT_EQ(Wait(listener), 0);

  // commit, its hook, status, its submodule child, the alias and its child, rev-parse:
  // at least seven git processes.
  EXPECT_GE(by_sid.size(), 7u);
  EXPECT_TRUE(absl::StrContains(recorded, "\"hook_name\":\"pre-commit\""));
  EXPECT_TRUE(absl::StrContains(recorded, "\"child_class\":\"git_alias\""));
  EXPECT_TRUE(absl::StrContains(recorded, "\"code\":128"));
  EXPECT_EQ(FilesIn(out).size(), by_sid.size());
  const std::string file_prefix = out + "/";
  for (const auto& [sid, lines] : by_sid) {
    const std::string file = file_prefix + sid.substr(sid.rfind('/') + 1);
    const cli_test::CommandResult decoded = cli_test::RunCommand(
        {Tool("tools/tracewire"), "decode", "--format=event", "--nesting=100", "--evt=3", file});
    ASSERT_EQ(decoded.exit_code, 0) << sid << ": " << decoded.err;
    const std::vector<std::string> problems =
        cli_test::CompareEventStreams(lines, decoded.out, 1.0);
    EXPECT_TRUE(problems.empty()) << sid << "\n" << absl::StrJoin(problems, "\n");
  }
  // The whole directory reads as one process forest.
  EXPECT_EQ(RunTool({Tool("tools/tracewire"), "validate", out}, {}), 0);
}

INSTANTIATE_TEST_SUITE_P(StreamAndDgram, ListenGitTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Dgram" : "Stream";
                         });

}  // namespace
}  // namespace tracewire::testing
