// Round trip of a realistic two-generation trace through the reader, with every field of
// every event checked; also the compressed variant, the standalone suffix, and the input
// sources (memory, chunks, fd, FILE*).
#include "reader/reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "format/event_spec.h"
#include "gtest/gtest.h"
#include "reader/byte_source.h"
#include "reader/event.h"
#include "tests/reader/trace_builder.h"

namespace tracewire::reader {
namespace {

using ::tracewire::testing::DemoSuffix;
using ::tracewire::testing::DemoTrace;
using ::tracewire::testing::kBaseTicks;
using ::tracewire::testing::kBaseWallSec;
using ::tracewire::testing::ReadAll;

const Event* NextOrNull(Reader& r) {
  absl::StatusOr<const Event*> event = r.Next();
  EXPECT_TRUE(event.ok()) << event.status();
  return event.ok() ? *event : nullptr;
}

std::vector<absl::string_view> V(std::initializer_list<absl::string_view> items) {
  return std::vector<absl::string_view>(items);
}

// Checks the fields every event carries.
void ExpectCommon(const Event& e, uint64_t gen, uint64_t thread, absl::string_view thread_name,
                  uint64_t ticks, int nesting, absl::string_view file, int64_t line) {
  SCOPED_TRACE(e.DebugString());
  EXPECT_EQ(e.gen, gen);
  EXPECT_EQ(e.thread_id, thread);
  EXPECT_EQ(e.thread_name, thread_name);
  EXPECT_EQ(e.ticks, ticks);
  EXPECT_EQ(e.sid, "SID0");
  EXPECT_EQ(e.depth, 0);
  EXPECT_EQ(e.time, absl::FromUnixSeconds(kBaseWallSec) + absl::Nanoseconds(ticks - kBaseTicks));
  EXPECT_EQ(e.utc_offset_sec, 3600);
  EXPECT_EQ(e.local_time(), e.time + absl::Hours(1));
  EXPECT_DOUBLE_EQ(e.t_abs, (ticks - kBaseTicks) * 1e-9);
  EXPECT_EQ(e.nesting, nesting);
  EXPECT_EQ(e.file, file);
  EXPECT_EQ(e.line, line);
}

#define NEXT_EVENT(kind_)                                   \
  e = NextOrNull(r);                                        \
  ASSERT_NE(e, nullptr);                                    \
  ASSERT_EQ(e->kind, EventKind::kind_) << e->DebugString(); \
  SCOPED_TRACE(e->DebugString())

void CheckDemo(Reader& r, bool from_gen1) {
  const Event* e = nullptr;
  if (from_gen1) {
    NEXT_EVENT(kVersion);
    ExpectCommon(*e, 1, 0, "main", 1100, 1, "common-main.c", 50);
    EXPECT_EQ(e->exe, "2.39.5");
    EXPECT_FALSE(e->repo.has_value());
    EXPECT_FALSE(e->t_rel.has_value());
    EXPECT_FALSE(e->msg.has_value());
    EXPECT_TRUE(e->stack.empty());
    EXPECT_EQ(e->category, "");
    EXPECT_EQ(e->label, "");
    ASSERT_NE(r.generation(), nullptr);
    EXPECT_EQ(r.generation()->gen, 1u);
    EXPECT_EQ(r.generation()->pid, 4242u);
    EXPECT_EQ(r.generation()->clock.freq, 1000000000u);
    EXPECT_EQ(r.generation()->name, "demo");

    NEXT_EVENT(kStart);
    ExpectCommon(*e, 1, 0, "main", 1200, 1, "common-main.c", 51);
    EXPECT_EQ(e->argv, V({"demo", "--flag", "a b"}));

    NEXT_EVENT(kCmdName);
    ExpectCommon(*e, 1, 0, "main", 1300, 1, "git.c", 721);
    EXPECT_EQ(e->cmd_name, "demo");
    EXPECT_EQ(e->cmd_hierarchy, "demo");

    NEXT_EVENT(kDefParam);
    ExpectCommon(*e, 1, 0, "main", 1400, 1, "config.c", 10);
    EXPECT_EQ(e->param_scope, "global");
    EXPECT_EQ(e->param, "core.bare");
    EXPECT_EQ(e->param_value, "false");

    NEXT_EVENT(kDefParam);
    EXPECT_EQ(e->param_scope, "command");
    EXPECT_EQ(e->param, "t.flag");
    EXPECT_FALSE(e->param_value.has_value());

    NEXT_EVENT(kDefRepo);
    ExpectCommon(*e, 1, 0, "main", 1500, 1, "repo.c", 5);
    EXPECT_EQ(e->repo, 1);
    EXPECT_EQ(e->worktree, "/w");

    NEXT_EVENT(kRegionEnter);
    ExpectCommon(*e, 1, 0, "main", 2000, 1, "demo.c", 10);
    EXPECT_EQ(e->category, "demo");
    EXPECT_EQ(e->label, "outer");
    EXPECT_EQ(e->repo, 1);
    EXPECT_EQ(e->msg, "m1");
    EXPECT_FALSE(e->t_rel.has_value());

    NEXT_EVENT(kThreadStart);
    ExpectCommon(*e, 1, 1, "th01:worker", 2100, 1, "thread.c", 1);

    NEXT_EVENT(kRegionEnter);
    ExpectCommon(*e, 1, 1, "th01:worker", 2200, 1, "worker.c", 5);
    EXPECT_EQ(e->label, "chunk");
    EXPECT_FALSE(e->msg.has_value());
    EXPECT_FALSE(e->repo.has_value());

    NEXT_EVENT(kDataJson);
    ExpectCommon(*e, 1, 1, "th01:worker", 2300, 2, "worker.c", 6);
    EXPECT_EQ(e->category, "work");
    EXPECT_EQ(e->label, "stats");
    EXPECT_EQ(e->value_kind, ValueKind::kJson);
    EXPECT_EQ(e->value_string, "{\"n\":1}");
    EXPECT_DOUBLE_EQ(*e->t_rel, 100e-9);

    NEXT_EVENT(kRegionLeave);
    ExpectCommon(*e, 1, 1, "th01:worker", 2400, 1, "worker.c", 7);
    EXPECT_DOUBLE_EQ(*e->t_rel, 200e-9);

    NEXT_EVENT(kThTimer);
    ExpectCommon(*e, 1, 1, "th01:worker", 2450, 1, "worker.c", 8);
    EXPECT_EQ(e->category, "test");
    EXPECT_EQ(e->label, "t2");
    EXPECT_EQ(e->intervals, 2u);
    EXPECT_DOUBLE_EQ(e->t_total, 100e-9);
    EXPECT_DOUBLE_EQ(e->t_min, 40e-9);
    EXPECT_DOUBLE_EQ(e->t_max, 60e-9);

    NEXT_EVENT(kThCounter);
    ExpectCommon(*e, 1, 1, "th01:worker", 2460, 1, "worker.c", 9);
    EXPECT_EQ(e->label, "c2");
    EXPECT_EQ(e->count, 7u);

    NEXT_EVENT(kData);
    ExpectCommon(*e, 1, 0, "main", 2500, 2, "demo.c", 11);
    EXPECT_EQ(e->category, "demo");
    EXPECT_EQ(e->label, "k1");
    EXPECT_EQ(e->repo, 1);
    EXPECT_EQ(e->value_kind, ValueKind::kString);
    EXPECT_EQ(e->value_string, "v1");
    EXPECT_DOUBLE_EQ(*e->t_rel, 500e-9);
    EXPECT_TRUE(e->stack.empty());

    NEXT_EVENT(kData);
    ExpectCommon(*e, 1, 0, "main", 2700, 2, "demo.c", 12);
    EXPECT_EQ(e->wire_type, static_cast<uint8_t>(format::EventType::kDataInt));
    EXPECT_EQ(e->label, "count");
    EXPECT_EQ(e->value_kind, ValueKind::kInt);
    EXPECT_EQ(e->value_int, -42);
    EXPECT_EQ(e->value_string, "-42");
    EXPECT_DOUBLE_EQ(*e->t_rel, 700e-9);
    ASSERT_EQ(e->stack.size(), 2u);
    EXPECT_EQ(e->stack[0].pc, 0x1234u);
    EXPECT_EQ(e->stack[0].func, "main");
    EXPECT_EQ(e->stack[0].file, "demo.c");
    EXPECT_EQ(e->stack[0].line, 12u);
    EXPECT_EQ(e->stack[1].func, "__libc_start_main");
    EXPECT_EQ(e->stack[1].file, "");

    NEXT_EVENT(kThreadExit);
    ExpectCommon(*e, 1, 1, "th01:worker", 2800, 1, "thread.c", 2);
    EXPECT_DOUBLE_EQ(*e->t_rel, 700e-9);

    NEXT_EVENT(kChildStart);
    ExpectCommon(*e, 1, 0, "main", 3000, 2, "run-command.c", 700);
    EXPECT_EQ(e->child_id, 0u);
    EXPECT_EQ(e->child_class, "hook");
    EXPECT_EQ(e->hook_name, "pre-commit");
    EXPECT_FALSE(e->cd.has_value());
    EXPECT_TRUE(e->use_shell);
    EXPECT_FALSE(e->is_git_command);
    EXPECT_EQ(e->argv, V({".git/hooks/pre-commit"}));
    EXPECT_FALSE(e->t_rel.has_value());

    NEXT_EVENT(kChildStart);
    EXPECT_EQ(e->child_id, 1u);
    EXPECT_EQ(e->child_class, "?");
    EXPECT_FALSE(e->hook_name.has_value());
    EXPECT_EQ(e->cd, "sub");
    EXPECT_FALSE(e->use_shell);
    EXPECT_TRUE(e->is_git_command);
    EXPECT_EQ(e->argv, V({"status"}));

    NEXT_EVENT(kChildExit);
    ExpectCommon(*e, 1, 0, "main", 3500, 2, "run-command.c", 800);
    EXPECT_EQ(e->child_id, 0u);
    EXPECT_EQ(e->pid, 5000);
    EXPECT_EQ(e->code, 0);
    EXPECT_DOUBLE_EQ(*e->t_rel, 500e-9);

    NEXT_EVENT(kRegionEnter);
    ExpectCommon(*e, 1, 0, "main", 3600, 2, "demo.c", 20);
    EXPECT_EQ(e->label, "inner");
  }

  // Generation 2.
  NEXT_EVENT(kThreadStart);
  ExpectCommon(*e, 2, 2, "th02:bg", 4050, 1, "thread.c", 1);
  EXPECT_EQ(r.generation()->gen, 2u);
  EXPECT_EQ(r.generation()->clock.trace_time, 4000u);

  NEXT_EVENT(kThreadExit);
  ExpectCommon(*e, 2, 2, "th02:bg", 4060, 1, "thread.c", 2);
  EXPECT_DOUBLE_EQ(*e->t_rel, 10e-9);

  NEXT_EVENT(kData);
  ExpectCommon(*e, 2, 0, "main", 4100, 3, "demo.c", 21);
  EXPECT_EQ(e->value_string, "v2");
  EXPECT_DOUBLE_EQ(*e->t_rel, 500e-9);  // since the re-stated inner region (3600)

  NEXT_EVENT(kRegionLeave);
  ExpectCommon(*e, 2, 0, "main", 4200, 2, "demo.c", 22);
  EXPECT_EQ(e->label, "inner");
  EXPECT_DOUBLE_EQ(*e->t_rel, 600e-9);

  NEXT_EVENT(kChildExit);
  ExpectCommon(*e, 2, 0, "main", 4300, 2, "run-command.c", 800);
  EXPECT_EQ(e->child_id, 1u);
  EXPECT_EQ(e->pid, 5001);
  EXPECT_EQ(e->code, 1);
  EXPECT_DOUBLE_EQ(*e->t_rel, 1200e-9);

  NEXT_EVENT(kChildStart);
  EXPECT_EQ(e->child_id, 2u);
  EXPECT_EQ(e->child_class, "editor");
  EXPECT_EQ(e->argv, V({"vi", "COMMIT_EDITMSG"}));

  NEXT_EVENT(kChildReady);
  ExpectCommon(*e, 2, 0, "main", 4350, 2, "run-command.c", 900);
  EXPECT_EQ(e->child_id, 2u);
  EXPECT_EQ(e->pid, 5002);
  EXPECT_EQ(e->ready, "timeout");
  EXPECT_DOUBLE_EQ(*e->t_rel, 30e-9);

  NEXT_EVENT(kChildExit);
  EXPECT_EQ(e->child_id, 2u);

  NEXT_EVENT(kError);
  ExpectCommon(*e, 2, 0, "main", 4400, 2, "usage.c", 1);
  EXPECT_EQ(e->msg, "bad thing");
  EXPECT_EQ(e->fmt, "bad %s");

  NEXT_EVENT(kPrintf);
  ExpectCommon(*e, 2, 0, "main", 4450, 2, "demo.c", 30);
  EXPECT_EQ(e->msg, "hello");

  NEXT_EVENT(kRegionLeave);
  ExpectCommon(*e, 2, 0, "main", 4500, 1, "demo.c", 23);
  EXPECT_EQ(e->label, "outer");
  EXPECT_EQ(e->msg, "m1");
  EXPECT_EQ(e->repo, 1);
  EXPECT_DOUBLE_EQ(*e->t_rel, 2500e-9);

  NEXT_EVENT(kAlias);
  ExpectCommon(*e, 2, 0, "main", 4550, 1, "alias.c", 3);
  EXPECT_EQ(e->alias, "st");
  EXPECT_EQ(e->argv, V({"status"}));

  NEXT_EVENT(kCmdMode);
  EXPECT_EQ(e->cmd_mode, "path");
  NEXT_EVENT(kCmdPath);
  EXPECT_EQ(e->cmd_path, "/usr/bin/demo");
  NEXT_EVENT(kCmdAncestry);
  EXPECT_EQ(e->ancestry, V({"bash", "sshd"}));

  NEXT_EVENT(kExec);
  ExpectCommon(*e, 2, 0, "main", 4570, 1, "exec-cmd.c", 2);
  EXPECT_EQ(e->exec_id, 0u);
  EXPECT_EQ(e->exec_exe, "git");
  EXPECT_EQ(e->argv, V({"version"}));

  NEXT_EVENT(kExecResult);
  EXPECT_EQ(e->exec_id, 0u);
  EXPECT_EQ(e->code, -1);

  NEXT_EVENT(kSignal);
  EXPECT_EQ(e->signo, 13u);

  NEXT_EVENT(kExit);
  ExpectCommon(*e, 2, 0, "main", 4600, 1, "git.c", 800);
  EXPECT_EQ(e->code, 0);
  EXPECT_FALSE(e->t_rel.has_value());

  NEXT_EVENT(kExperimental);
  ExpectCommon(*e, 2, 0, "main", 4650, 1, "", 0);
  EXPECT_EQ(e->wire_type, 128);
  EXPECT_EQ(e->experimental_data, "xyz");

  NEXT_EVENT(kTimer);
  ExpectCommon(*e, 2, 0, "main", 4700, 1, "trace2/tr2_tgt_event.c", 632);
  EXPECT_EQ(e->category, "test");
  EXPECT_EQ(e->label, "t1");
  EXPECT_EQ(e->intervals, 3u);
  EXPECT_DOUBLE_EQ(e->t_total, 300e-9);

  NEXT_EVENT(kCounter);
  EXPECT_EQ(e->label, "c1");
  EXPECT_EQ(e->count, 15u);

  NEXT_EVENT(kAtexit);
  ExpectCommon(*e, 2, 0, "main", 4800, 1, "trace2/tr2_tgt_event.c", 204);
  EXPECT_EQ(e->code, 0);

  absl::StatusOr<const Event*> end = r.Next();
  ASSERT_TRUE(end.ok()) << end.status();
  EXPECT_EQ(*end, nullptr);
  // The end is sticky.
  end = r.Next();
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(*end, nullptr);
}

// The kinds' names come from the format's event table and round-trip through it.
TEST(EventKindTest, EveryKindNameRoundTripsThroughTheEventTable) {
  for (int k = 0; k < static_cast<int>(EventKind::kExperimental); ++k) {
    const EventKind kind = static_cast<EventKind>(k);
    const absl::string_view name = EventKindName(kind);
    SCOPED_TRACE(std::string(name));
    ASSERT_FALSE(name.empty());
    // Trace2 kinds are named by their Trace2 event, the others by their row.
    const format::EventSpec* spec =
        IsTrace2Kind(kind) ? format::LookupTrace2Event(name) : format::LookupSpecByName(name);
    ASSERT_NE(spec, nullptr);
    EXPECT_EQ(spec->trace2_event.empty(), !IsTrace2Kind(kind));
    EXPECT_EQ(EventKindOfType(static_cast<uint8_t>(spec->type)), kind);
    EXPECT_EQ(EventKindByName(name), kind);
  }
  EXPECT_EQ(EventKindName(EventKind::kCpuSample), "cpu_sample");
  EXPECT_EQ(EventKindName(EventKind::kCpuSamplesLost), "cpu_samples_lost");
  EXPECT_EQ(EventKindName(EventKind::kExperimental), "experimental");
  EXPECT_EQ(EventKindOfType(static_cast<uint8_t>(format::EventType::kDataInt)), EventKind::kData);
  EXPECT_EQ(EventKindOfType(static_cast<uint8_t>(format::EventType::kStackRef)),
            EventKind::kExperimental);
  EXPECT_EQ(EventKindByName("data_int"), std::nullopt);
  // Every row with a Trace2 event decodes to the kind of that name.
  for (const format::EventSpec& spec : format::AllSpecs()) {
    if (spec.trace2_event.empty()) continue;
    EXPECT_EQ(EventKindName(EventKindOfType(static_cast<uint8_t>(spec.type))), spec.trace2_event)
        << spec.name;
  }
}

TEST(ReaderTest, RoundTripDemoTraceEveryField) {
  const std::string trace = DemoTrace();
  Reader r(MemorySource(trace));
  CheckDemo(r, /*from_gen1=*/true);
  EXPECT_EQ(r.events_delivered(), 43u);
  EXPECT_EQ(r.format_version(), format::kFormatVersion);
}

TEST(ReaderTest, RoundTripCompressedGenerations) {
  const std::string trace = DemoTrace(/*compress=*/true);
  Reader r(MemorySource(trace));
  CheckDemo(r, /*from_gen1=*/true);
}

TEST(ReaderTest, SalvageModeOnACleanTraceLosesNothing) {
  const std::string trace = DemoTrace();
  ReaderOptions options;
  options.salvage = true;
  Reader r(MemorySource(trace), options);
  CheckDemo(r, /*from_gen1=*/true);
  EXPECT_TRUE(r.loss_report().clean()) << r.loss_report().Summary();
  EXPECT_EQ(r.loss_report().lost_bytes, 0u);
  EXPECT_EQ(r.loss_report().total_bytes, trace.size());
  EXPECT_EQ(r.loss_report().generations_delivered, 2u);
}

// A later generation read on its own decodes with the right nesting and t_rel: region_active
// re-states the open regions, and child 1 (started before the suffix) may exit.
TEST(ReaderTest, StandaloneSuffixDecodesOnItsOwn) {
  const std::string trace = DemoSuffix();
  Reader r(MemorySource(trace));
  CheckDemo(r, /*from_gen1=*/false);
}

TEST(ReaderTest, ChunkSourceWithTinyChunks) {
  const std::string trace = DemoTrace();
  size_t pos = 0;
  Reader r(ChunkSource([&]() -> absl::StatusOr<absl::string_view> {
             const size_t n = std::min<size_t>(3, trace.size() - pos);
             absl::string_view chunk(trace.data() + pos, n);
             pos += n;
             return chunk;
           }),
           ReaderOptions{.chunk_size = 7});
  CheckDemo(r, /*from_gen1=*/true);
}

TEST(ReaderTest, ChunkSourceErrorIsReported) {
  Reader r(ChunkSource([]() -> absl::StatusOr<absl::string_view> {
    return absl::UnavailableError("socket closed");
  }));
  absl::StatusOr<const Event*> event = r.Next();
  ASSERT_FALSE(event.ok());
  EXPECT_EQ(event.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(event.status().message().find("socket closed"), std::string::npos);
}

TEST(ReaderTest, PipeFdAndStdioSources) {
  const std::string trace = DemoTrace();
  {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    // The trace is small enough (< 64 KiB) to fit in the pipe buffer.
    ASSERT_LT(trace.size(), 60000u);
    ASSERT_EQ(write(fds[1], trace.data(), trace.size()), static_cast<ssize_t>(trace.size()));
    close(fds[1]);
    Reader r(FdSource(fds[0], /*owned=*/true, "<pipe>"));
    CheckDemo(r, /*from_gen1=*/true);
  }
  {
    std::FILE* f = tmpfile();
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fwrite(trace.data(), 1, trace.size(), f), trace.size());
    std::rewind(f);
    Reader r(StdioSource(f, "<tmpfile>"));
    CheckDemo(r, /*from_gen1=*/true);
    std::fclose(f);
  }
}

TEST(ReaderTest, OpenFileAndMissingFile) {
  const std::string trace = DemoTrace();
  const std::string path = absl::StrCat(::testing::TempDir(), "/demo.twr");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(trace.data(), 1, trace.size(), f);
  std::fclose(f);
  absl::StatusOr<std::unique_ptr<Reader>> r = Reader::OpenFile(path);
  ASSERT_TRUE(r.ok()) << r.status();
  CheckDemo(**r, /*from_gen1=*/true);

  absl::StatusOr<std::unique_ptr<Reader>> missing =
      Reader::OpenFile(absl::StrCat(::testing::TempDir(), "/nope.twr"));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
}

TEST(ReaderTest, EmptyTraceHasNoEvents) {
  const std::string trace = testing::Trace({});
  auto result = ReadAll(trace);
  EXPECT_TRUE(result.status.ok()) << result.status;
  EXPECT_TRUE(result.debug.empty());
}

}  // namespace
}  // namespace tracewire::reader
