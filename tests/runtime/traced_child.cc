#include "tests/runtime/traced_child.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "gtest/gtest.h"

namespace tracewire::testing {

std::string MakeTempDir(const std::string& name) {
  const char* base = getenv("TEST_TMPDIR");
  std::string dir = std::string(base != nullptr ? base : "/tmp") + "/" + name + "." +
                    std::to_string(getpid()) + "." + std::to_string(rand());
  mkdir(dir.c_str(), 0755);
  return dir;
}

std::map<std::string, std::string> ChildEnv(const std::map<std::string, std::string>& overrides) {
  std::map<std::string, std::string> env;
  for (const char* name : {"TRACEWIRE",
                           "TRACEWIRE_APP_VERSION",
                           "TRACEWIRE_GENERATION_MS",
                           "TRACEWIRE_GENERATION_BYTES",
                           "TRACEWIRE_COMPRESS",
                           "TRACEWIRE_REDACT",
                           "TRACEWIRE_STACKS",
                           "TRACEWIRE_MAX_FILES",
                           "TRACEWIRE_PARENT_SID",
                           "TRACEWIRE_PARENT_NAME",
                           "TRACEWIRE_DST_DEBUG",
                           "TRACEWIRE_CONFIG_PARAMS",
                           "TRACEWIRE_ENV_VARS",
                           "TRACEWIRE_ANCESTRY",
                           "TRACEWIRE_WRITE_TIMEOUT_MS",
                           "TRACEWIRE_FLIGHT_RECORDER",
                           "TRACEWIRE_FLIGHT_SIGNAL",
                           "TRACEWIRE_FLIGHT_ON_ERROR",
                           "TRACEWIRE_CPU_PROFILE",
                           "TRACEWIRE_CLOCK",
                           "TRACEWIRE_TERMINAL_WARNED"}) {
    env[name] = "";
  }
  // No user settings file of the machine's user.
  env["XDG_CONFIG_HOME"] = "/nonexistent/tracewire-tests";
  for (const auto& [key, value] : overrides) env[key] = value;
  return env;
}

int StartInChild(const std::map<std::string, std::string>& env, const std::function<int()>& body) {
  fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    for (const auto& [key, value] : env) {
      if (value.empty()) {
        unsetenv(key.c_str());
      } else {
        setenv(key.c_str(), value.c_str(), 1);
      }
    }
    exit(body());
  }
  return pid;
}

int WaitForChild(int pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

int RunInChild(const std::map<std::string, std::string>& env, const std::function<int()>& body) {
  return WaitForChild(StartInChild(env, body));
}

std::string OnlyFileIn(const std::string& dir) {
  std::vector<std::string> files;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* entry = readdir(d)) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") files.push_back(dir + "/" + name);
    }
    closedir(d);
  }
  EXPECT_EQ(files.size(), 1u) << "in " << dir;
  return files.empty() ? "" : files[0];
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << file.rdbuf();
  return buffer.str();
}

void WriteFile(const std::string& path, const std::string& text) {
  FILE* f = fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr) << path;
  fwrite(text.data(), 1, text.size(), f);
  fclose(f);
}

void StderrTo(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(fd, 2);
  close(fd);
}

}  // namespace tracewire::testing
