// The worked examples of docs/format.md, built with the real encoders. format_doc_gen
// prints them (with their annotations and the §4 event table) for pasting into the doc;
// format_doc_test checks that the doc's bytes still equal what the encoders produce.
#ifndef TRACEWIRE_TESTS_FORMAT_DOC_EXAMPLES_H_
#define TRACEWIRE_TESTS_FORMAT_DOC_EXAMPLES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tracewire::format {

struct DocExample {
  std::string label;  // the hex block's label, e.g. "example:event_batch"
  std::string bytes;  // the encoded bytes
  bool is_file;       // true: a file (header first); false: a sequence of frames
};

// Every example, in the order the doc shows them.
absl::StatusOr<std::vector<DocExample>> DocExamples();

// The example's bytes as the doc's ```hex block (fence lines included): one record per
// line, long records wrapped at 16 bytes.
absl::StatusOr<std::string> HexBlock(const DocExample& example);

// A Markdown table naming every byte group of the example (per field for frames, per
// record for files).
absl::StatusOr<std::string> AnnotationTable(const DocExample& example);

// The §4 event type table, one Markdown row per EventSpec row.
std::string SpecTableMarkdown();

}  // namespace tracewire::format

#endif  // TRACEWIRE_TESTS_FORMAT_DOC_EXAMPLES_H_
