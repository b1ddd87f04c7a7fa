// The formatter flags' table (tools/commands/formatter_flags.h) says which formats each of
// --brief, --git_exact, --nesting, --evt, --stacks and --regions applies to. Checked here against
// the formatters themselves: on traces that exercise every option, setting the option changes a
// format's output exactly when the table says it applies. And CheckFormatterFlagsApply turns the
// table into usage errors that name the flag and the format.
#include "tools/commands/formatter_flags.h"

#include <sys/stat.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reader/targets/formatter.h"
#include "tests/cli/cli_runner.h"
#include "tools/cli/command_line.h"
#include "tools/cli/trace_input.h"
#include "tools/commands/decode_command.h"

namespace tracewire::tools {
namespace {

using cli_test::NewTempDir;
using cli_test::RunCommand;
using cli_test::Runfile;
using cli_test::Tracewire;

// Traces that every option changes something in, when its format reads it: git's EVENT
// stream imported (regions nested 4 deep), the demo (atexit and timers with no call site,
// so --git_exact shows git's own), testtool's stacks (events with a stack), a CPU-profiled
// workload (samples inside regions).
const std::vector<std::string>& Traces() {
  static const std::vector<std::string>* traces = [] {
    const std::string dir = NewTempDir("formatter_flags");
    auto* paths = new std::vector<std::string>{dir + "/git.twr", dir + "/demo", dir + "/stacks.twr",
                                               dir + "/cpu.twr"};
    EXPECT_EQ(RunCommand({Tracewire(), "import", "--from=trace2-event",
                          Runfile("tests/cli/testdata/git_event_stream.json"), "-o", (*paths)[0]})
                  .exit_code,
              0);
    EXPECT_EQ(mkdir((*paths)[1].c_str(), 0755), 0);
    EXPECT_EQ(RunCommand({Runfile("examples/demo/demo")}, {.env = {{"TRACEWIRE", (*paths)[1]}}})
                  .exit_code,
              1);  // the demo fails on purpose
    EXPECT_EQ(
        RunCommand({Runfile("tests/testtool/testtool"), "trace2", "stacks", "2"},
                   {.env = {{"TRACEWIRE", (*paths)[2]}, {"TRACEWIRE_STACKS", "region_enter"}}})
            .exit_code,
        0);
    EXPECT_EQ(RunCommand({Runfile("tests/viewers/cpu_workload"), "0.05"},
                         {.env = {{"TRACEWIRE", (*paths)[3]}, {"TRACEWIRE_CPU_PROFILE", "250"}}})
                  .exit_code,
              0);
    return paths;
  }();
  return *traces;
}

// Every trace of Traces() written in `format` with `options`.
std::string Render(absl::string_view format, const targets::FormatterOptions& options) {
  std::string out;
  for (const std::string& path : Traces()) {
    absl::StatusOr<std::unique_ptr<targets::Formatter>> formatter =
        targets::MakeFormatter(format, options);
    EXPECT_TRUE(formatter.ok()) << formatter.status();
    if (!formatter.ok()) return "";
    absl::StatusOr<std::unique_ptr<TraceInput>> input = TraceInput::Open(path, {});
    EXPECT_TRUE(input.ok()) << input.status();
    if (!input.ok()) return "";
    while (true) {
      absl::StatusOr<const reader::Event*> event = (*input)->Next();
      EXPECT_TRUE(event.ok()) << event.status();
      if (!event.ok() || *event == nullptr) break;
      (*formatter)->Write(**event, &out);
    }
    (*formatter)->Finish(&out);
  }
  return out;
}

// The options with the option of flag `name` set away from its default.
targets::FormatterOptions WithOption(absl::string_view name) {
  targets::FormatterOptions options;
  if (name == "brief") options.brief = true;
  if (name == "git_exact") options.git_exact = true;
  if (name == "nesting") options.event_nesting = 100;
  if (name == "evt") options.event_version = 3;
  if (name == "stacks") options.event_stacks = true;
  if (name == "regions") options.folded_regions = true;
  return options;
}

TEST(FormatterFlagsTest, EveryFormatIsOneTheFormattersMake) {
  for (absl::string_view format : FormatNames()) {
    EXPECT_TRUE(targets::MakeFormatter(format, {}).ok()) << format;
  }
  for (const FormatterFlag& flag : FormatterFlags()) {
    for (absl::string_view format : flag.formats) {
      EXPECT_THAT(FormatNames(), ::testing::Contains(format)) << flag.flag;
    }
  }
}

TEST(FormatterFlagsTest, AnOptionChangesTheOutputExactlyWhereTheTableSaysItApplies) {
  for (absl::string_view format : FormatNames()) {
    const std::string plain = Render(format, {});
    ASSERT_FALSE(plain.empty()) << format;
    for (const FormatterFlag& flag : FormatterFlags()) {
      SCOPED_TRACE(absl::StrCat("--", flag.flag, " with --format=", format));
      const bool applies =
          std::find(flag.formats.begin(), flag.formats.end(), format) != flag.formats.end();
      EXPECT_EQ(Render(format, WithOption(flag.flag)) != plain, applies);
    }
  }
}

// The decode command line of `words` (which sets the absl flags).
CommandLine Parse(const std::vector<std::string>& words) {
  absl::StatusOr<CommandLine> line = ParseCommandLine(words, DecodeCommand().flags);
  EXPECT_TRUE(line.ok()) << line.status();
  return line.ok() ? *line : CommandLine();
}

TEST(FormatterFlagsTest, AFlagGivenForAFormatItDoesNotApplyToIsAnError) {
  for (const FormatterFlag& flag : FormatterFlags()) {
    const std::string word = flag.flag == "nesting" || flag.flag == "evt"
                                 ? absl::StrCat("--", flag.flag, "=3")
                                 : absl::StrCat("--", flag.flag);
    const CommandLine line = Parse({word, "trace.twr"});
    for (absl::string_view format : FormatNames()) {
      SCOPED_TRACE(absl::StrCat(word, " with --format=", format));
      const bool applies =
          std::find(flag.formats.begin(), flag.formats.end(), format) != flag.formats.end();
      const absl::Status status = CheckFormatterFlagsApply(line, format);
      EXPECT_EQ(status.ok(), applies) << status;
      if (!applies) {
        EXPECT_TRUE(absl::IsInvalidArgument(status));
        EXPECT_THAT(std::string(status.message()),
                    ::testing::StartsWith(
                        absl::StrCat("--", flag.flag, " does not apply to --format=", format)));
      }
    }
  }
  EXPECT_EQ(CheckFormatterFlagsApply(Parse({"--nesting=3"}), "perf").message(),
            "--nesting does not apply to --format=perf (only to event)");
  EXPECT_EQ(CheckFormatterFlagsApply(Parse({"--brief"}), "chrome").message(),
            "--brief does not apply to --format=chrome (only to event, perf and normal)");
  // The other decode flags apply to every format; an unknown format is MakeFormatter's to
  // report.
  const CommandLine others = Parse({"--salvage", "--follow", "--jobs=2", "-o", "x"});
  for (absl::string_view format : FormatNames()) {
    EXPECT_TRUE(CheckFormatterFlagsApply(others, format).ok()) << format;
  }
  EXPECT_TRUE(CheckFormatterFlagsApply(Parse({"--nesting=3"}), "xml").ok());
}

}  // namespace
}  // namespace tracewire::tools
