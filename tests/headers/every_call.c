/* Calls every macro and function of tracewire.h, written in C89 so that the header test
 * (headers_test.sh) can compile it as C89, C99, C11 and C17. */
#include "tracewire/tracewire.h"

int every_call(int argc, const char **argv);

int every_call(int argc, const char **argv) {
  struct tw_settings settings = TW_SETTINGS_INIT;
  struct tw_child child = {0};
  const char *ancestry[3];
  int repo;
  int exec_id;
  int timer;
  int counter;

  ancestry[0] = "bash";
  ancestry[1] = "sshd";
  ancestry[2] = NULL;
  settings.target = NULL;
  settings.app_version = "1.0";

  tw_initialize_clock();
  tw_initialize();
  (void)tw_initialize_with(&settings);
  (void)tw_is_enabled();
  tw_cmd_start(argv);
  tw_cmd_ancestry(ancestry);
  tw_cmd_name("name");
  tw_cmd_mode("mode");
  tw_cmd_path("/usr/bin/prog");
  tw_cmd_alias("st", argv);
  tw_def_param("core.x", "1", "global");
  tw_def_param("core.y", NULL, "command");
  tw_cmd_set_config("core.z", "2");
  tw_cmd_set_config_scope("core.w", NULL, "system");
  tw_cmd_list_config();
  tw_cmd_list_env_vars();
  repo = tw_def_repo("/work/tree");

  child.argv = argv;
  child.child_class = "hook";
  tw_child_start(&child);
  child.pid = 1;
  tw_child_ready(&child, "ready");
  tw_child_exit(&child, 0);
  exec_id = tw_exec("/bin/true", argv);
  tw_exec_result(exec_id, 0);

  tw_thread_start("worker");
  tw_region_enter("category", "label", repo);
  tw_region_enter_printf("category", "label", TW_NO_REPO, "item %d", argc);
  tw_region_leave_printf("category", "label", TW_NO_REPO, "%s", "done");
  tw_region_leave("category", "label", repo);
  tw_data_string("category", repo, "key", "value");
  tw_data_intmax("category", TW_NO_REPO, "count", argc);
  tw_data_json("category", TW_NO_REPO, "object", "{\"a\": 1}");
  tw_printf("hello %s", "world");
  tw_cmd_error("bad %d", argc);
  tw_thread_exit();

  timer = tw_timer_define("test", "timer", 1);
  tw_timer_start(timer);
  tw_timer_stop(timer);
  counter = tw_counter_define("test", "counter", 0);
  tw_counter_add(counter, 2);
  tw_flush();
  (void)tw_flight_recorder_dump();
  return tw_cmd_exit(0);
}
