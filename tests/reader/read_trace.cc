// read_trace: prints the reader's events (Event::DebugString) of trace files or
// directories, for manual checks. Usage: read_trace [--salvage] <file|dir>...
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "reader/process_tree.h"
#include "reader/reader.h"

int main(int argc, char** argv) {
  tracewire::reader::ReaderOptions options;
  std::vector<std::unique_ptr<tracewire::reader::Reader>> readers;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--salvage") == 0) {
      options.salvage = true;
      continue;
    }
    struct stat st;
    if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
      auto tree = tracewire::reader::ProcessTreeReader::OpenDirectory(argv[i], options);
      if (!tree.ok()) {
        std::fprintf(stderr, "%s\n", tree.status().ToString().c_str());
        return 1;
      }
      while (true) {
        auto event = (*tree)->Next();
        if (!event.ok()) {
          std::fprintf(stderr, "%s\n", event.status().ToString().c_str());
          return 1;
        }
        if (*event == nullptr) break;
        std::printf("%s\n", (*event)->DebugString().c_str());
      }
      continue;
    }
    auto reader = tracewire::reader::Reader::OpenFile(argv[i], options);
    if (!reader.ok()) {
      std::fprintf(stderr, "%s\n", reader.status().ToString().c_str());
      return 1;
    }
    while (true) {
      auto event = (*reader)->Next();
      if (!event.ok()) {
        std::fprintf(stderr, "%s\n", event.status().ToString().c_str());
        return 1;
      }
      if (*event == nullptr) break;
      std::printf("%s\n", (*event)->DebugString().c_str());
    }
    if (options.salvage) {
      std::fprintf(stderr, "%s\n", (*reader)->loss_report().Summary().c_str());
    }
  }
  return 0;
}
