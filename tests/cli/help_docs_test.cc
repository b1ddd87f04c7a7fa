// The command list (tools/commands/command_list.h), the help it prints and docs/cli.md
// agree: every command is in `tracewire help`, in the docs' list of commands and in their
// synopses; every flag a command accepts is in its help and in its docs synopsis; the
// docs' synopses name no flag the command does not accept and spell every flag as the
// help's synopsis does (`--evt=1|2|3|4`); the docs' table of which formats each formatter
// flag applies to is the command's own table.
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"
#include "tools/cli/command.h"
#include "tools/cli/usage.h"
#include "tools/commands/command_list.h"
#include "tools/commands/formatter_flags.h"

namespace tracewire::tools {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// One form of a command in a synopsis: "tracewire WORD ..." with its continuation lines
// joined.
struct SynopsisEntry {
  std::string word;  // the word after "tracewire": a command, --version, COMMAND
  std::string text;  // everything after the word
};

// The entries of a synopsis: lines starting with "tracewire " (after "usage: " and
// indentation) begin one, other lines continue it.
std::vector<SynopsisEntry> EntriesOf(absl::string_view synopsis) {
  std::vector<SynopsisEntry> entries;
  for (absl::string_view line : absl::StrSplit(synopsis, '\n', absl::SkipWhitespace())) {
    line = absl::StripLeadingAsciiWhitespace(line);
    absl::ConsumePrefix(&line, "usage:");
    line = absl::StripLeadingAsciiWhitespace(line);
    if (absl::ConsumePrefix(&line, "tracewire ")) {
      const size_t space = line.find(' ');
      entries.push_back({std::string(line.substr(0, space)),
                         space == absl::string_view::npos ? "" : std::string(line.substr(space))});
    } else if (!entries.empty()) {
      absl::StrAppend(&entries.back().text, " ", line);
    }
  }
  return entries;
}

// The flags of a synopsis entry as written: "--evt=1|2|3|4", "--out", "-o".
std::set<std::string> FlagTokensOf(const std::string& text) {
  static const std::regex kFlag(R"((^|[\s\[])(--?[A-Za-z][A-Za-z0-9_-]*(=[^\s\[\]]*)?))");
  std::set<std::string> tokens;
  for (std::sregex_iterator it(text.begin(), text.end(), kFlag), end; it != end; ++it) {
    tokens.insert((*it)[2].str());
  }
  return tokens;
}

// The flag name of a token: "--otlp-header=NAME=VALUE" -> "otlp_header".
std::string FlagNameOf(absl::string_view token) {
  absl::ConsumePrefix(&token, "-");
  absl::ConsumePrefix(&token, "-");
  return absl::StrReplaceAll(token.substr(0, token.find('=')), {{"-", "_"}});
}

// The names of the flags `command` accepts.
std::set<std::string> FlagNamesOf(const Command& command) {
  std::set<std::string> names;
  for (const absl::CommandLineFlag* flag : command.flags) names.insert(std::string(flag->Name()));
  return names;
}

// The command a synopsis entry is a form of: the command named by its word, or the one
// whose own synopsis has a form with that word (`tracewire --version`, `tracewire COMMAND
// --help`); nullptr if none.
const Command* CommandOf(const SynopsisEntry& entry) {
  if (const Command* command = FindCommand(entry.word)) return command;
  for (const Command* command : Commands()) {
    for (const SynopsisEntry& own : EntriesOf(command->Synopsis())) {
      if (own.word == entry.word) return command;
    }
  }
  return nullptr;
}

std::string DocsText() {
  const std::string text = cli_test::ReadFile(cli_test::Runfile("docs/cli.md"));
  EXPECT_FALSE(text.empty()) << "docs/cli.md is not in the runfiles";
  return text;
}

// The code block that follows `heading` in docs/cli.md.
std::string DocsBlockAfter(const std::string& heading) {
  const std::string docs = DocsText();
  const size_t at = docs.find(heading);
  if (at == std::string::npos) {
    ADD_FAILURE() << "docs/cli.md has no " << heading;
    return "";
  }
  const size_t open = docs.find("```\n", at);
  const size_t close = docs.find("\n```", open + 4);
  return docs.substr(open + 4, close - open - 4);
}

// docs/cli.md's synopses by command name.
std::map<std::string, std::vector<SynopsisEntry>> DocsSynopses() {
  std::map<std::string, std::vector<SynopsisEntry>> by_command;
  for (SynopsisEntry& entry : EntriesOf(DocsBlockAfter("\n## Synopses\n"))) {
    const Command* command = CommandOf(entry);
    if (command == nullptr) {
      ADD_FAILURE() << "docs/cli.md's synopses have `tracewire " << entry.word
                    << "`, which is no command";
      continue;
    }
    by_command[std::string(command->name)].push_back(std::move(entry));
  }
  return by_command;
}

// How the flag named `name` is written: -o, --jobs.
std::string FlagWord(const std::string& name) {
  return absl::StrCat(name.size() == 1 ? "-" : "--", name);
}

// True if `help` mentions the flag named `name` (-o; --git_exact or --git-exact).
bool MentionsFlag(absl::string_view help, const std::string& name) {
  if (name.size() == 1) return absl::StrContains(help, absl::StrCat("-", name, " "));
  return absl::StrContains(help, absl::StrCat("--", name)) ||
         absl::StrContains(help, absl::StrCat("--", absl::StrReplaceAll(name, {{"_", "-"}})));
}

TEST(HelpDocsTest, EveryCommandIsInTheListAndInTheDocsSynopses) {
  const std::string list = GlobalUsage(Commands());
  // The docs' own list of commands, at the top.
  const std::string docs_list = DocsBlockAfter("# The `tracewire` command\n");
  const auto docs = DocsSynopses();
  for (const Command* command : Commands()) {
    SCOPED_TRACE(command->name);
    EXPECT_THAT(list, HasSubstr(absl::StrCat("\n  ", command->name, " ")));
    EXPECT_TRUE(absl::StartsWith(command->help, absl::StrCat("usage: tracewire ", command->name)));
    EXPECT_FALSE(command->summary.empty());
    EXPECT_TRUE(docs.contains(std::string(command->name)));
    EXPECT_THAT(docs_list, HasSubstr(absl::StrCat("\n  ", command->name, " ")));
  }
}

TEST(HelpDocsTest, EveryFlagIsInTheHelpAndInTheDocsSynopsis) {
  const auto docs = DocsSynopses();
  for (const Command* command : Commands()) {
    SCOPED_TRACE(command->name);
    std::set<std::string> in_docs;
    if (const auto it = docs.find(std::string(command->name)); it != docs.end()) {
      for (const SynopsisEntry& entry : it->second) {
        for (const std::string& token : FlagTokensOf(entry.text)) {
          in_docs.insert(FlagNameOf(token));
        }
      }
    }
    for (const absl::CommandLineFlag* flag : command->flags) {
      const std::string name(flag->Name());
      EXPECT_TRUE(MentionsFlag(command->help, name)) << FlagWord(name) << " is not in its help";
      EXPECT_TRUE(MentionsFlag(command->Synopsis(), name))
          << FlagWord(name) << " is not in its help's synopsis";
      EXPECT_TRUE(in_docs.contains(name)) << FlagWord(name) << " is not in docs/cli.md's synopsis";
      EXPECT_FALSE(flag->Help().empty()) << FlagWord(name);
    }
  }
}

TEST(HelpDocsTest, DocsSynopsesNameOnlyAcceptedFlagsSpelledAsTheHelp) {
  for (const auto& [name, entries] : DocsSynopses()) {
    SCOPED_TRACE(name);
    const Command& command = *FindCommand(name);
    std::set<std::string> accepted = FlagNamesOf(command);
    accepted.insert("help");  // every command's --help
    std::set<std::string> docs_tokens;
    for (const SynopsisEntry& entry : entries) {
      for (const std::string& token : FlagTokensOf(entry.text)) {
        EXPECT_TRUE(accepted.contains(FlagNameOf(token)))
            << "docs/cli.md's synopsis gives " << token << ", which `tracewire " << name
            << "` does not accept";
        docs_tokens.insert(token);
      }
    }
    std::set<std::string> help_tokens;
    for (const SynopsisEntry& entry : EntriesOf(command.Synopsis())) {
      const std::set<std::string> tokens = FlagTokensOf(entry.text);
      help_tokens.insert(tokens.begin(), tokens.end());
    }
    EXPECT_EQ(absl::StrJoin(docs_tokens, " "), absl::StrJoin(help_tokens, " "))
        << "docs/cli.md's synopsis and `tracewire help " << name << "` spell flags differently";
  }
}

// The rows of the docs' table "| Flag | event | perf | ... |": each flag with the formats
// marked "yes".
std::vector<std::pair<std::string, std::vector<std::string>>> DocsFormatTable() {
  const std::string docs = DocsText();
  const std::string header = absl::StrCat("| Flag | ", absl::StrJoin(FormatNames(), " | "), " |\n");
  const size_t at = docs.find(header);
  if (at == std::string::npos) {
    ADD_FAILURE() << "docs/cli.md has no table starting " << header;
    return {};
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;
  const std::vector<std::string> lines = cli_test::Lines(docs.substr(at));
  for (size_t i = 2; i < lines.size() && absl::StartsWith(lines[i], "|"); ++i) {
    const std::vector<std::string> cells = absl::StrSplit(lines[i], " | ");
    EXPECT_EQ(cells.size(), FormatNames().size() + 1) << lines[i];
    std::pair<std::string, std::vector<std::string>> row;
    row.first = FlagNameOf(absl::StripPrefix(absl::StripSuffix(cells[0], "`"), "| `"));
    for (size_t f = 1; f < cells.size() && f <= FormatNames().size(); ++f) {
      if (absl::StartsWith(cells[f], "yes"))
        row.second.push_back(std::string(FormatNames()[f - 1]));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

TEST(HelpDocsTest, DocsFormatTableIsTheCommandsTable) {
  std::vector<std::pair<std::string, std::vector<std::string>>> expected;
  for (const FormatterFlag& flag : FormatterFlags()) {
    expected.push_back({std::string(flag.flag),
                        std::vector<std::string>(flag.formats.begin(), flag.formats.end())});
  }
  EXPECT_THAT(DocsFormatTable(), ElementsAreArray(expected));
}

}  // namespace
}  // namespace tracewire::tools
