#include "tests/cli/decode_event.h"

#include <memory>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "reader/targets/formatter.h"

namespace tracewire::cli_test {

std::string DecodeEvent(const std::string& trace) {
  targets::FormatterOptions options;
  options.event_nesting = 100;
  options.event_version = 3;
  absl::StatusOr<std::unique_ptr<targets::Formatter>> formatter =
      targets::MakeFormatter("event", options);
  EXPECT_TRUE(formatter.ok());
  reader::Reader reader(reader::MemorySource(trace));
  std::string out;
  while (true) {
    absl::StatusOr<const reader::Event*> event = reader.Next();
    EXPECT_TRUE(event.ok()) << event.status();
    if (!event.ok() || *event == nullptr) break;
    (*formatter)->Write(**event, &out);
  }
  return out;
}

}  // namespace tracewire::cli_test
