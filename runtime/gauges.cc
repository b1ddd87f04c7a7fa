// Gauges (tw_gauge_*): values sampled over time. A gauge is a site (no file; its category,
// its name as the label), registered at its first sample, and a unit string interned once
// per generation; a sample is one `gauge` event.
#include <atomic>
#include <mutex>
#include <string>

#include "format/varint.h"
#include "runtime/emit.h"
#include "runtime/recorder.h"
#include "runtime/session.h"
#include "tracewire/tracewire.h"

namespace tracewire::runtime {
namespace {

constexpr int kMaxGauges = 256;
// GaugeDefinition::site once its category is known to be filtered out.
constexpr uint32_t kGaugeFiltered = ~uint32_t{0};

struct GaugeDefinition {
  std::string category;
  std::string name;
  std::string unit;
  bool has_unit = false;
  std::atomic<uint32_t> site{0};         // registry index + 1; 0: not registered yet
  std::atomic<uint64_t> unit_gen_id{0};  // (generation & 0xffffffff) << 32 | string ID
};

std::mutex g_gauges_mu;
GaugeDefinition* g_gauges = nullptr;  // kMaxGauges entries, allocated by the first define
std::atomic<int> g_num_gauges{0};

// Registers the gauge's site (first sample); returns GaugeDefinition::site's new value.
__attribute__((noinline)) uint32_t RegisterGaugeSite(GaugeDefinition& gauge) {
  SiteRegistry& registry = GetSession().site_registry;
  const uint32_t index =
      registry.Intern(MakeSite(nullptr, 0, gauge.category.c_str(), gauge.name.c_str(), -1));
  const uint32_t site =
      index == kFilteredSite || registry.Get(index).filtered ? kGaugeFiltered : index + 1;
  // release, pairs with tw_gauge_set's acquire: the registry entry behind the index.
  gauge.site.store(site, std::memory_order_release);
  return site;
}

// The unit's string ID in the thread's generation, interned on the generation's first use.
__attribute__((noinline)) uint64_t InternGaugeUnit(ThreadState* ts, GaugeDefinition& gauge) {
  Session& s = GetSession();
  std::lock_guard<std::mutex> lock(s.tables_mu);
  const uint64_t gen = ts->gen.get();
  const uint64_t id = InternLocked(s, gen, gauge.unit);
  // release, pairs with GaugeUnitId's acquire: the unit string is in the generation's table.
  gauge.unit_gen_id.store(((gen & 0xffffffffu) << 32) | id, std::memory_order_release);
  return id;
}

inline uint64_t GaugeUnitId(ThreadState* ts, GaugeDefinition& gauge) {
  if (!gauge.has_unit) return 0;
  const uint64_t word = gauge.unit_gen_id.load(std::memory_order_acquire);  // acquire: above
  if (__builtin_expect(word != 0 && (word >> 32) == (ts->gen.get() & 0xffffffffu), 1)) {
    return word & 0xffffffffu;
  }
  return InternGaugeUnit(ts, gauge);
}

}  // namespace
}  // namespace tracewire::runtime

using namespace tracewire::runtime;  // NOLINT: C entry points below

extern "C" {

int tw_gauge_define(const char* category, const char* name, const char* unit) {
  std::lock_guard<std::mutex> lock(g_gauges_mu);
  const int id = g_num_gauges.load(std::memory_order_relaxed);  // relaxed: g_gauges_mu is held
  if (id >= kMaxGauges) return -1;
  if (g_gauges == nullptr) g_gauges = new GaugeDefinition[kMaxGauges];
  GaugeDefinition& gauge = g_gauges[id];
  gauge.category = category == nullptr ? "" : category;
  gauge.name = name == nullptr ? "" : name;
  gauge.has_unit = unit != nullptr;
  gauge.unit = unit == nullptr ? "" : unit;
  // release, pairs with tw_gauge_set's acquire: the definition is complete before its ID.
  g_num_gauges.store(id + 1, std::memory_order_release);
  return id;
}

void tw_gauge_set(int gauge_id, int64_t value) {
  // acquire, pairs with tw_gauge_define's release of the count.
  if (!TW_ENABLED() || gauge_id < 0 || gauge_id >= g_num_gauges.load(std::memory_order_acquire)) {
    return;
  }
  GaugeDefinition& gauge = g_gauges[gauge_id];
  uint32_t site = gauge.site.load(std::memory_order_acquire);  // acquire: RegisterGaugeSite
  if (__builtin_expect(site == 0, 0)) site = RegisterGaugeSite(gauge);
  if (site == kGaugeFiltered) return;
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  const uint64_t site_id = GenSiteId(ts, site - 1);
  WriteTimed(ts, tracewire::format::EventType::kGauge, site_id,
             {tracewire::format::ZigzagEncode(value), GaugeUnitId(ts, gauge)});
  EndEvent(ts);
}

}  // extern "C"
