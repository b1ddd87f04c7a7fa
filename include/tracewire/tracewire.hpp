// tracewire.hpp — the C++ layer over tracewire.h: RAII scopes and typed data helpers.
#ifndef TRACEWIRE_TRACEWIRE_HPP_
#define TRACEWIRE_TRACEWIRE_HPP_

#include <cstdint>
#include <string>
#include <string_view>

#include "tracewire/tracewire.h"

namespace tracewire {

// Enters a region on construction and leaves it on destruction. `category` and `label`
// must outlive the scope (string literals are the common case).
class RegionScope {
 public:
  RegionScope(const char* category, const char* label, int repo_id = TW_NO_REPO,
              const char* file = __builtin_FILE(), int line = __builtin_LINE())
      : category_(category), label_(label), repo_id_(repo_id), file_(file), line_(line) {
    if (TW_UNLIKELY(TW_ENABLED())) tw_region_enter_fl(file_, line_, category_, label_, repo_id_);
  }
  ~RegionScope() {
    if (TW_UNLIKELY(TW_ENABLED())) tw_region_leave_fl(file_, line_, category_, label_, repo_id_);
  }
  RegionScope(const RegionScope&) = delete;
  RegionScope& operator=(const RegionScope&) = delete;

 private:
  const char* category_;
  const char* label_;
  int repo_id_;
  const char* file_;
  int line_;
};

// Names the calling thread and records thread_start; records thread_exit on destruction.
class ThreadScope {
 public:
  explicit ThreadScope(const char* base_name, const char* file = __builtin_FILE(),
                       int line = __builtin_LINE())
      : file_(file), line_(line) {
    if (TW_UNLIKELY(TW_ENABLED())) tw_thread_start_fl(file_, line_, base_name);
  }
  ~ThreadScope() {
    if (TW_UNLIKELY(TW_ENABLED())) tw_thread_exit_fl(file_, line_);
  }
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  const char* file_;
  int line_;
};

// Starts a stopwatch timer on construction and stops it on destruction.
class TimerScope {
 public:
  explicit TimerScope(int timer_id) : timer_id_(timer_id) { tw_timer_start(timer_id_); }
  ~TimerScope() { tw_timer_stop(timer_id_); }
  TimerScope(const TimerScope&) = delete;
  TimerScope& operator=(const TimerScope&) = delete;

 private:
  int timer_id_;
};

// Typed data events: integers become data_int, strings data, and Json() data_json.
inline void Data(const char* category, const char* key, std::int64_t value,
                 int repo_id = TW_NO_REPO, const char* file = __builtin_FILE(),
                 int line = __builtin_LINE()) {
  if (TW_UNLIKELY(TW_ENABLED())) tw_data_intmax_fl(file, line, category, repo_id, key, value);
}
inline void Data(const char* category, const char* key, const std::string& value,
                 int repo_id = TW_NO_REPO, const char* file = __builtin_FILE(),
                 int line = __builtin_LINE()) {
  if (TW_UNLIKELY(TW_ENABLED())) {
    tw_data_string_fl(file, line, category, repo_id, key, value.c_str());
  }
}
inline void Data(const char* category, const char* key, const char* value,
                 int repo_id = TW_NO_REPO, const char* file = __builtin_FILE(),
                 int line = __builtin_LINE()) {
  if (TW_UNLIKELY(TW_ENABLED())) tw_data_string_fl(file, line, category, repo_id, key, value);
}
inline void Json(const char* category, const char* key, const std::string& json,
                 int repo_id = TW_NO_REPO, const char* file = __builtin_FILE(),
                 int line = __builtin_LINE()) {
  if (TW_UNLIKELY(TW_ENABLED())) {
    tw_data_json_fl(file, line, category, repo_id, key, json.c_str());
  }
}

}  // namespace tracewire

#endif  // TRACEWIRE_TRACEWIRE_HPP_
