// Loader: streams traces into the database of `tracewire query`. Each input (FILE, DIR or
// "-", read by tools/cli/trace_input.h with its generations decoded on worker threads)
// runs through one track model (reader/track_model.h), whose callbacks go to the table
// writers of table_list.h, each inserting with prepared statements inside large
// transactions. Memory is the database, the open slices and one row per process and thread;
// the events themselves are never held.
#ifndef TRACEWIRE_TOOLS_QUERY_LOADER_H_
#define TRACEWIRE_TOOLS_QUERY_LOADER_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "reader/track_model.h"
#include "tools/query/load_context.h"
#include "tools/query/sqlite_database.h"
#include "tools/query/table_writer.h"

namespace tracewire::tools::query {

struct LoadOptions {
  bool salvage = false;  // skip damaged generations (reported on stderr)
  int jobs = 0;          // decoding threads (DecodingJobs)
  std::string db_path;   // the database file, "" for a temporary one (never read as an input)
  size_t cache_bytes = kDatabaseCacheBytes;  // a named input's own database keeps this much
};

// What a load found besides its rows.
struct LoadSummary {
  uint64_t events = 0;
  bool lost = false;     // salvage: data was lost (each loss printed on stderr)
  bool skipped = false;  // files of a directory could not be read (printed on stderr)
};

class Loader {
 public:
  // Loads into `db`, whose schema it creates.
  explicit Loader(SqliteDatabase* db);
  ~Loader();

  // Creates the tables and views and prepares the inserts.
  absl::Status CreateSchema();
  // Loads the input `path`. Errors: I/O errors and usage errors (InvalidArgument,
  // NotFound, ...), trace errors (the reader's; the rows before the error are kept), and
  // database errors (Internal).
  absl::Status Load(const std::string& path, const LoadOptions& options, LoadSummary* summary);
  // Ends every open slice and writes the rows kept for the end (processes, threads, links).
  absl::Status Finish();

 private:
  class Dispatch;
  absl::Status Commit(bool begin_again);

  SqliteDatabase* db_;
  reader::TrackModel tracks_;
  LoadContext context_;
  std::vector<std::unique_ptr<TableWriter>> writers_;
  std::unique_ptr<Dispatch> dispatch_;
  uint64_t events_since_commit_ = 0;
};

}  // namespace tracewire::tools::query

#endif  // TRACEWIRE_TOOLS_QUERY_LOADER_H_
