// Calls every macro of tracewire.h and every helper of tracewire.hpp, with every argument
// type tracewire::Data takes; the header test (headers_test.sh) compiles it as C++11, C++14,
// C++17 and C++20.
#include <string>

#include "tracewire/tracewire.hpp"
#if __cplusplus >= 201703L
#include <string_view>
#endif

int EveryCall(int argc, const char** argv);

namespace {

enum Plain { kPlainValue = 3 };
enum class Scoped : unsigned long long { kLargest = ~0ull };

void EveryDataType(const std::string& text) {
  char buffer[] = "mutable";
  tracewire::Data("c", "literal zero", 0);
  tracewire::Data("c", "char", 'x');
  tracewire::Data("c", "signed char", static_cast<signed char>(-1));
  tracewire::Data("c", "unsigned char", static_cast<unsigned char>(255));
  tracewire::Data("c", "short", static_cast<short>(-2));
  tracewire::Data("c", "unsigned short", static_cast<unsigned short>(2));
  tracewire::Data("c", "int", -3);
  tracewire::Data("c", "unsigned", 3u);
  tracewire::Data("c", "long", -4L);
  tracewire::Data("c", "unsigned long", 4UL);
  tracewire::Data("c", "long long", -5LL);
  tracewire::Data("c", "unsigned long long", ~0ULL);
  tracewire::Data("c", "char16_t", u'x');
  tracewire::Data("c", "char32_t", U'x');
  tracewire::Data("c", "wchar_t", L'x');
  tracewire::Data("c", "enum", kPlainValue);
  tracewire::Data("c", "enum class", Scoped::kLargest);
  tracewire::Data("c", "bool", true);
  tracewire::Data("c", "float", 0.1f);
  tracewire::Data("c", "double", 0.1);
  tracewire::Data("c", "long double", 0.1L);
  tracewire::Data("c", "const char*", "text");
  tracewire::Data("c", "char*", buffer);
  tracewire::Data("c", "nullptr", nullptr);
  tracewire::Data("c", "std::string", text);
  tracewire::Data("c", "temporary std::string", std::string("temporary"));
#if __cplusplus >= 201703L
  tracewire::Data("c", "std::string_view", std::string_view(text));
#endif
  tracewire::Data("c", "with repo", 1, 2);
  tracewire::Data("c", "with site", 1, TW_NO_REPO, "file.cc", 7);
  tracewire::Json("c", "json", "{\"a\": 1}");
  tracewire::Json("c", "json string", text);
}

}  // namespace

int EveryCall(int argc, const char** argv) {
  tw_settings settings = TW_SETTINGS_INIT;
  settings.app_version = "1.0";
  tw_initialize_clock();
  tw_initialize();
  static_cast<void>(tw_initialize_with(&settings));
  static_cast<void>(tw_is_enabled());
  tw_cmd_start(argv);
  tw_cmd_ancestry(argv);
  tw_cmd_name("name");
  tw_cmd_mode("mode");
  tw_cmd_path("/usr/bin/prog");
  tw_cmd_alias("st", argv);
  tw_def_param("core.x", "1", "global");
  tw_def_param("core.y", nullptr, "command");
  tw_cmd_set_config("core.z", "2");
  tw_cmd_set_config_scope("core.w", NULL, "system");
  tw_cmd_list_config();
  tw_cmd_list_env_vars();
  const int repo = tw_def_repo("/work/tree");
  tw_child child{};
  child.argv = argv;
  tw_child_start(&child);
  tw_child_ready(&child, "ready");
  tw_child_exit(&child, 0);
  const int exec_id = tw_exec("/bin/true", argv);
  tw_exec_result(exec_id, 0);
  {
    tracewire::ThreadScope thread("worker");
    tracewire::RegionScope region("category", "label");
    tracewire::RegionScope region_in_repo("category", "label", repo);
    tracewire::TimerScope timer(tw_timer_define("test", "timer", 1));
    tw_region_enter("category", "label", repo);
    tw_region_enter_printf("category", "label", TW_NO_REPO, "item %d", argc);
    tw_region_leave_printf("category", "label", TW_NO_REPO, "%s", "done");
    tw_region_leave("category", "label", repo);
    tw_data_string("category", repo, "key", "value");
    tw_data_intmax("category", TW_NO_REPO, "count", argc);
    tw_data_json("category", TW_NO_REPO, "object", "{}");
    tw_printf("hello %s", "world");
    tw_cmd_error("bad %d", argc);
    EveryDataType(argv[0] == nullptr ? "" : argv[0]);
  }
  tw_thread_start("main");
  tw_thread_exit();
  tw_counter_add(tw_counter_define("test", "counter", 0), 2);
  tw_flush();
  static_cast<void>(tw_flight_recorder_dump());
  return tw_cmd_exit(0);
}
