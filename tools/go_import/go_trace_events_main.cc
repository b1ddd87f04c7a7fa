// go_trace_events: prints every event of a Go execution trace as `go tool trace -d=1`
// prints it (one Event.String() per event, in Go's order), for checking tracewire's reading
// against Go's own parser. Usage: go_trace_events TRACE [--salvage]
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tools/go_import/go_trace_reader.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: go_trace_events TRACE [--salvage]\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "go_trace_events: cannot open %s\n", argv[1]);
    return 2;
  }
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  tracewire::go_trace::GoReaderOptions options;
  options.salvage = argc > 2 && std::string(argv[2]) == "--salvage";
  auto reader = tracewire::go_trace::GoTraceReader::Open(std::move(data), options);
  if (!reader.ok()) {
    std::fprintf(stderr, "go_trace_events: %s\n", std::string(reader.status().message()).c_str());
    return 1;
  }
  std::vector<tracewire::go_trace::GoEvent> events;
  while (true) {
    absl::StatusOr<bool> more = (*reader)->NextGeneration(&events);
    if (!more.ok()) {
      std::fprintf(stderr, "go_trace_events: %s\n", std::string(more.status().message()).c_str());
      return 1;
    }
    if (!*more) break;
    for (const auto& e : events) {
      std::string text = tracewire::go_trace::GoEventText(e);
      std::fwrite(text.data(), 1, text.size(), stdout);
      std::fputc('\n', stdout);
    }
  }
  for (const std::string& d : (*reader)->damage()) std::fprintf(stderr, "damage: %s\n", d.c_str());
  return 0;
}
