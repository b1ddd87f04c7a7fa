/*
 * linecount: counts the lines of the files named on its command line, traced with
 * tracewire's C API. Each file is read inside a region; the count is recorded as data,
 * the reading time with a stopwatch timer, and a file that cannot be opened as an error.
 *
 *   TRACEWIRE=/tmp/traces ./linecount FILE...   # one trace file per run in /tmp/traces
 *   tracewire decode --format=normal /tmp/traces
 */
#include <stdio.h>
#include <string.h>

#include <tracewire/tracewire.h>

static long count_lines(FILE *file) {
  char buffer[4096];
  long lines = 0;
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, file)) > 0) {
    for (size_t i = 0; i < n; ++i) lines += buffer[i] == '\n';
  }
  return lines;
}

int main(int argc, const char **argv) {
  tw_initialize_clock(); /* the origin of t_abs: first thing in main */
  tw_initialize();       /* reads TRACEWIRE and the TRACEWIRE_* settings */
  tw_cmd_start(argv);
  tw_cmd_name("linecount");

  const int read_timer = tw_timer_define("linecount", "read", /*per_thread=*/0);
  long total = 0;
  int failed = 0;
  for (int i = 1; i < argc; ++i) {
    tw_region_enter("linecount", "file", TW_NO_REPO);
    FILE *file = fopen(argv[i], "rb");
    if (file == NULL) {
      tw_cmd_error("cannot open '%s'", argv[i]);
      fprintf(stderr, "linecount: cannot open '%s'\n", argv[i]);
      failed = 1;
    } else {
      tw_timer_start(read_timer);
      const long lines = count_lines(file);
      tw_timer_stop(read_timer);
      fclose(file);
      tw_data_string("linecount", TW_NO_REPO, "path", argv[i]);
      tw_data_intmax("linecount", TW_NO_REPO, "lines", lines);
      printf("%8ld %s\n", lines, argv[i]);
      total += lines;
    }
    tw_region_leave("linecount", "file", TW_NO_REPO);
  }
  tw_data_intmax("linecount", TW_NO_REPO, "total", total);
  printf("%8ld total\n", total);
  return tw_cmd_exit(failed);
}
