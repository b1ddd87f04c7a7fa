// struct tw_settings across header versions: a program compiled against the header before
// the structure had struct_size (old_settings_program.c, its own copy of that layout) on
// this library; a program compiled against this header on a library that predates
// tw_initialize_with_sized_fl (which gets the call through tw_initialize_with_fl and reads
// the fields it knows); a program compiled against a newer header (a larger struct_size).
// Each structure ends right before an inaccessible page: a read past it faults the child.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "tests/runtime/trace_file.h"
#include "tests/runtime/traced_child.h"
#include "tracewire/tracewire.h"

extern "C" int OldProgramInitialize(const char* target);
extern "C" size_t OldSettingsSize(void);

namespace tracewire::testing {
namespace {

// `size` bytes that end right before an inaccessible page (zeroed).
void* EndOfPage(size_t size) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  auto* memory = static_cast<char*>(
      mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (memory == MAP_FAILED || mprotect(memory + page, page, PROT_NONE) != 0) return nullptr;
  std::memset(memory + page - size, 0, size);
  return memory + page - size;
}

// Records one region in category "kept" and one in "dropped", then ends.
int RecordTwoRegions() {
  tw_region_enter("kept", "r", TW_NO_REPO);
  tw_region_leave("kept", "r", TW_NO_REPO);
  tw_region_enter("dropped", "r", TW_NO_REPO);
  tw_region_leave("dropped", "r", TW_NO_REPO);
  return 0;
}

// The trace the child left in `dir`: decoded, every generation compressed, and the
// categories of its region_enter events.
struct Outcome {
  bool all_compressed = true;
  std::string app_version;
  std::vector<std::string> categories;
};

Outcome Read(const std::string& dir) {
  Outcome outcome;
  absl::StatusOr<DecodedTrace> trace = DecodeTrace(ReadFile(OnlyFileIn(dir)));
  EXPECT_TRUE(trace.ok()) << trace.status();
  if (!trace.ok()) return outcome;
  for (const DecodedGeneration& gen : trace->generations) {
    outcome.all_compressed = outcome.all_compressed && gen.compressed;
  }
  const std::vector<DecodedEvent> version = trace->Events("version");
  if (!version.empty()) outcome.app_version = version[0].Str("exe_string").value_or("");
  for (const DecodedEvent& e : trace->Events("region_enter")) {
    outcome.categories.push_back(e.site.category.value_or(""));
  }
  return outcome;
}

TEST(SettingsAbiTest, InitializerSetsTheSize) {
  const tw_settings settings = TW_SETTINGS_INIT;
  EXPECT_EQ(settings.struct_size, sizeof(tw_settings));
  EXPECT_EQ(settings.target, nullptr);
  EXPECT_EQ(settings.cpu_profile_hz, 0u);
  // The old layout is this one's prefix: every field the old header had is where it was.
  EXPECT_EQ(OldSettingsSize(), offsetof(tw_settings, categories));
}

TEST(SettingsAbiTest, OldProgramOnThisLibrary) {
  const std::string dir = MakeTempDir("abi_old_program");
  const int status = RunInChild(ChildEnv({}), [&dir] {
    if (OldProgramInitialize(dir.c_str()) != 0) return 1;
    return RecordTwoRegions();
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const Outcome outcome = Read(dir);
  EXPECT_TRUE(outcome.all_compressed);  // its compress = 1 was read
  EXPECT_EQ(outcome.app_version, "old-program");
  EXPECT_EQ(outcome.categories, (std::vector<std::string>{"kept", "dropped"}));
}

TEST(SettingsAbiTest, ThisProgramOnThisLibrary) {
  const std::string dir = MakeTempDir("abi_this_program");
  const int status = RunInChild(ChildEnv({}), [&dir] {
    auto* settings = static_cast<tw_settings*>(EndOfPage(sizeof(tw_settings)));
    if (settings == nullptr) return 2;
    *settings = TW_SETTINGS_INIT;
    settings->target = dir.c_str();
    settings->compress = 1;
    settings->categories = "-dropped";
    if (tw_initialize_with(settings) != 0) return 1;
    return RecordTwoRegions();
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const Outcome outcome = Read(dir);
  EXPECT_TRUE(outcome.all_compressed);
  EXPECT_EQ(outcome.categories, (std::vector<std::string>{"kept"}));
}

// A library that predates tw_initialize_with_sized_fl reads the fields it knows of this
// header's structure: the call the macro falls back to.
TEST(SettingsAbiTest, ThisProgramOnAnOldLibrary) {
  const std::string dir = MakeTempDir("abi_old_library");
  const int status = RunInChild(ChildEnv({}), [&dir] {
    auto* settings = static_cast<tw_settings*>(EndOfPage(sizeof(tw_settings)));
    if (settings == nullptr) return 2;
    *settings = TW_SETTINGS_INIT;
    settings->target = dir.c_str();
    settings->compress = 1;
    settings->categories = "-dropped";  // unknown to the old library
    if (tw_initialize_with_fl(__FILE__, __LINE__, settings) != 0) return 1;
    return RecordTwoRegions();
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const Outcome outcome = Read(dir);
  EXPECT_TRUE(outcome.all_compressed);
  EXPECT_EQ(outcome.categories, (std::vector<std::string>{"kept", "dropped"}));
}

// A program compiled against a newer header: a larger structure, its extra fields unknown
// here and never read.
TEST(SettingsAbiTest, NewerProgramOnThisLibrary) {
  const std::string dir = MakeTempDir("abi_newer_program");
  const int status = RunInChild(ChildEnv({}), [&dir] {
    const size_t newer_size = sizeof(tw_settings) + 16;
    auto* memory = static_cast<unsigned char*>(EndOfPage(newer_size));
    if (memory == nullptr) return 2;
    std::memset(memory + sizeof(tw_settings), 0xff, 16);  // fields this library lacks
    auto* settings = reinterpret_cast<tw_settings*>(memory);
    *settings = TW_SETTINGS_INIT;
    settings->struct_size = newer_size;
    settings->target = dir.c_str();
    settings->categories = "-dropped";
    if (tw_initialize_with(settings) != 0) return 1;
    return RecordTwoRegions();
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const Outcome outcome = Read(dir);
  EXPECT_FALSE(outcome.all_compressed);
  EXPECT_EQ(outcome.categories, (std::vector<std::string>{"kept"}));
}

// A struct_size too small for any header that had the field is refused.
TEST(SettingsAbiTest, ImpossibleSizeIsRefused) {
  const std::string dir = MakeTempDir("abi_bad_size");
  const int status = RunInChild(ChildEnv({}), [&dir] {
    tw_settings settings = TW_SETTINGS_INIT;
    settings.target = dir.c_str();
    settings.struct_size = 8;
    return tw_initialize_with(&settings) == -1 && !tw_is_enabled() ? 0 : 1;
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

}  // namespace
}  // namespace tracewire::testing
