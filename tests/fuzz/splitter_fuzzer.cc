// Fuzz target: the collector's GenerationSplitter, which cuts what a traced process sends
// (file header + generation, again and again) into generations.
//
// The input is a runtime stream. It is split twice: appended at once, and appended in
// 61-byte pieces with Next() drained after each. Beyond "no crash, no sanitizer report",
// it checks that both give the same generations (number, sid, bytes) and end the same way
// (the same error, or none), that the memory held never exceeds the generation limit plus
// one piece, and that each generation's sid is what GenerationSid finds in its frames.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "format/constants.h"
#include "tools/collector/generation_splitter.h"

namespace {

using tracewire::tools::GenerationSplitter;
using tracewire::tools::SplitGeneration;

// Small enough that the size limit is reached by fuzzed inputs.
constexpr size_t kMaxGeneration = 64 * 1024;
constexpr size_t kPiece = 61;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "splitter_fuzzer: %s\n", what);
  std::abort();
}

struct Generation {
  uint64_t gen;
  std::string sid;
  std::string frames;
  bool operator==(const Generation&) const = default;
};

struct Split {
  std::vector<Generation> generations;
  absl::Status error;
  bool partial = false;
};

// Drains `splitter`; false once it failed (the error is in split->error).
bool Drain(GenerationSplitter& splitter, Split* split) {
  while (true) {
    absl::StatusOr<std::optional<SplitGeneration>> next = splitter.Next();
    if (!next.ok()) {
      split->error = next.status();
      return false;
    }
    if (!next->has_value()) return true;
    const SplitGeneration& gen = **next;
    absl::StatusOr<std::string> sid = tracewire::tools::GenerationSid(gen.frames, kMaxGeneration);
    if (!sid.ok() || *sid != gen.sid) Fail("GenerationSid disagrees with the splitter's sid");
    split->generations.push_back(Generation{gen.gen, gen.sid, std::string(gen.frames)});
    if (splitter.buffered_bytes() > kMaxGeneration + tracewire::format::kFileHeaderSize + kPiece +
                                        split->generations.back().frames.size()) {
      Fail("the splitter holds more than a generation and a piece");
    }
  }
}

Split SplitStream(absl::string_view stream, size_t piece) {
  GenerationSplitter splitter(kMaxGeneration);
  Split split;
  for (size_t pos = 0; pos < stream.size(); pos += piece) {
    splitter.Append(stream.substr(pos, piece));
    if (!Drain(splitter, &split)) return split;
    if (splitter.buffered_bytes() > kMaxGeneration + 2 * tracewire::format::kFileHeaderSize + piece) {
      Fail("the splitter holds more than the generation limit");
    }
  }
  split.partial = splitter.has_partial();
  return split;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view stream(reinterpret_cast<const char*>(data), size);
  const Split whole = SplitStream(stream, stream.size() + 1);
  const Split pieces = SplitStream(stream, kPiece);
  if (whole.generations != pieces.generations) Fail("pieces and whole give other generations");
  if (whole.error.code() != pieces.error.code()) Fail("pieces and whole end differently");
  if (whole.error.ok() && whole.partial != pieces.partial) Fail("pieces and whole disagree on the tail");
  return 0;
}
