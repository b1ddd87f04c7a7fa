// Fuzz target: the reader as `tracewire decode` and `tracewire decode --salvage` drive it,
// with every formatter on every event, serially and in parallel — the slow, differential
// half of the reader's fuzzing (reader_validate_fuzzer.cc is the fast half: the strict read
// and the count_only reads, without formatters, at thousands of inputs per second).
//
// The input is a trace file. It is read through a MemorySource in 64-byte chunks (so every
// refill path of the framing layer runs): strictly, and in salvage mode. Every event of
// both reads goes through every formatter: EVENT, PERF and NORMAL (plain for the strict
// read, brief for the salvage read), Chrome and OTLP. Beyond "no crash, no sanitizer
// report", it checks:
//   * salvage mode never fails;
//   * a trace the strict read accepts is salvaged whole (a clean loss report, the same
//     events, the same Chrome and OTLP output);
//   * the loss report adds up (lost + delivered bytes = total);
//   * the Chrome output is one JSON value and every OTLP line is one;
//   * parallel decoding (two workers that decode every generation, none left to the
//     reader) gives what the serial read gives: the same events through every formatter,
//     the same error, the same loss report.
// The two halves of the input are also read as two files of a trace directory, merged by a
// ProcessTreeReader (the path of `validate DIR`).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "reader/byte_source.h"
#include "reader/process_tree.h"
#include "reader/reader.h"
#include "reader/targets/formatter.h"
#include "reader/targets/json_check.h"

namespace {

using tracewire::reader::Event;
using tracewire::reader::MemorySource;
using tracewire::reader::Reader;
using tracewire::reader::ReaderOptions;
using tracewire::targets::Formatter;
using tracewire::targets::FormatterOptions;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "reader_fuzzer: %s\n", what);
  std::abort();
}

struct Output {
  std::unique_ptr<Formatter> formatter;
  std::string text;
};

// The six formatters: EVENT, PERF, NORMAL (plain, or brief with EVENT nesting 100 and
// EVENT version 3), Chrome, OTLP and Perfetto (which read no option).
std::vector<Output> AllFormatters(bool brief) {
  FormatterOptions options;
  if (brief) {
    options.brief = true;
    options.event_nesting = 100;
    options.event_version = 3;
  }
  std::vector<Output> outputs;
  for (absl::string_view name : {"event", "perf", "normal", "chrome", "otlp", "perfetto"}) {
    absl::StatusOr<std::unique_ptr<Formatter>> formatter =
        tracewire::targets::MakeFormatter(name, options);
    if (!formatter.ok()) Fail("MakeFormatter failed");
    outputs.push_back(Output{std::move(*formatter), ""});
  }
  return outputs;
}
constexpr size_t kChrome = 3;
constexpr size_t kOtlp = 4;

struct ReadResult {
  bool ok = true;
  std::string error;  // the strict read's error message
  uint64_t events = 0;
  std::string counted;  // kind, wire type, generation, sid, thread and ticks of each event
  bool clean = true;    // salvage: nothing lost
  std::string loss_summary;
  std::vector<Output> outputs;
};

// The workers of the parallel reads, started once. The reader never decodes a generation
// itself for want of a free worker, so the workers run on every input whatever the timing.
std::shared_ptr<tracewire::reader::WorkerPool>* g_workers = nullptr;

// Stops and joins the workers at exit, before LeakSanitizer's exit check (registered at
// start-up, so it runs after this): the check then stops no thread of ours, idle or still
// finishing a job the last input cancelled.
void StopWorkers() {
  delete g_workers;
  g_workers = nullptr;
}

std::shared_ptr<tracewire::reader::WorkerPool> Workers() {
  if (g_workers == nullptr) {
    tracewire::reader::ParallelOptions options;
    options.jobs = 2;
    options.reader_decodes_unstarted = false;
    g_workers = new std::shared_ptr<tracewire::reader::WorkerPool>(
        std::make_shared<tracewire::reader::WorkerPool>(options));
    std::atexit(StopWorkers);
  }
  return *g_workers;
}

void AppendCounted(const Event& e, std::string* out) {
  absl::StrAppend(out, static_cast<int>(e.kind), " ", static_cast<int>(e.wire_type), " ", e.gen,
                  " ", e.sid, " ", e.thread_id, " ", e.ticks, "\n");
}

ReadResult Read(absl::string_view trace, bool salvage, bool parallel) {
  ReaderOptions options;
  options.salvage = salvage;
  options.chunk_size = 64;
  if (parallel) options.parallel = Workers();
  Reader reader(MemorySource(trace, "fuzz"), options);
  ReadResult result;
  result.outputs = AllFormatters(/*brief=*/salvage);
  while (true) {
    absl::StatusOr<const Event*> event = reader.Next();
    if (!event.ok()) {
      if (salvage) Fail("salvage mode failed");
      result.ok = false;
      result.error = std::string(event.status().message());
      break;
    }
    if (*event == nullptr) break;
    ++result.events;
    AppendCounted(**event, &result.counted);
    for (Output& output : result.outputs) output.formatter->Write(**event, &output.text);
  }
  for (Output& output : result.outputs) output.formatter->Finish(&output.text);
  if (salvage) {
    const tracewire::reader::LossReport& report = reader.loss_report();
    if (report.lost_bytes + report.delivered_bytes != report.total_bytes) {
      Fail("loss report: lost + delivered != total bytes");
    }
    if (report.total_bytes != trace.size()) Fail("loss report: total bytes != input size");
    result.loss_summary = report.Summary();
    result.clean = report.clean();
  }
  if (result.ok && !tracewire::targets::IsJsonText(result.outputs[kChrome].text)) {
    Fail("the Chrome output is not one JSON value");
  }
  for (absl::string_view line :
       absl::StrSplit(result.outputs[kOtlp].text, '\n', absl::SkipEmpty())) {
    if (!tracewire::targets::IsJsonText(line)) Fail("an OTLP line is not one JSON value");
  }
  return result;
}

// The halves of `trace` as two inputs of a ProcessTreeReader.
void ReadAsTwoFiles(absl::string_view trace) {
  std::vector<std::unique_ptr<Reader>> readers;
  const size_t half = trace.size() / 2;
  ReaderOptions options;
  options.chunk_size = 64;
  readers.push_back(std::make_unique<Reader>(MemorySource(trace.substr(0, half), "a"), options));
  readers.push_back(std::make_unique<Reader>(MemorySource(trace.substr(half), "b"), options));
  absl::StatusOr<std::unique_ptr<tracewire::reader::ProcessTreeReader>> tree =
      tracewire::reader::ProcessTreeReader::Create(std::move(readers));
  if (!tree.ok()) return;
  while (true) {
    absl::StatusOr<const Event*> event = (*tree)->Next();
    if (!event.ok() || *event == nullptr) break;
    if ((*tree)->last_process() < 0 ||
        static_cast<size_t>((*tree)->last_process()) >= (*tree)->processes().size()) {
      Fail("an event of no known process");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view trace(reinterpret_cast<const char*>(data), size);
  const ReadResult strict = Read(trace, /*salvage=*/false, /*parallel=*/false);
  const ReadResult salvaged = Read(trace, /*salvage=*/true, /*parallel=*/false);
  ReadAsTwoFiles(trace);
  for (const ReadResult* serial : {&strict, &salvaged}) {
    const ReadResult parallel = Read(trace, /*salvage=*/serial == &salvaged, /*parallel=*/true);
    if (parallel.ok != serial->ok || parallel.error != serial->error) {
      Fail("parallel decoding fails differently from the serial read");
    }
    if (parallel.events != serial->events || parallel.counted != serial->counted) {
      Fail("parallel decoding delivers other events");
    }
    if (parallel.loss_summary != serial->loss_summary) {
      Fail("parallel decoding reports another loss");
    }
    for (size_t i = 0; i < parallel.outputs.size(); ++i) {
      if (parallel.outputs[i].text != serial->outputs[i].text) {
        Fail("parallel decoding formats differently from the serial read");
      }
    }
  }
  if (strict.ok) {
    if (!salvaged.clean) Fail("salvage reports a loss in a valid trace");
    if (salvaged.events != strict.events) Fail("salvage lost events of a valid trace");
    for (size_t i : {kChrome, kOtlp}) {  // the formatters that read no option
      if (strict.outputs[i].text != salvaged.outputs[i].text) {
        Fail("salvage output differs from the strict output of a valid trace");
      }
    }
  }
  return 0;
}
