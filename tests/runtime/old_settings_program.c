/* A program compiled against the header before struct tw_settings had struct_size: its
 * copy of the structure (as that header laid it out, up to flight_on_error) and its call
 * (tw_initialize_with_fl). The structure ends right before an inaccessible page, so a
 * library that read past it would fault. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct tw_settings {
  const char *target;
  const char *app_version;
  uint64_t generation_ms;
  uint64_t generation_bytes;
  int compress;
  int no_redact;
  const char *stack_events;
  int max_files;
  const char *config_params;
  const char *env_vars;
  int no_ancestry;
  int write_timeout_ms;
  uint64_t flight_recorder_bytes;
  int flight_signal;
  int flight_on_error;
};

int tw_initialize_with_fl(const char *file, int line, const struct tw_settings *settings);

size_t OldSettingsSize(void) { return sizeof(struct tw_settings); }

int OldProgramInitialize(const char *target) {
  const long page = sysconf(_SC_PAGESIZE);
  char *memory = (char *)mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  struct tw_settings *settings;
  if (memory == MAP_FAILED || mprotect(memory + page, (size_t)page, PROT_NONE) != 0) return -2;
  settings = (struct tw_settings *)(memory + page - sizeof(struct tw_settings));
  memset(settings, 0, sizeof(*settings));
  settings->target = target;
  settings->compress = 1;
  settings->app_version = "old-program";
  return tw_initialize_with_fl(__FILE__, __LINE__, settings);
}
