// tracewire.hpp — the C++ layer over tracewire.h: RAII scopes and typed data helpers.
// C++11 or later (GCC or Clang: the call sites come from __builtin_FILE/__builtin_LINE); the
// std::string_view overload from C++17.
#ifndef TRACEWIRE_TRACEWIRE_HPP_
#define TRACEWIRE_TRACEWIRE_HPP_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#if __cplusplus >= 201703L
#include <string_view>
#endif

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

// A task (tw_task_begin): begun on construction, ended by End() or on destruction,
// whichever comes first. Movable, so it can travel with the work from thread to thread.
class Task {
 public:
  // An empty task (id 0): End() and the destructor do nothing.
  Task() = default;
  Task(const char* category, const char* name, uint64_t parent = 0,
       const char* file = __builtin_FILE(), int line = __builtin_LINE())
      : id_(TW_UNLIKELY(TW_ENABLED()) ? tw_task_begin_fl(file, line, parent, category, name) : 0) {}
  Task(Task&& other) noexcept : id_(other.id_) { other.id_ = 0; }
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      End();
      id_ = other.id_;
      other.id_ = 0;
    }
    return *this;
  }
  ~Task() { End(); }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;

  // Ends the task now (once).
  void End() {
    if (id_ != 0) tw_task_end(id_);
    id_ = 0;
  }
  // The task's ID (0 when tracing was off or its category is filtered out).
  uint64_t id() const { return id_; }

 private:
  uint64_t id_ = 0;
};

// The calling thread works for a task while the scope lives (tw_task_adopt on
// construction, tw_task_release on destruction).
class TaskScope {
 public:
  explicit TaskScope(uint64_t task) : active_(task != 0) {
    if (active_) tw_task_adopt(task);
  }
  explicit TaskScope(const Task& task) : TaskScope(task.id()) {}
  ~TaskScope() {
    if (active_) tw_task_release();
  }
  TaskScope(const TaskScope&) = delete;
  TaskScope& operator=(const TaskScope&) = delete;

 private:
  bool active_;
};

// Typed data events. `tracewire::Data(category, key, value)` records:
//   * an integer of any type (char, signed/unsigned char, short, int, long, long long and
//     their unsigned forms, char16_t/char32_t/wchar_t) or an enumeration: `data_int` with its
//     value (an unsigned value above INTMAX_MAX: `data` with its decimal digits, which every
//     decoder prints as it would print the integer);
//   * a bool: `data_int` with 1 or 0;
//   * a float, double or long double: `data` with its shortest %g text that reads back as
//     the same value ("0.1", "1e+100", "inf", "nan");
//   * a const char*, std::string or (C++17) std::string_view: `data` with the text (a null
//     pointer: empty).
// Json() records `data_json`.
namespace data_detail {

// The integer cases, after the argument's promotion to intmax_t or uintmax_t.
inline void RecordInteger(const char* file, int line, const char* category, int repo_id,
                          const char* key, std::intmax_t value) {
  tw_data_intmax_fl(file, line, category, repo_id, key, value);
}
inline void RecordInteger(const char* file, int line, const char* category, int repo_id,
                          const char* key, std::uintmax_t value) {
  if (value <= static_cast<std::uintmax_t>(INTMAX_MAX)) {
    tw_data_intmax_fl(file, line, category, repo_id, key, static_cast<std::intmax_t>(value));
    return;
  }
  char digits[std::numeric_limits<std::uintmax_t>::digits10 + 2];
  char* text = digits + sizeof(digits) - 1;
  *text = '\0';
  do {
    *--text = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  tw_data_string_fl(file, line, category, repo_id, key, text);
}

// The wide integer type an integer or enumeration type `T` is recorded through: uintmax_t
// for unsigned types as wide as intmax_t (their values may exceed INTMAX_MAX), else
// intmax_t.
template <typename T, bool kIsEnum = std::is_enum<T>::value>
struct IntegerOf {
  using Underlying = T;
};
template <typename T>
struct IntegerOf<T, true> {
  using Underlying = typename std::underlying_type<T>::type;
};
template <typename T>
struct Widened {
  using Underlying = typename IntegerOf<T>::Underlying;
  using type = typename std::conditional<std::is_unsigned<Underlying>::value &&
                                             sizeof(Underlying) >= sizeof(std::intmax_t),
                                         std::uintmax_t, std::intmax_t>::type;
};

// True for the types Data records as an integer: integers other than bool, enumerations.
template <typename T>
struct IsRecordedAsInteger
    : std::integral_constant<bool, (std::is_integral<T>::value && !std::is_same<T, bool>::value) ||
                                       std::is_enum<T>::value> {};

// Writes the shortest "%.<n>Lg" text of `value` that reads back as `value` into `out`.
template <typename Floating>
void FormatFloating(Floating value, char* out, std::size_t size) {
  const int shortest = std::numeric_limits<Floating>::digits10;
  const int longest = std::numeric_limits<Floating>::max_digits10;
  for (int digits = shortest; digits <= longest; ++digits) {
    std::snprintf(out, size, "%.*Lg", digits, static_cast<long double>(value));
    if (static_cast<Floating>(std::strtold(out, nullptr)) == value) return;
  }
}

}  // namespace data_detail

template <typename T,
          typename std::enable_if<data_detail::IsRecordedAsInteger<T>::value, int>::type = 0>
inline void Data(const char* category, const char* key, T value, int repo_id = TW_NO_REPO,
                 const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  if (TW_UNLIKELY(TW_ENABLED())) {
    using Wide = typename data_detail::Widened<T>::type;
    data_detail::RecordInteger(file, line, category, repo_id, key, static_cast<Wide>(value));
  }
}
inline void Data(const char* category, const char* key, bool value, int repo_id = TW_NO_REPO,
                 const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  if (TW_UNLIKELY(TW_ENABLED())) tw_data_intmax_fl(file, line, category, repo_id, key, value);
}
template <typename T, typename std::enable_if<std::is_floating_point<T>::value, int>::type = 0>
inline void Data(const char* category, const char* key, T value, int repo_id = TW_NO_REPO,
                 const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  if (TW_UNLIKELY(TW_ENABLED())) {
    char text[64];
    data_detail::FormatFloating(value, text, sizeof(text));
    tw_data_string_fl(file, line, category, repo_id, key, text);
  }
}
inline void Data(const char* category, const char* key, const char* value, int repo_id = TW_NO_REPO,
                 const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  if (TW_UNLIKELY(TW_ENABLED())) tw_data_string_fl(file, line, category, repo_id, key, value);
}
inline void Data(const char* category, const char* key, const std::string& value,
                 int repo_id = TW_NO_REPO, const char* file = __builtin_FILE(),
                 int line = __builtin_LINE()) {
  if (TW_UNLIKELY(TW_ENABLED())) {
    tw_data_string_fl(file, line, category, repo_id, key, value.c_str());
  }
}
#if __cplusplus >= 201703L
// The text is copied into a NUL-terminated string (only while tracing is enabled).
inline void Data(const char* category, const char* key, std::string_view value,
                 int repo_id = TW_NO_REPO, const char* file = __builtin_FILE(),
                 int line = __builtin_LINE()) {
  if (TW_UNLIKELY(TW_ENABLED())) {
    const std::string text(value);
    tw_data_string_fl(file, line, category, repo_id, key, text.c_str());
  }
}
#endif
inline void Json(const char* category, const char* key, const std::string& json,
                 int repo_id = TW_NO_REPO, const char* file = __builtin_FILE(),
                 int line = __builtin_LINE()) {
  if (TW_UNLIKELY(TW_ENABLED())) {
    tw_data_json_fl(file, line, category, repo_id, key, json.c_str());
  }
}

}  // namespace tracewire

#endif  // TRACEWIRE_TRACEWIRE_HPP_
