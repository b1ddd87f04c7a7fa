#include "tests/export/collector_support.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/export/export_support.h"

namespace tracewire::testing {

RunningCollector::RunningCollector(tools::CollectorOptions options) {
  absl::StatusOr<std::unique_ptr<tools::Collector>> c = tools::Collector::Listen(options);
  EXPECT_TRUE(c.ok()) << c.status();
  if (!c.ok()) return;
  collector_ = std::move(*c);
  thread_ = std::thread([this] { EXPECT_TRUE(collector_->Run().ok()); });
}

tools::CollectorStats RunningCollector::Stop(bool wait_for_disconnects, uint64_t connections) {
  if (collector_ == nullptr) return {};
  if (thread_.joinable()) {
    const absl::Time deadline = absl::Now() + absl::Seconds(60);  // a bound on hangs only
    while (wait_for_disconnects && absl::Now() < deadline) {
      const tools::CollectorStats stats = collector_->stats();
      if (stats.active_connections == 0 && stats.connections >= connections) break;
      absl::SleepFor(absl::Milliseconds(5));
    }
    collector_->Stop();
    thread_.join();
  }
  return collector_->stats();
}

int ConnectStream(const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  return fd;
}

void SendAll(int fd, absl::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    ASSERT_GT(n, 0);
    bytes.remove_prefix(n);
  }
}

Listener StartListener(const std::string& name, const std::string& kind,
                       const std::vector<std::string>& flags, const std::string& shell_prefix) {
  Listener l;
  l.socket = SocketPath(name);
  l.out_dir = TempDir(name);
  l.log = l.out_dir + ".log";
  std::string command = absl::StrCat(shell_prefix, " exec \"$0\" listen af_unix:", kind, ":",
                                     l.socket, " --out ", l.out_dir);
  for (const std::string& flag : flags) absl::StrAppend(&command, " '", flag, "'");
  absl::StrAppend(&command, " 2>", l.log);
  l.pid = Spawn({"/bin/sh", "-c", command, Tool("tools/tracewire")}, {});
  const absl::Time deadline = absl::Now() + absl::Seconds(60);  // a bound on hangs only
  struct stat st;
  while (stat(l.socket.c_str(), &st) != 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(stat(l.socket.c_str(), &st), 0) << "the listener did not start";
  return l;
}

int StopListener(const Listener& listener) {
  kill(listener.pid, SIGTERM);
  return Wait(listener.pid);
}

uint64_t Counted(const std::string& log, const std::string& label) {
  const size_t at = log.find(label);
  if (at == std::string::npos || at < 2) return ~uint64_t{0};
  const size_t start = log.find_last_of(" (", at - 2) + 1;
  uint64_t n = ~uint64_t{0};
  if (!absl::SimpleAtoi(log.substr(start, at - 1 - start), &n)) return ~uint64_t{0};
  return n;
}

}  // namespace tracewire::testing
