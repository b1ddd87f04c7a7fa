// Decoding once and formatting on every thread: `tracewire decode --jobs=N` (N >= 2) for a
// context-free formatter whose output for an event does not depend on the events before
// it and costs more than copying the event (EVENT, PERF; NORMAL writes too little).
//
// The trace is read by one reader whose worker threads decode each generation once
// (reader/parallel_decoding.h): the decoding worker copies its events in blocks of about a
// thousand, and each block is formatted as a separate task by whichever
// thread is free, the reader's too (ParallelOptions::work_on_copies), with a formatter of
// its own taken from a pool. The reader hands the blocks' text to the output in stream
// order; events it decodes itself (a generation whose worker's result did not hold, a
// damaged one with --salvage) come out of Next() and are formatted by the caller's
// formatter, which writes the same text. No thread reads what another one formats: the
// serial part is framing the input and writing the output.
//
// Memory: the parallel reader's (at most jobs + 1 generations framed ahead, within 40 MiB
// of copies per worker beyond the first, and 4 MiB of queued copies per generation), plus
// one block's text per queued block and a formatter per thread.
#ifndef TRACEWIRE_TOOLS_COMMANDS_DECODE_BLOCKS_H_
#define TRACEWIRE_TOOLS_COMMANDS_DECODE_BLOCKS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/strings/string_view.h"
#include "reader/targets/formatter.h"
#include "reader/worker_pool.h"
#include "tools/commands/decode.h"

namespace tracewire::tools {

// True if `decode` with these options formats blocks of events on the worker threads: two
// or more jobs, the EVENT or PERF format, no window (a window keeps state across events),
// not --follow, and a single file or stdin (a directory's files are merged event by
// event). TRACEWIRE_DECODE_BLOCKS=0 in the environment turns it off (the stripes of
// tools/commands/decode_stripes.h are used instead), for comparisons.
bool DecodesInBlocks(const DecodeOptions& options, int jobs, const targets::Formatter& formatter);

// The formatters and text buffers the worker threads share while a trace is decoded in
// blocks. Must outlive the TraceInput opened with parallel_options().
class BlockFormatting {
 public:
  // `commit` gets each block's text (complete lines) and its number of events on the
  // reader's thread, in stream order.
  using Commit = std::function<void(absl::string_view text, uint64_t events)>;
  BlockFormatting(const DecodeOptions& options, int jobs, Commit commit);
  BlockFormatting(const BlockFormatting&) = delete;
  BlockFormatting& operator=(const BlockFormatting&) = delete;

  // The options to open the input with (TraceInput::Open).
  const reader::ParallelOptions& parallel_options() const { return parallel_; }

  // A formatter made from the options (one of the pool's if any is free); given back with
  // GiveFormatter. Thread-safe.
  std::unique_ptr<targets::Formatter> TakeFormatter();
  void GiveFormatter(std::unique_ptr<targets::Formatter> formatter);

  // A cleared text buffer (a recycled one if any); given back with GiveText. Thread-safe.
  std::unique_ptr<std::string> TakeText();
  void GiveText(std::unique_ptr<std::string> text);

 private:
  const DecodeOptions& options_;
  Commit commit_;
  reader::ParallelOptions parallel_;
  std::mutex mu_;
  std::vector<std::unique_ptr<targets::Formatter>> formatters_;
  std::vector<std::unique_ptr<std::string>> texts_;
  size_t keep_texts_ = 0;
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_DECODE_BLOCKS_H_
