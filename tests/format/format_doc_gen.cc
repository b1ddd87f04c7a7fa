// Prints the generated parts of docs/format.md: the §4 event table, then every worked
// example as a ```hex block followed by its annotation table. Run it after changing the
// format and paste its output into the doc (format_doc_test fails until the doc matches):
//   bazel run //tests/format:format_doc_gen
#include <cstdio>

#include "tests/format/doc_examples.h"

int main() {
  using namespace tracewire::format;
  std::printf("<!-- event table -->\n%s\n", SpecTableMarkdown().c_str());
  absl::StatusOr<std::vector<DocExample>> examples = DocExamples();
  if (!examples.ok()) {
    std::fprintf(stderr, "%s\n", examples.status().ToString().c_str());
    return 1;
  }
  for (const DocExample& example : *examples) {
    absl::StatusOr<std::string> block = HexBlock(example);
    absl::StatusOr<std::string> table = AnnotationTable(example);
    if (!block.ok() || !table.ok()) {
      std::fprintf(stderr, "%s: %s %s\n", example.label.c_str(), block.status().ToString().c_str(),
                   table.status().ToString().c_str());
      return 1;
    }
    std::printf("<!-- %s: %zu bytes -->\n%s\n%s\n", example.label.c_str(), example.bytes.size(),
                block->c_str(), table->c_str());
  }
  return 0;
}
