// Folded stacks (Brendan Gregg's collapsed format, read by flamegraph.pl, speedscope,
// inferno and others) from the CPU samples of a decoded trace: one line per distinct
// stack, its frames outermost first joined by ';', a space, and the sum of its samples'
// weights:
//   main;index_read;lstat_cache 61
// Frames are the symbolized function names (inline frames included), else
// "module+0xoffset", else "0xpc". With FormatterOptions::folded_regions each stack starts
// with the regions open on its thread when it was taken, outermost first, as
// "region:category/label" frames (from the track model). Lines are sorted by stack; every
// line is written by Finish(). Characters that would break a line (';', newline, carriage
// return) inside a frame become '_'.
#ifndef TRACEWIRE_READER_TARGETS_FOLDED_TARGET_H_
#define TRACEWIRE_READER_TARGETS_FOLDED_TARGET_H_

#include <memory>
#include <string>

#include "reader/event.h"
#include "reader/targets/formatter.h"

namespace tracewire::targets {

// The folded-stacks formatter ("folded"); reads FormatterOptions::folded_regions.
std::unique_ptr<Formatter> MakeFoldedFormatter(const FormatterOptions& options);

// The folded-format name of one frame (see above), cleaned of ';' and line breaks.
std::string FoldedFrameName(const reader::SymbolFrame& frame);

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_FOLDED_TARGET_H_
