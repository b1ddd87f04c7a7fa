#include "tools/query/query_shell.h"

#include <sqlite3.h>

#include <cstdio>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace tracewire::tools::query {
namespace {

constexpr char kPrompt[] = "query> ";
constexpr char kContinuation[] = "  ...> ";

constexpr char kDotHelp[] =
    ".tables           the tables and views\n"
    ".schema [NAME]    their CREATE statements (those of NAME)\n"
    ".help             these commands\n"
    ".quit, .exit      end (as does the end of input, Ctrl-D)\n";

// `sql` shortened to one line for an error message.
std::string Excerpt(absl::string_view sql) {
  std::string text(absl::StripAsciiWhitespace(sql));
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (text.size() > 80) text = absl::StrCat(text.substr(0, 77), "...");
  return text;
}

// Reads one line (without its newline) from `in`; false at the end of input.
bool ReadLine(std::FILE* in, std::string* line) {
  line->clear();
  int c;
  while ((c = std::fgetc(in)) != EOF) {
    if (c == '\n') return true;
    line->push_back(static_cast<char>(c));
  }
  return !line->empty();
}

}  // namespace

absl::Status QueryShell::Run(absl::string_view sql) {
  std::string text(sql);
  const char* next = text.c_str();
  const char* const end = text.c_str() + text.size();
  while (next < end) {
    sqlite3_stmt* stmt = nullptr;
    const char* tail = nullptr;
    if (sqlite3_prepare_v2(db_->handle(), next, static_cast<int>(end - next), &stmt, &tail) !=
        SQLITE_OK) {
      return absl::InvalidArgumentError(absl::StrCat(
          db_->LastError(), " (in: ", Excerpt(absl::string_view(next, end - next)), ")"));
    }
    const absl::string_view statement(next, static_cast<size_t>(tail - next));
    next = tail;
    if (stmt == nullptr) continue;  // whitespace or a comment
    const absl::Status status = writer_->Write(stmt);
    sqlite3_finalize(stmt);
    if (status.code() == absl::StatusCode::kInvalidArgument) {
      return absl::InvalidArgumentError(
          absl::StrCat(status.message(), " (in: ", Excerpt(statement), ")"));
    }
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status QueryShell::DotCommand(absl::string_view line, bool* quit) {
  const absl::string_view command = absl::StripAsciiWhitespace(line);
  const size_t space = command.find_first_of(" \t");
  const absl::string_view word = command.substr(0, space);
  const absl::string_view argument =
      space == absl::string_view::npos ? "" : absl::StripAsciiWhitespace(command.substr(space));
  if (word == ".quit" || word == ".exit") {
    *quit = true;
    return absl::OkStatus();
  }
  if (word == ".help") {
    std::fputs(kDotHelp, stdout);
    return absl::OkStatus();
  }
  if (word == ".tables") {
    return Run(
        "SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT "
        "LIKE 'sqlite_%' ORDER BY type, name");
  }
  if (word == ".schema") {
    std::string quoted;
    for (const char c : argument) {
      if (c == '\'') quoted += '\'';
      quoted += c;
    }
    return Run(absl::StrCat(
        "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'",
        argument.empty() ? "" : absl::StrCat(" AND name = '", quoted, "'"), " ORDER BY rowid"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown command '", word, "' (.help lists the commands)"));
}

absl::Status QueryShell::RunInput(std::FILE* in, bool interactive) {
  std::string buffer;
  std::string line;
  while (true) {
    if (interactive) {
      std::fputs(buffer.empty() ? kPrompt : kContinuation, stdout);
      std::fflush(stdout);
    }
    if (!ReadLine(in, &line)) break;
    absl::Status status;
    if (absl::StripAsciiWhitespace(buffer).empty() &&
        absl::StartsWith(absl::StripLeadingAsciiWhitespace(line), ".")) {
      bool quit = false;
      status = DotCommand(line, &quit);
      buffer.clear();
      if (quit) return absl::OkStatus();
    } else {
      absl::StrAppend(&buffer, line, "\n");
      if (!sqlite3_complete(buffer.c_str())) continue;
      status = Run(buffer);
      buffer.clear();
    }
    if (status.ok()) continue;
    if (!interactive || status.code() != absl::StatusCode::kInvalidArgument) return status;
    std::fprintf(stderr, "error: %s\n", std::string(status.message()).c_str());
  }
  if (interactive) std::fputs("\n", stdout);
  // An unfinished last statement (no ';') runs as it is.
  if (!absl::StripAsciiWhitespace(buffer).empty()) return Run(buffer);
  return absl::OkStatus();
}

}  // namespace tracewire::tools::query
