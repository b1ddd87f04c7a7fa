// The flight recorder: finished generations kept in memory (FlightRing) instead of being
// written, and the dumps that write them to the target — on request, on a signal, on the
// first error event, and on a fatal signal (the emergency path).
#ifndef TRACEWIRE_RUNTIME_FLIGHT_RECORDER_H_
#define TRACEWIRE_RUNTIME_FLIGHT_RECORDER_H_

#include <cstdint>

#include "tracewire/tracewire.h"

namespace tracewire::runtime {

struct Session;

// Parses TRACEWIRE_FLIGHT_SIGNAL: "USR1" or "USR2" (with or without "SIG", any case) or
// their numbers; 0 for anything else.
int ParseFlightSignal(const char* value);

// Sets up flight-recorder mode from `settings` before the target is opened (nothing to do
// if settings.flight_recorder_bytes is 0). Returns false if the ring could not be mapped.
bool ConfigureFlightRecorder(Session& s, const tw_settings& settings);
// Once tracing is on: starts the thread that performs requested dumps and installs the
// dump signal's handler.
void StartFlightRecorder(Session& s);
// Stops that thread (at exit).
void StopFlightRecorder(Session& s);

// Cuts the current generation into the ring and writes a dump. 0, or -1 if not in
// flight-recorder mode (or in a forked child) or the write failed.
int FlightRecorderDump();

// Asks the dump thread for a dump. Async-signal-safe.
void RequestFlightRecorderDump();

// Called after an error event: requests a dump for the first one if so configured.
void NoteErrorForFlightRecorder();

// Starts a dump: opens its file (a directory target) and writes the file header and the
// kept generations not yet written to this target. Requires advance_mu. Async-signal-safe.
// Returns false if nothing could be written.
bool BeginFlightDumpLocked(Session& s);
// Ends a dump (closes a directory target's file).
void EndFlightDumpLocked(Session& s);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_FLIGHT_RECORDER_H_
