/*
 * No-op definitions of the calls startup_app.c makes: the "same program with stubs" the
 * start-up benchmark compares the runtime with (tracing is never enabled).
 */
#include <tracewire/tracewire.h>

volatile int tw_enabled_flag = 0;

void tw_initialize_clock(void) {}
void tw_initialize_fl(const char *file, int line) {}
void tw_cmd_start_fl(const char *file, int line, const char **argv) {}
void tw_cmd_name_fl(const char *file, int line, const char *name) {}
int tw_cmd_exit_fl(const char *file, int line, int code) { return code; }
void tw_region_enter_fl(const char *file, int line, const char *category, const char *label,
                        int repo_id) {}
void tw_region_leave_fl(const char *file, int line, const char *category, const char *label,
                        int repo_id) {}
void tw_region_enter_site(struct tw_callsite *site, const char *file, int line,
                          const char *category, const char *label, int repo_id) {}
void tw_region_leave_site(struct tw_callsite *site, const char *file, int line,
                          const char *category, const char *label, int repo_id) {}
void tw_data_intmax_fl(const char *file, int line, const char *category, int repo_id,
                       const char *key, intmax_t value) {}
void tw_data_intmax_site(struct tw_callsite *site, const char *file, int line, const char *category,
                         int repo_id, const char *key, intmax_t value) {}
