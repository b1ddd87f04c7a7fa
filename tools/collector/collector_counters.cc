#include "tools/collector/collector_counters.h"

namespace tracewire::tools {

CollectorStats CollectorCounters::Snapshot() const {
  CollectorStats s;
  s.connections = connections.load();
  s.active_connections = active_connections.load();
  s.generations_written = generations_written.load();
  s.bytes_written = bytes_written.load();
  s.partial_generations = partial_generations.load();
  s.invalid_generations = invalid_generations.load();
  s.stream_errors = stream_errors.load();
  s.write_errors = write_errors.load();
  s.git_connections = git_connections.load();
  s.git_processes = git_processes.load();
  s.git_invalid = git_invalid.load();
  s.unsafe_files = unsafe_files.load();
  s.idle_timeouts = idle_timeouts.load();
  s.memory_limit_drops = memory_limit_drops.load();
  s.refused_connections = refused_connections.load();
  s.accept_pauses = accept_pauses.load();
  return s;
}

}  // namespace tracewire::tools
