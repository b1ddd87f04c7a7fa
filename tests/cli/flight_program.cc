// A traced program for the flight-recorder tests of the command: in flight-recorder mode
// (TRACEWIRE_FLIGHT_RECORDER), opens a region, records data events "seq" 0..N-1 over many
// generations, dumps (tw_flight_recorder_dump) with the region still open, then leaves it.
//   flight_program N
#include <cstdlib>

#include "tracewire/tracewire.h"

int main(int argc, char** argv) {
  const long events = argc > 1 ? atol(argv[1]) : 100000;
  tw_initialize();
  tw_region_enter("work", "outer", TW_NO_REPO);
  for (long i = 0; i < events; ++i) {
    tw_data_intmax("work", TW_NO_REPO, "seq", i);
    if (i % 10000 == 9999) tw_flush();  // many generations, whatever the machine's load
  }
  const int dumped = tw_flight_recorder_dump();
  tw_region_leave("work", "outer", TW_NO_REPO);
  return dumped == 0 ? 0 : 1;
}
