// `tracewire query` on a fleet: real git commands (a commit that runs its pre-commit hook, a
// status with a submodule child, an alias with its child, a failing rev-parse) and traced
// programs (the demo, the thread-pool example's tasks and gauges, a CPU-profiled workload and
// a three-level process tree), all sending to one `tracewire listen`, whose directory is then
// queried as one database. Cross-process questions (the slowest child of each process, errors by
// command, hooks, parent and child processes linked) are checked against the rows they derive from;
// docs/cli.md's schema is the database's, column by column, and each of its example
// questions runs and answers.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/git_support.h"
#include "tests/query/query_support.h"

namespace tracewire::query_test {
namespace {

using cli_test::CommandResult;
using cli_test::RunCommand;
using cli_test::Runfile;
using cli_test::Tracewire;
using ::testing::Contains;

// The regular files of `dir`.
std::vector<std::string> FilesIn(const std::string& dir) {
  return cli_test::Lines(
      cli_test::Shell(absl::StrCat("find '", dir, "' -maxdepth 1 -type f -size +0")).out);
}

class QueryFleetTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!cli_test::HasGit()) return;
    has_git_ = true;
    fleet_ = cli_test::NewTempDir("query_fleet");
    const std::string root = cli_test::NewTempDir("query_fleet_git");
    const CommandResult setup = cli_test::MakeGitRepository(root);
    ASSERT_EQ(setup.exit_code, 0) << setup.err;
    const std::string socket = absl::StrCat("/tmp/twq-fleet-", getpid(), ".sock");
    unlink(socket.c_str());
    const pid_t listener = fork();
    if (listener == 0) {
      const std::string tool = Tracewire();
      const std::string address = "af_unix:stream:" + socket;
      execl(tool.c_str(), tool.c_str(), "listen", address.c_str(), "--out", fleet_.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    struct stat st;
    const absl::Time started = absl::Now() + absl::Seconds(20);
    while (stat(socket.c_str(), &st) != 0 && absl::Now() < started) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    ASSERT_EQ(stat(socket.c_str(), &st), 0) << "the listener did not start";

    // git, one command after another.
    cli_test::RunOptions git = cli_test::HermeticGitOptions(root, root, 60);
    git.env.insert(git.env.end(), {{"GIT_TRACE2_EVENT", "af_unix:stream:" + socket},
                                   {"GIT_TRACE2_EVENT_NESTING", "100"}});
    const std::string g = cli_test::kGit;
    const CommandResult commands = cli_test::Shell(
        absl::StrCat("cd ", root, "/repo && echo fleet >> c && ", g, " add c && ", g,
                     " commit -qm fleet && ", g, " status >/dev/null && cd ", root, "/sub && ", g,
                     " -c alias.l='log -1' l >/dev/null && { ", g,
                     " rev-parse --verify nonexistent >/dev/null 2>&1; test $? = 128; }"),
        git);
    EXPECT_EQ(commands.exit_code, 0) << commands.err;
    // Traced programs.
    const std::vector<std::pair<std::string, std::string>> traced = {
        {"TRACEWIRE", "af_unix:stream:" + socket}};
    EXPECT_EQ(RunCommand({Runfile("examples/demo/demo")}, {.env = traced}).exit_code, 1);
    EXPECT_EQ(
        RunCommand({Runfile("examples/threadpool/threadpool"), "100"}, {.env = traced}).exit_code,
        0);
    // A CPU-profiled program (its samples answer the CPU question).
    std::vector<std::pair<std::string, std::string>> sampled = traced;
    sampled.emplace_back("TRACEWIRE_CPU_PROFILE", "250");
    EXPECT_EQ(
        RunCommand({Runfile("tests/viewers/cpu_workload"), "0.05"}, {.env = sampled}).exit_code, 0);
    const std::string testtool = Runfile("tests/testtool/testtool");
    EXPECT_EQ(RunCommand({testtool, "trace2", "004child", testtool, "trace2", "004child", testtool,
                          "trace2", "001return", "0"},
                         {.env = traced})
                  .exit_code,
              0);

    // The listener writes each process's file when it ends: wait until the files stop
    // changing (git's commit, hook-less add, status and its submodule child, the alias and
    // its child, rev-parse: at least 7; the demo 2; the thread pool 1; the CPU workload 1;
    // the tree 3).
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    std::string last;
    absl::Time stable_since = absl::Now();
    while (absl::Now() < deadline) {
      const std::string now =
          cli_test::Shell(absl::StrCat("ls -l --time-style=full-iso '", fleet_, "'")).out;
      if (now != last) {
        last = now;
        stable_since = absl::Now();
      } else if (FilesIn(fleet_).size() >= 14 &&
                 absl::Now() - stable_since > absl::Milliseconds(1500)) {
        break;
      }
      absl::SleepFor(absl::Milliseconds(100));
    }
    kill(listener, SIGTERM);
    int status = 0;
    waitpid(listener, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    unlink(socket.c_str());
  }

  void SetUp() override {
    if (!has_git_) GTEST_SKIP() << "git is not installed";
  }

  static inline bool has_git_ = false;
  static inline std::string fleet_;
};

TEST_F(QueryFleetTest, TheFleetLoadsAsOneProcessForest) {
  EXPECT_GE(FilesIn(fleet_).size(), 14u);
  const Rows names = Select({fleet_}, "SELECT name FROM process ORDER BY name");
  std::vector<std::string> flat;
  for (const auto& row : names) flat.push_back(row[0]);
  EXPECT_THAT(flat, Contains("commit"));
  EXPECT_THAT(flat, Contains("rev-parse"));
  EXPECT_THAT(flat, Contains("log"));
  EXPECT_EQ(std::count(flat.begin(), flat.end(), "status"),
            3);  // git's, its submodule's, the demo's
  EXPECT_EQ(Select({fleet_},
                   "SELECT count(*) = (SELECT count(*) FROM process) FROM process "
                   "WHERE host IS NOT NULL AND pid > 0 AND start_ts <= end_ts"),
            (Rows{{"1"}}));
}

TEST_F(QueryFleetTest, SlowestChildOfEachProcess) {
  // The answer by SQL (as docs/cli.md's example question) ...
  const Rows answer = Select(
      {fleet_},
      "SELECT upid, slice_id, dur FROM (SELECT c.upid, c.slice_id, c.dur, row_number() OVER "
      "(PARTITION BY c.upid ORDER BY c.dur DESC, c.slice_id) AS rank FROM child c) WHERE rank "
      "= 1 ORDER BY upid");
  // ... and from every child row.
  std::map<std::string, std::vector<std::string>> slowest;
  for (const std::vector<std::string>& row :
       Select({fleet_}, "SELECT upid, slice_id, dur FROM child ORDER BY upid, slice_id")) {
    auto it = slowest.find(row[0]);
    if (it == slowest.end() || std::stoll(row[2]) > std::stoll(it->second[2])) {
      slowest[row[0]] = row;
    }
  }
  Rows expected;
  std::vector<std::pair<long long, std::vector<std::string>>> sorted;
  for (const auto& [upid, row] : slowest) sorted.emplace_back(std::stoll(upid), row);
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [upid, row] : sorted) expected.push_back(row);
  EXPECT_EQ(answer, expected);
  // commit (its hook, git's children), status (its submodule), the alias (log), the demo
  // and two levels of the tree started children.
  EXPECT_GE(answer.size(), 6u);
}

TEST_F(QueryFleetTest, ErrorsAndFailuresByCommand) {
  const Rows errors = Select({fleet_},
                             "SELECT p.name, count(*) FROM error e JOIN process p "
                             "USING (upid) GROUP BY p.name ORDER BY p.name");
  EXPECT_THAT(errors, Contains(std::vector<std::string>{"rev-parse", "1"}));
  EXPECT_THAT(errors, Contains(std::vector<std::string>{"status", "1"}));  // the demo's
  EXPECT_EQ(Select({fleet_},
                   "SELECT failures, count FROM command_stats WHERE name = "
                   "'rev-parse'"),
            (Rows{{"1", "1"}}));
  EXPECT_EQ(Select({fleet_}, "SELECT exit_code FROM process WHERE name = 'rev-parse'"),
            (Rows{{"128"}}));
}

TEST_F(QueryFleetTest, HooksAndChildProcessesAcrossProcesses) {
  EXPECT_EQ(Select({fleet_},
                   "SELECT c.hook_name, c.exit_code, p.name, s.category, s.name FROM "
                   "child c JOIN process p USING (upid) JOIN slice s ON s.id = "
                   "c.slice_id WHERE c.class = 'hook'"),
            (Rows{{"pre-commit", "0", "commit", "hook", "pre-commit"}}));
  // Every traced child is linked both ways: child_upid, the child's parent_upid, and a
  // flow from the child's slice to its main thread.
  EXPECT_EQ(Select({fleet_},
                   "SELECT count(*), sum(kid.parent_upid = c.upid AND kid.pid = c.pid AND "
                   "f.slice_in = (SELECT s.id FROM slice s JOIN thread t USING (utid) WHERE "
                   "t.upid = kid.upid AND t.is_main_thread AND s.kind = 'thread')) FROM child c "
                   "JOIN process kid ON kid.upid = c.child_upid JOIN flow f ON f.slice_out = "
                   "c.slice_id"),
            Select({fleet_},
                   "SELECT count(*), count(*) FROM child WHERE child_upid IS NOT "
                   "NULL"));
  // git's: status's submodule status, the alias's log; the demo's child; the tree's two.
  const Rows linked = Select({fleet_},
                             "SELECT parent.name, kid.name FROM child c JOIN process kid ON "
                             "kid.upid = c.child_upid JOIN process parent ON parent.upid = c.upid "
                             "ORDER BY 1, 2");
  EXPECT_THAT(linked, Contains(std::vector<std::string>{"status", "status"}));
  EXPECT_THAT(linked, Contains(std::vector<std::string>{"_run_git_alias_", "log"}));
  EXPECT_GE(linked.size(), 5u);
  // The child's own run lies within the time its parent waited for it.
  EXPECT_EQ(Select({fleet_},
                   "SELECT count(*) FROM child c JOIN process kid ON kid.upid = "
                   "c.child_upid WHERE kid.start_ts < c.ts OR kid.end_ts > c.ts + "
                   "c.dur + 1000000"),
            (Rows{{"0"}}));
}

// The sections of docs/cli.md's query section: "#### `name`" tables of columns, and the
// ```sql blocks of "### Example questions".
struct QueryDocs {
  std::map<std::string, std::vector<std::string>> columns;  // table or view -> columns
  std::vector<std::string> examples;
};

QueryDocs ReadQueryDocs() {
  const std::string text = cli_test::ReadFile(Runfile("docs/cli.md"));
  const size_t begin = text.find("\n## query\n");
  EXPECT_NE(begin, std::string::npos);
  const size_t end = text.find("\n## ", begin + 1);
  const std::string section = text.substr(begin, end - begin);
  QueryDocs docs;
  std::string table;
  std::string subsection;
  bool in_sql = false;
  std::string sql;
  const std::regex heading(R"(^#### `(\w+)`( \(view\))?$)");
  const std::regex column(R"(^\| `(\w+)` \| (INTEGER|TEXT|REAL) \| .+ \|$)");
  for (const absl::string_view raw : absl::StrSplit(section, '\n')) {
    const std::string line(absl::StripLeadingAsciiWhitespace(raw));
    std::smatch m;
    if (absl::StartsWith(line, "### ")) subsection = line, table.clear();
    if (std::regex_match(line, m, heading)) table = m[1];
    if (!table.empty() && std::regex_match(line, m, column)) docs.columns[table].push_back(m[1]);
    if (subsection == "### Example questions") {
      if (line == "```sql") {
        in_sql = true;
        sql.clear();
      } else if (in_sql && line == "```") {
        in_sql = false;
        docs.examples.push_back(sql);
      } else if (in_sql) {
        absl::StrAppend(&sql, line, "\n");
      }
    }
  }
  return docs;
}

TEST_F(QueryFleetTest, TheDocumentedSchemaIsTheDatabases) {
  const QueryDocs docs = ReadQueryDocs();
  std::map<std::string, std::vector<std::string>> actual;
  for (const std::vector<std::string>& row :
       Select({fleet_},
              "SELECT m.name, p.name FROM sqlite_schema m JOIN pragma_table_info(m.name) "
              "p WHERE m.type IN ('table', 'view') ORDER BY m.name, p.cid")) {
    actual[row[0]].push_back(row[1]);
  }
  EXPECT_EQ(docs.columns, actual);
  EXPECT_EQ(actual.size(), 27u);  // 16 tables, 11 views
}

TEST_F(QueryFleetTest, TheDocumentedExampleQuestionsAnswer) {
  const QueryDocs docs = ReadQueryDocs();
  ASSERT_EQ(docs.examples.size(), 14u);
  for (const std::string& sql : docs.examples) {
    const CommandResult r = Query({fleet_, "-c", sql});
    ASSERT_EQ(r.exit_code, 0) << sql << r.err;
    // A header and at least one row.
    EXPECT_GE(cli_test::Lines(r.out).size(), 2u) << sql << r.out;
    // The table format prints the same rows.
    const CommandResult table = RunCommand({Tracewire(), "query", fleet_, "-c", sql});
    EXPECT_EQ(table.exit_code, 0) << sql;
    EXPECT_EQ(cli_test::Lines(table.out).size(), cli_test::Lines(r.out).size() + 1) << sql;
  }
}

}  // namespace
}  // namespace tracewire::query_test
