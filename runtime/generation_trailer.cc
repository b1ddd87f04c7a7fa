#include "runtime/generation_trailer.h"

#include "format/generation_records.h"
#include "runtime/clock.h"
#include "runtime/recorder.h"

namespace tracewire::runtime {

size_t EncodeClosingRecords(const Session& s, uint64_t gen, const ProcessInfoIds& ids,
                            bool signal_safe, uint8_t* out) {
  const format::ClockSync sync = TakeClockSync(signal_safe);
  size_t n = EncodeSmallRecord(out, EventType::kClockSync,
                               {gen, sync.freq, sync.trace_time, sync.mono_ns, sync.wall_sec,
                                sync.wall_nsec, format::ZigzagEncode(sync.utc_offset_sec)});
  n += EncodeSmallRecord(out + n, EventType::kProcessInfo,
                         {gen, ids.sid, s.pid, s.start_time, ids.name, ids.hierarchy});
  n += EncodeSmallRecord(out + n, EventType::kEndOfGeneration, {gen});
  return n;
}

bool BeginGenerationOutput(Session& s) {
  s.destination.BeginGeneration();
  return s.destination.TakeHeaderInPlace() ||
         s.destination.Write(s.file_header, sizeof(s.file_header));
}

}  // namespace tracewire::runtime
