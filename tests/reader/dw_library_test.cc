// reader::LoadDwLibrary and reader::Dw: libdw resolved at run time, and the error that
// names the library and the Debian package when it cannot be loaded.
#include "reader/dw_library.h"

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracewire::reader {
namespace {

using ::testing::HasSubstr;

TEST(DwLibraryTest, LoadsEveryFunction) {
  const absl::StatusOr<DwLibrary> lib = LoadDwLibrary();
  ASSERT_TRUE(lib.ok()) << lib.status();
  EXPECT_NE(lib->begin, nullptr);
  EXPECT_NE(lib->end, nullptr);
  EXPECT_NE(lib->report_begin, nullptr);
  EXPECT_NE(lib->report_elf, nullptr);
  EXPECT_NE(lib->report_end, nullptr);
  EXPECT_NE(lib->module_build_id, nullptr);
  EXPECT_NE(lib->module_addrinfo, nullptr);
  EXPECT_NE(lib->module_getsrc, nullptr);
  EXPECT_NE(lib->lineinfo, nullptr);
  EXPECT_NE(lib->build_id_find_elf, nullptr);
  EXPECT_NE(lib->standard_find_debuginfo, nullptr);
  EXPECT_NE(lib->offline_section_address, nullptr);
}

TEST(DwLibraryTest, ProcessTableIsLoadedOnce) {
  const absl::StatusOr<const DwLibrary*> first = Dw();
  ASSERT_TRUE(first.ok()) << first.status();
  const absl::StatusOr<const DwLibrary*> second = Dw();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*first, *second);
  // The table works: a session can be opened and closed.
  static char* debuginfo_path = nullptr;
  const Dwfl_Callbacks callbacks = {
      .find_elf = (*first)->build_id_find_elf,
      .find_debuginfo = (*first)->standard_find_debuginfo,
      .section_address = (*first)->offline_section_address,
      .debuginfo_path = &debuginfo_path,
  };
  Dwfl* dwfl = (*first)->begin(&callbacks);
  ASSERT_NE(dwfl, nullptr);
  (*first)->end(dwfl);
}

TEST(DwLibraryTest, MissingLibraryNamesLibraryAndPackage) {
  const absl::StatusOr<DwLibrary> lib = LoadDwLibrary("libdw-not-installed.so.1");
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(lib.status().message(), HasSubstr("needs libdw"));
  EXPECT_THAT(lib.status().message(), HasSubstr("libdw-not-installed.so.1: "));
  EXPECT_THAT(lib.status().message(), HasSubstr("install the Debian package libdw1"));
}

TEST(DwLibraryTest, LibraryWithoutTheFunctionsNamesTheMissingOne) {
  // The C library loads but has no dwfl_begin.
  const absl::StatusOr<DwLibrary> lib = LoadDwLibrary("libc.so.6");
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(lib.status().message(), HasSubstr("libc.so.6: it has no function dwfl_begin"));
  EXPECT_THAT(lib.status().message(), HasSubstr("install the Debian package libdw1"));
}

}  // namespace
}  // namespace tracewire::reader
