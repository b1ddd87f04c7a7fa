#include "tools/commands/run.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tools/collector/collector.h"
#include "tools/cli/directory_follower.h"
#include "tools/cli/exit_codes.h"

extern char** environ;

namespace tracewire::tools {
namespace {

// How often the child, the collector and the trace directory are looked at.
constexpr absl::Duration kPollInterval = absl::Milliseconds(20);
constexpr char kDefaultGenerationMs[] = "100";

std::atomic<pid_t> g_child{0};

void ForwardSignal(int signo) {
  const pid_t child = g_child.load();
  if (child > 0) kill(child, signo);
}

void PrintError(absl::string_view message) {
  std::fprintf(stderr, "tracewire run: %s\n", std::string(message).c_str());
}

// A fresh private directory for the socket and, unless kept elsewhere, the traces; removed
// with everything in it on destruction.
class WorkDirectory {
 public:
  static absl::StatusOr<std::unique_ptr<WorkDirectory>> Create() {
    const char* tmp = std::getenv("TMPDIR");
    std::string base = tmp != nullptr && tmp[0] == '/' ? tmp : "/tmp";
    // The socket path must fit in sockaddr_un::sun_path.
    if (base.size() + 32 >= sizeof(sockaddr_un::sun_path)) base = "/tmp";
    std::string path = base + "/tracewire-run.XXXXXX";
    if (mkdtemp(path.data()) == nullptr) {
      return absl::ErrnoToStatus(errno, absl::StrCat("cannot create a directory in ", base));
    }
    return std::unique_ptr<WorkDirectory>(new WorkDirectory(std::move(path)));
  }
  ~WorkDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  explicit WorkDirectory(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// The environment of COMMAND: ours, tracing to `socket_path` as a new process tree.
std::vector<std::string> ChildEnvironment(const std::string& socket_path) {
  std::vector<std::string> env;
  bool has_generation_ms = false;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const absl::string_view var(*entry);
    if (absl::StartsWith(var, "TRACEWIRE=") || absl::StartsWith(var, "TRACEWIRE_PARENT_SID=") ||
        absl::StartsWith(var, "TRACEWIRE_PARENT_NAME=")) {
      continue;
    }
    has_generation_ms |= absl::StartsWith(var, "TRACEWIRE_GENERATION_MS=");
    env.emplace_back(var);
  }
  env.push_back(absl::StrCat("TRACEWIRE=af_unix:stream:", socket_path));
  if (!has_generation_ms) {
    env.push_back(absl::StrCat("TRACEWIRE_GENERATION_MS=", kDefaultGenerationMs));
  }
  return env;
}

// Starts `command` with `env`, its SIGINT/SIGQUIT/SIGTERM/SIGHUP at their defaults.
// Returns its pid, or the errno of the failed start.
absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& command,
                            const std::vector<std::string>& env) {
  std::vector<char*> argv;
  for (const std::string& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& var : env) envp.push_back(const_cast<char*>(var.c_str()));
  envp.push_back(nullptr);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int signo : {SIGINT, SIGQUIT, SIGTERM, SIGHUP}) sigaddset(&defaults, signo);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int error = posix_spawnp(&pid, argv[0], nullptr, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  if (error != 0) return absl::ErrnoToStatus(error, absl::StrCat("cannot run '", command[0], "'"));
  return pid;
}

// The signal dispositions of tracewire while COMMAND runs, restored on destruction.
class ChildSignals {
 public:
  ChildSignals() {
    struct sigaction ignore = {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    struct sigaction forward = {};
    forward.sa_handler = ForwardSignal;
    sigemptyset(&forward.sa_mask);
    forward.sa_flags = SA_RESTART;
    sigaction(SIGINT, &ignore, &saved_[0]);
    sigaction(SIGQUIT, &ignore, &saved_[1]);
    sigaction(SIGTERM, &forward, &saved_[2]);
    sigaction(SIGHUP, &forward, &saved_[3]);
  }
  ~ChildSignals() {
    const int signals[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};
    for (int i = 0; i < 4; ++i) sigaction(signals[i], &saved_[i], nullptr);
  }

 private:
  struct sigaction saved_[4];
};

// Connects to the collector's socket and hangs up at once. Connections are accepted in
// order, so once the collector counts this one, every process that connected before it has
// been accepted. False if it could not connect.
bool Probe(const std::string& socket_path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  const bool connected = connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return connected;
}

int ExitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return kExitUsage;
}

}  // namespace

RunArguments SplitRunArguments(absl::Span<const std::string> args,
                               absl::Span<const absl::string_view> value_flags) {
  RunArguments split;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') break;  // COMMAND
    split.flags.push_back(arg);
    if (arg.find('=') != std::string::npos) continue;
    absl::string_view name(arg);
    name.remove_prefix(name[1] == '-' ? 2 : 1);
    for (absl::string_view flag : value_flags) {
      if (name == flag && i + 1 < args.size()) {
        split.flags.push_back(args[++i]);
        break;
      }
    }
  }
  split.command.assign(args.begin() + i, args.end());
  return split;
}

int Run(const RunOptions& options) {
  if (options.command.empty()) {
    PrintError("no COMMAND to run");
    return kExitUsage;
  }
  std::FILE* out = stderr;
  if (!options.output.empty() && options.output != "-") {
    out = std::fopen(options.output.c_str(), "w");
    if (out == nullptr) {
      PrintError(absl::StrCat(options.output, ": cannot open for writing: ", strerror(errno)));
      return kExitUsage;
    }
  } else if (options.output == "-") {
    out = stdout;
  }
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(
      out == stderr || out == stdout ? nullptr : out, &std::fclose);

  absl::StatusOr<std::unique_ptr<WorkDirectory>> work = WorkDirectory::Create();
  if (!work.ok()) {
    PrintError(work.status().message());
    return kExitUsage;
  }
  CollectorOptions collector_options;
  collector_options.socket_path = (*work)->path() + "/socket";
  // The command's processes are ours: a process that records nothing for a long time (the
  // runtime skips empty generations) must not be disconnected.
  collector_options.idle_timeout = absl::ZeroDuration();
  collector_options.out_dir =
      options.trace_dir.empty() ? (*work)->path() + "/traces" : options.trace_dir;
  absl::StatusOr<std::unique_ptr<Collector>> collector = Collector::Listen(collector_options);
  if (!collector.ok()) {
    PrintError(collector.status().message());
    return kExitUsage;
  }
  absl::Status collector_status;
  std::thread collector_thread([&] { collector_status = (*collector)->Run(); });

  DirectoryFollowerOptions follow;
  follow.dir = collector_options.out_dir;
  follow.format = options.format;
  follow.formatter = options.formatter;
  bool write_failed = false;
  DirectoryFollower follower(follow, [out, &write_failed](absl::string_view text) {
    write_failed |= std::fwrite(text.data(), 1, text.size(), out) != text.size();
    write_failed |= std::fflush(out) != 0;
  });

  int exit_code = kExitUsage;
  {
    const ChildSignals signals;
    absl::StatusOr<pid_t> child =
        Spawn(options.command, ChildEnvironment(collector_options.socket_path));
    if (!child.ok()) {
      PrintError(child.status().message());
      exit_code = absl::IsNotFound(child.status()) ? 127 : 126;
    } else {
      g_child.store(*child);
      int status = 0;
      while (true) {
        const pid_t done = waitpid(*child, &status, WNOHANG);
        if (done == *child || (done < 0 && errno != EINTR)) break;
        follower.Scan();
        absl::SleepFor(kPollInterval);
      }
      g_child.store(0);
      exit_code = ExitCodeOf(status);
    }
  }

  // Let the collector take in what every traced process sent: all connections made before
  // the probe are accepted once the probe is, and read to their end once none is active.
  const uint64_t before_probe = (*collector)->stats().connections;
  const bool probed = Probe(collector_options.socket_path);
  const absl::Time deadline = absl::Now() + options.linger;
  while (true) {
    const CollectorStats stats = (*collector)->stats();
    if ((!probed || stats.connections > before_probe) && stats.active_connections == 0) break;
    if (absl::Now() > deadline) {
      PrintError(absl::StrCat(stats.active_connections,
                              " traced process(es) still running after COMMAND ended; their "
                              "events from now on are not shown"));
      break;
    }
    follower.Scan();
    absl::SleepFor(kPollInterval);
  }
  (*collector)->Stop();
  collector_thread.join();
  follower.Scan();
  const absl::Status follow_status = follower.Finish();
  if (!collector_status.ok()) PrintError(collector_status.message());
  if (!follow_status.ok()) PrintError(follow_status.message());
  if (write_failed) {
    PrintError(
        absl::StrCat(options.output.empty() ? "<stderr>" : options.output, ": write failed"));
  }
  return exit_code;
}

}  // namespace tracewire::tools
