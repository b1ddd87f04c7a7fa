// A fatal signal that reaches a traced process while generations are cut all the time: a
// child records nested regions on its main thread while a second thread cuts generations
// without pause (tw_flush in a loop); the parent sends it SIGTERM at a random instant. Its
// trace must validate, string tables and re-statements included. Before the fatal-signal
// path required the thread registry, a signal that reached the recording thread inside an
// event while the other thread's cut waited for it (holding the registry) wrote the
// generation's flushed batches without the threads' string records they name: an invalid
// trace within a few hundred runs, often the first.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "tracewire/tracewire.h"

namespace tracewire::reader {
namespace {

constexpr int kRuns = 200;

// With `cutter_blocks`, the signal always reaches the recording thread (often inside an
// event, which the cut then waits for); otherwise either thread.
[[noreturn]] void TracedChild(const std::string& dir, int ready_fd, bool cutter_blocks) {
  setenv("TRACEWIRE", dir.c_str(), 1);
  tw_initialize();
  std::thread cutter([cutter_blocks] {
    if (cutter_blocks) {
      sigset_t term;
      sigemptyset(&term);
      sigaddset(&term, SIGTERM);
      pthread_sigmask(SIG_BLOCK, &term, nullptr);
    }
    for (;;) tw_flush();
  });
  cutter.detach();
  const char ready = 1;
  if (write(ready_fd, &ready, 1) != 1) _exit(3);
  for (int i = 0;; ++i) {
    tw_region_enter("cut", "outer", TW_NO_REPO);
    tw_region_enter("cut", "inner", TW_NO_REPO);
    tw_data_intmax("cut", TW_NO_REPO, "i", i);
    tw_region_leave("cut", "inner", TW_NO_REPO);
    tw_region_leave("cut", "outer", TW_NO_REPO);
  }
}

TEST(SignalCutTest, TraceValidatesWhateverTheSignalsInstant) {
  std::mt19937 random(4321);
  const std::string base = absl::StrCat(::testing::TempDir(), "/signal_cut");
  std::filesystem::create_directories(base);
  for (int run = 0; run < kRuns; ++run) {
    const std::string dir = absl::StrCat(base, "/", run);
    ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      close(ready[0]);
      TracedChild(dir, ready[1], run % 2 == 1);
    }
    close(ready[1]);
    char byte = 0;
    ASSERT_EQ(read(ready[0], &byte, 1), 1);  // traced and cutting
    close(ready[0]);
    usleep(std::uniform_int_distribution<int>(0, 3000)(random));
    kill(child, SIGTERM);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      absl::StatusOr<std::unique_ptr<ByteSource>> source = OpenFileSource(entry.path().string());
      ASSERT_TRUE(source.ok()) << source.status();
      Reader reader(std::move(*source));
      absl::Status error;
      for (;;) {
        absl::StatusOr<const Event*> event = reader.Next();
        if (!event.ok()) {
          error = event.status();
          break;
        }
        if (*event == nullptr) break;
      }
      EXPECT_TRUE(error.ok()) << "run " << run << ", " << entry.path() << ": " << error;
    }
    if (::testing::Test::HasFailure()) break;
  }
}

}  // namespace
}  // namespace tracewire::reader
