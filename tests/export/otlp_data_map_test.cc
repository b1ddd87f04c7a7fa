// DataMap (a region span's data values, reused from span to span) renders exactly what the
// std::map model it replaces renders through RenderMap: categories, then keys, in byte
// order, a later value of a key replacing the earlier one; also past the scan limit (the
// index) and after Clear() with entries left over from a larger map.
#include "reader/targets/otlp_data_map.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "reader/targets/otlp_spans.h"

namespace tracewire::targets::otlp {
namespace {

// Names with bytes the JSON writer escapes or copies raw, and ones that share prefixes.
const std::vector<std::string>& Names() {
  static const std::vector<std::string> names = {"a",
                                                 "ab",
                                                 "b",
                                                 "B",
                                                 "",
                                                 "count",
                                                 "name",
                                                 "q\"uote",
                                                 "back\\slash",
                                                 "tab\there",
                                                 std::string("nul\0x", 5),
                                                 "\x7f",
                                                 "\xc3\xa9t\xc3\xa9",
                                                 "\xff\xfe",
                                                 "zzzzzzzzzzzzzzzzzzzz"};
  return names;
}

std::string Render(const DataMap& map) {
  std::string out;
  map.Render(&out);
  return out;
}

TEST(OtlpDataMapTest, RendersAsTheMapModelWhateverTheOrderAndSize) {
  std::mt19937 rng(20261129);
  DataMap map;  // one map, cleared between rounds, as a pooled span's
  for (int round = 0; round < 300; ++round) {
    JsonMap expected;
    map.Clear();
    EXPECT_TRUE(map.empty());
    const int sets = static_cast<int>(rng() % (round % 3 == 0 ? 200 : 12));
    for (int i = 0; i < sets; ++i) {
      const std::string& category = Names()[rng() % 6];
      const std::string key = Names()[rng() % Names().size()] + std::to_string(rng() % 12);
      const std::string json = "\"" + std::to_string(rng()) + "\"";
      expected[category][key] = json;
      *map.Set(category, key) = json;
    }
    size_t entries = 0;
    for (const auto& [category, values] : expected) entries += values.size();
    EXPECT_EQ(map.size(), entries) << "round " << round;
    EXPECT_EQ(Render(map), RenderMap(expected)) << "round " << round;
  }
}

TEST(OtlpDataMapTest, ALaterValueReplacesTheEarlierOne) {
  DataMap map;
  *map.Set("bench", "count") = "\"1\"";
  *map.Set("bench", "name") = "\"some value\"";
  std::string* slot = map.Set("bench", "count");
  EXPECT_TRUE(slot->empty());  // the slot comes back emptied
  *slot = "\"2\"";
  EXPECT_EQ(Render(map), R"({"bench":{"count":"2","name":"some value"}})");
  map.Clear();
  EXPECT_EQ(Render(map), "{}");
}

}  // namespace
}  // namespace tracewire::targets::otlp
