// Unit tests of runtime internals: session ids (built as git's tr2_sid.c builds them) and
// the parsing of TRACEWIRE values (git's GIT_TRACE2_* rules). Redaction is tested in
// redact_test.cc.
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "runtime/sid.h"
#include "runtime/target.h"
#include "tests/runtime/traced_child.h"

namespace tracewire::runtime {
namespace {

absl::Time NotesTime() {
  return absl::FromCivil(absl::CivilSecond(2026, 11, 22, 1, 59, 55), absl::UTCTimeZone()) +
         absl::Microseconds(975172);
}

// ---- Session ids --------------------------------------------------------------------------

TEST(SidTest, OwnComponentMatchesNotesExample) {
  EXPECT_EQ(OwnSidComponent(absl::ToTimespec(NotesTime()), "vm", 7210),
            "20261122T015955.975172Z-H0a7c9cdf-P00001c2a");
}

TEST(SidTest, EmptyHostnameIsLocalhost) {
  EXPECT_EQ(OwnSidComponent(absl::ToTimespec(NotesTime()), "", 7210),
            "20261122T015955.975172Z-Localhost-P00001c2a");
}

TEST(SidTest, TimeAndPidFormatting) {
  // Whole seconds still print six fractional digits; pids are 8 lowercase hex digits.
  const absl::Time t = absl::FromCivil(absl::CivilSecond(2001, 2, 3, 4, 5, 6), absl::UTCTimeZone());
  EXPECT_EQ(OwnSidComponent(absl::ToTimespec(t), "vm", 0),
            "20010203T040506.000000Z-H0a7c9cdf-P00000000");
  EXPECT_EQ(OwnSidComponent(absl::ToTimespec(t + absl::Microseconds(1)), "vm", 0xabcdef12u),
            "20010203T040506.000001Z-H0a7c9cdf-Pabcdef12");
  // Sub-microsecond parts are dropped, not rounded.
  EXPECT_EQ(OwnSidComponent(absl::ToTimespec(t + absl::Nanoseconds(999)), "vm", 1),
            "20010203T040506.000000Z-H0a7c9cdf-P00000001");
}

TEST(SidTest, CalendarMatchesAbseilAcrossYears) {
  // Leap days, century and 400-year rules, month ends: every 7 hours 13 minutes from 1970
  // to 2200 against absl::FormatTime.
  const absl::Time start = absl::FromUnixSeconds(0);
  for (int64_t s = 0; s < int64_t{230} * 365 * 86400; s += 7 * 3600 + 13 * 60 + 17) {
    const absl::Time t = start + absl::Seconds(s);
    const std::string expected =
        absl::FormatTime("%Y%m%dT%H%M%E6SZ", t, absl::UTCTimeZone()) + "-Localhost-P00000001";
    ASSERT_EQ(OwnSidComponent(absl::ToTimespec(t), "", 1), expected) << s;
  }
}

TEST(SidTest, Sha1Hex) {
  EXPECT_EQ(Sha1Hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(Sha1Hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(Sha1Hex("vm").substr(0, 8), "0a7c9cdf");
}

TEST(SidTest, FullSidAndDepth) {
  EXPECT_EQ(FullSid("", "own"), "own");
  EXPECT_EQ(FullSid("a", "own"), "a/own");
  EXPECT_EQ(FullSid("a/b", "own"), "a/b/own");
  EXPECT_EQ(SidDepth("own"), 0);
  EXPECT_EQ(SidDepth("a/own"), 1);
  EXPECT_EQ(SidDepth("a/b/own"), 2);
  EXPECT_EQ(SidDepth(FullSid("foo/bar", "x")), 2);  // as in git: parent foo/bar gives d2
}

// ---- ParseTarget -------------------------------------------------------------------------------

TEST(ParseTargetTest, Disabled) {
  for (const char* value : {"", "0", "false", "FALSE", "False", "fAlSe"}) {
    std::optional<TargetSpec> spec = ParseTarget(value);
    ASSERT_TRUE(spec.has_value()) << value;
    EXPECT_EQ(spec->kind, TargetSpec::Kind::kDisabled) << value;
  }
}

TEST(ParseTargetTest, Stderr) {
  for (const char* value : {"1", "true", "TRUE", "True"}) {
    std::optional<TargetSpec> spec = ParseTarget(value);
    ASSERT_TRUE(spec.has_value()) << value;
    EXPECT_EQ(spec->kind, TargetSpec::Kind::kFd) << value;
    EXPECT_EQ(spec->fd, 2) << value;
  }
}

TEST(ParseTargetTest, SingleDigitFds) {
  for (int fd = 2; fd <= 9; ++fd) {
    std::optional<TargetSpec> spec = ParseTarget(std::to_string(fd));
    ASSERT_TRUE(spec.has_value()) << fd;
    EXPECT_EQ(spec->kind, TargetSpec::Kind::kFd);
    EXPECT_EQ(spec->fd, fd);
  }
}

TEST(ParseTargetTest, Invalid) {
  const std::string long_socket = "af_unix:/" + std::string(sizeof(sockaddr_un::sun_path), 's');
  for (const std::string& value :
       {std::string("yes"), std::string("no"), std::string("10"), std::string("02"),
        std::string("-1"), std::string(" 1"), std::string("relative/path"), std::string("./x"),
        std::string("~/trace"), std::string("af_unix:"), std::string("af_unix:rel/sock"),
        std::string("af_unix:stream:rel"), std::string("af_unix:dgram:"), std::string("af_inet:/x"),
        long_socket}) {
    std::string error;
    std::optional<TargetSpec> spec = ParseTarget(value, &error);
    EXPECT_FALSE(spec.has_value()) << "'" << value << "'";
    EXPECT_FALSE(error.empty()) << "'" << value << "'";
  }
}

TEST(ParseTargetTest, UnixSockets) {
  struct Case {
    const char* value;
    TargetSpec::SocketType type;
    const char* path;
  };
  for (const Case& c : {Case{"af_unix:/tmp/s", TargetSpec::SocketType::kAuto, "/tmp/s"},
                        Case{"af_unix:stream:/tmp/s", TargetSpec::SocketType::kStream, "/tmp/s"},
                        Case{"af_unix:dgram:/tmp/s", TargetSpec::SocketType::kDgram, "/tmp/s"}}) {
    std::optional<TargetSpec> spec = ParseTarget(c.value);
    ASSERT_TRUE(spec.has_value()) << c.value;
    EXPECT_EQ(spec->kind, TargetSpec::Kind::kUnixSocket) << c.value;
    EXPECT_EQ(spec->socket_type, c.type) << c.value;
    EXPECT_EQ(spec->path, c.path) << c.value;
  }
  // The longest path that fits sun_path with its NUL.
  const std::string longest = "/" + std::string(sizeof(sockaddr_un::sun_path) - 2, 's');
  std::optional<TargetSpec> spec = ParseTarget("af_unix:" + longest);
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->path, longest);
}

TEST(ParseTargetTest, FilesAndDirectories) {
  const std::string dir = testing::MakeTempDir("parse");
  std::optional<TargetSpec> spec = ParseTarget(dir);
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->kind, TargetSpec::Kind::kDirectory);
  EXPECT_EQ(spec->path, dir);

  spec = ParseTarget(dir + "/");
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->kind, TargetSpec::Kind::kDirectory);

  // A path that does not exist yet, and an existing regular file: append to a file.
  spec = ParseTarget(dir + "/new.tw");
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->kind, TargetSpec::Kind::kFile);
  EXPECT_EQ(spec->path, dir + "/new.tw");
  const std::string file = dir + "/existing.tw";
  FILE* f = fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fclose(f);
  spec = ParseTarget(file);
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->kind, TargetSpec::Kind::kFile);

  spec = ParseTarget("/");
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->kind, TargetSpec::Kind::kDirectory);
}

}  // namespace
}  // namespace tracewire::runtime
