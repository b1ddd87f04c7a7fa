/*
 * startup_app: the program the start-up benchmark (startup_bench) starts many times. It
 * makes the calls a traced command-line tool makes — initialize, start, name, a region
 * with a data value, exit — and nothing else, so its run time is its start-up cost.
 * Linked with the runtime, or with tracewire_stubs.c for the baseline.
 */
#include <tracewire/tracewire.h>

int main(int argc, const char **argv) {
  tw_initialize_clock();
  tw_initialize();
  tw_cmd_start(argv);
  tw_cmd_name("startup_app");
  tw_region_enter("startup", "work", TW_NO_REPO);
  tw_data_intmax("startup", TW_NO_REPO, "argc", argc);
  tw_region_leave("startup", "work", TW_NO_REPO);
  return tw_cmd_exit(0);
}
