// The replay test of a fuzz target: one GoogleTest case per directory named on the command
// line (the target's seed corpus and its regression inputs), running every file through
// LLVMFuzzerTestOneInput. A crash aborts the test; the log names the input that caused it.
#include <cstdio>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/fuzz/fuzz_input_files.h"

namespace {

class ReplayTest : public ::testing::Test {
 public:
  explicit ReplayTest(std::string dir) : dir_(std::move(dir)) {}
  void TestBody() override {
    absl::StatusOr<std::vector<std::string>> files = tracewire::fuzz::InputFiles(dir_);
    ASSERT_TRUE(files.ok()) << files.status();
    for (const std::string& file : *files) {
      absl::StatusOr<std::string> input = tracewire::fuzz::ReadInput(file);
      ASSERT_TRUE(input.ok()) << input.status();
      std::fprintf(stderr, "replaying %s (%zu bytes)\n", file.c_str(), input->size());
      LLVMFuzzerTestOneInput(reinterpret_cast<const unsigned char*>(input->data()), input->size());
    }
    RecordProperty("inputs", static_cast<int>(files->size()));
    std::fprintf(stderr, "%s: %zu inputs replayed\n", dir_.c_str(), files->size());
  }

 private:
  std::string dir_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string dir = argv[i];
    const std::string name = dir.substr(dir.find_last_of('/', dir.size() - 2) + 1);
    const std::string suite = dir.find("regressions") != std::string::npos ? "Regressions" : "Corpus";
    ::testing::RegisterTest(suite.c_str(), name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [dir]() -> ::testing::Test* { return new ReplayTest(dir); });
  }
  return RUN_ALL_TESTS();
}
