/*
 * tracewire.h — the C API of the tracewire runtime, modelled on git's trace2.h.
 *
 * Every call is a no-op costing one predictable branch while tracing is disabled. When
 * enabled, each call appends one binary event to the calling thread's batch (no lock, no
 * syscall, no allocation on the hot path). Use the macros (tw_region_enter, ...): they
 * fill in __FILE__/__LINE__ and test the enabled flag inline. The *_fl functions take the
 * file and line explicitly.
 *
 * Strings passed in are copied or interned before the call returns; the caller keeps
 * ownership. A `repo_id` argument is TW_NO_REPO for "no repository" (git's NULL repo), or
 * a repository id, 0 included (git prints a repo pointer whose id is still 0 as "repo":0).
 *
 * The header stands alone and compiles warning-free (-Wall -Wextra -pedantic) as C89, C99,
 * C11, C17 and as C++11 and later. The printf-style macros (tw_cmd_error, tw_printf,
 * tw_region_*_printf) are variadic macros, which C89 compilers such as GCC and Clang accept
 * as an extension; the *_fl functions are plain C89.
 */
#ifndef TRACEWIRE_TRACEWIRE_H_
#define TRACEWIRE_TRACEWIRE_H_

#include <stdarg.h>
#include <stddef.h> /* NULL */
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TW_NO_REPO (-1)

#if defined(__GNUC__)
#define TW_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define TW_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define TW_IS_LITERAL(x) __builtin_constant_p(x)
#else
#define TW_UNLIKELY(x) (x)
#define TW_PRINTF(f, a)
#define TW_IS_LITERAL(x) 0
#endif

/* Variadic macros are C99; C89 compilers that have them (GCC, Clang) warn about their
 * definitions under -pedantic. That one warning is off for this header's own definitions,
 * so that a C89 program's -Werror build stays clean. */
#if defined(__GNUC__) && !defined(__cplusplus) && \
    (!defined(__STDC_VERSION__) || __STDC_VERSION__ < 199901L)
#define TW_C89_VARIADIC_MACROS_ 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wvariadic-macros"
#endif

/* Non-zero while tracing is enabled. Read by the macros; never write it. */
extern volatile int tw_enabled_flag;

/* The macros' test of tw_enabled_flag: a relaxed atomic load (one plain load), so that
 * tracing being switched on or off while other threads record is not a data race. */
#if defined(__GNUC__)
#define TW_ENABLED() __atomic_load_n(&tw_enabled_flag, __ATOMIC_RELAXED)
#else
#define TW_ENABLED() (tw_enabled_flag)
#endif

/* ---- Setup ----------------------------------------------------------------------- */

/* Records the process start time (the origin of t_abs). Call first thing in main(). */
void tw_initialize_clock(void);

/* Reads TRACEWIRE and the TRACEWIRE_* settings (docs/api.md) from the environment, the
 * user's settings file and the system settings file (in that precedence), opens the
 * destination and, if one is configured, enables tracing and emits the `version` event. */
void tw_initialize_fl(const char *file, int line);
#define tw_initialize() tw_initialize_fl(__FILE__, __LINE__)

/* Settings for tw_initialize_with. Start from TW_SETTINGS_INIT (every field zero/NULL,
 * struct_size set); zero/NULL fields take the documented defaults. New fields are only
 * ever added after struct_size: a program compiled against an older header and a library
 * built from a newer one (or the other way round) agree on every field both know. */
struct tw_settings {
  const char *target;        /* same values as TRACEWIRE (required) */
  const char *app_version;   /* the program's version (`version` event's exe); NULL:
                                $TRACEWIRE_APP_VERSION, else "0" */
  uint64_t generation_ms;    /* cut a generation after this long; default 1000 */
  uint64_t generation_bytes; /* ... or once this many bytes are buffered; default 8 MiB */
  int compress;              /* 1 = zstd-compress each generation */
  int no_redact;             /* 1 = keep credentials in URLs */
  const char *stack_events;  /* comma list of event names that capture a stack */
  int max_files;             /* directory targets: file cap (0 = none) */
  const char *config_params; /* patterns of settings tw_cmd_list_config reports */
  const char *env_vars;      /* environment variables tw_cmd_list_env_vars reports */
  int no_ancestry;           /* 1 = no automatic cmd_ancestry at tw_cmd_start */
  int write_timeout_ms;      /* bound on writing one generation (and on waiting for a
                                FIFO's reader or a socket's listener); default 1000 */
  uint64_t flight_recorder_bytes; /* non-zero: flight-recorder mode, keeping the most recent
                                     generations in a ring of this many bytes; the target
                                     receives only dumps (tw_flight_recorder_dump) */
  int flight_signal;              /* flight recorder: SIGUSR1 or SIGUSR2 dumps (0 = none) */
  int flight_on_error;            /* flight recorder: 1 = dump on the first error event */
  const char *categories;         /* category filter, as TRACEWIRE_CATEGORIES (NULL: all) */
  unsigned cpu_profile_hz;        /* non-zero: sample each thread's stack this many times per
                                     second of its CPU time (at most 10000; SIGPROF) */
  size_t struct_size;             /* sizeof(struct tw_settings) in the header the program was
                                     compiled with (TW_SETTINGS_INIT sets it); the library
                                     reads the fields it covers. 0: this header's size */
};

/* An initializer for struct tw_settings: every field zero/NULL, struct_size set.
 *   struct tw_settings settings = TW_SETTINGS_INIT; */
#define TW_SETTINGS_INIT \
  {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, sizeof(struct tw_settings)}

/* Programmatic enabling: like tw_initialize, but from `settings` instead of the
 * environment. Returns 0 on success, -1 (and stays disabled) if the target is invalid or
 * struct_size is smaller than any header that had it. tw_initialize_with_sized_fl reads
 * settings->struct_size and the fields it covers; a library that predates it (no such
 * symbol: the weak reference is null) gets the call through tw_initialize_with_fl, which
 * reads the fields headers had before struct_size (up to flight_on_error; programs
 * compiled then call it directly). */
int tw_initialize_with_fl(const char *file, int line, const struct tw_settings *settings);
#if defined(__GNUC__) && !defined(TRACEWIRE_RUNTIME_BUILD)
int tw_initialize_with_sized_fl(const char *file, int line, const struct tw_settings *settings)
    __attribute__((weak));
#define tw_initialize_with(settings)                                 \
  (tw_initialize_with_sized_fl                                       \
       ? tw_initialize_with_sized_fl(__FILE__, __LINE__, (settings)) \
       : tw_initialize_with_fl(__FILE__, __LINE__, (settings)))
#else
int tw_initialize_with_sized_fl(const char *file, int line, const struct tw_settings *settings);
#define tw_initialize_with(settings) tw_initialize_with_sized_fl(__FILE__, __LINE__, (settings))
#endif

/* Non-zero if tracing is enabled. */
int tw_is_enabled(void);

/* Flushes everything recorded so far into a complete generation and writes it. */
void tw_flush(void);

/* Flight-recorder mode: writes the generations kept in memory, plus everything recorded
 * up to this call, to the target as one self-contained trace (a directory target: a new
 * file `SID.flight-N`). Safe from any thread while others record; they wait only for the
 * generation switch, not for the write. Returns 0, or -1 if not in flight-recorder mode or
 * the write failed. */
int tw_flight_recorder_dump(void);

/* ---- Command lifecycle ----------------------------------------------------------- */

/* Records `start`; on Linux it then records `cmd_ancestry` with the parent process names
 * read from /proc (nearest first, as git does) unless TRACEWIRE_ANCESTRY=0. */
void tw_cmd_start_fl(const char *file, int line, const char **argv);
#define tw_cmd_start(argv)                                                         \
  do {                                                                             \
    if (TW_UNLIKELY(TW_ENABLED())) tw_cmd_start_fl(__FILE__, __LINE__, (argv)); \
  } while (0)

/* Records `exit` and remembers the code for `atexit`. Returns `code`. */
int tw_cmd_exit_fl(const char *file, int line, int code);
#define tw_cmd_exit(code) tw_cmd_exit_fl(__FILE__, __LINE__, (code))

/* printf-style error; the format string is kept (EVENT "fmt"). */
void tw_cmd_error_va_fl(const char *file, int line, const char *fmt, va_list ap);
void tw_cmd_error_fl(const char *file, int line, const char *fmt, ...) TW_PRINTF(3, 4);
#define tw_cmd_error(...)                                                               \
  do {                                                                                  \
    if (TW_UNLIKELY(TW_ENABLED())) tw_cmd_error_fl(__FILE__, __LINE__, __VA_ARGS__); \
  } while (0)

void tw_cmd_path_fl(const char *file, int line, const char *pathname);
#define tw_cmd_path(p)                                                         \
  do {                                                                         \
    if (TW_UNLIKELY(TW_ENABLED())) tw_cmd_path_fl(__FILE__, __LINE__, (p)); \
  } while (0)

/* NULL-terminated list of parent process names, nearest first (in addition to, or with
 * TRACEWIRE_ANCESTRY=0 instead of, the automatic one). */
void tw_cmd_ancestry_fl(const char *file, int line, const char **parent_names);
#define tw_cmd_ancestry(v)                                                         \
  do {                                                                             \
    if (TW_UNLIKELY(TW_ENABLED())) tw_cmd_ancestry_fl(__FILE__, __LINE__, (v)); \
  } while (0)

/* Sets the command name; hierarchy = $TRACEWIRE_PARENT_NAME/name, exported to children. */
void tw_cmd_name_fl(const char *file, int line, const char *name);
#define tw_cmd_name(n)                                                         \
  do {                                                                         \
    if (TW_UNLIKELY(TW_ENABLED())) tw_cmd_name_fl(__FILE__, __LINE__, (n)); \
  } while (0)

void tw_cmd_mode_fl(const char *file, int line, const char *mode);
#define tw_cmd_mode(m)                                                         \
  do {                                                                         \
    if (TW_UNLIKELY(TW_ENABLED())) tw_cmd_mode_fl(__FILE__, __LINE__, (m)); \
  } while (0)

void tw_cmd_alias_fl(const char *file, int line, const char *alias, const char **argv);
#define tw_cmd_alias(a, v)                                                           \
  do {                                                                               \
    if (TW_UNLIKELY(TW_ENABLED())) tw_cmd_alias_fl(__FILE__, __LINE__, (a), (v)); \
  } while (0)

/* A setting worth recording; `value` may be NULL; `scope` e.g. "global", "command". */
void tw_def_param_fl(const char *file, int line, const char *param, const char *value,
                     const char *scope);
#define tw_def_param(p, v, s)                                                             \
  do {                                                                                    \
    if (TW_UNLIKELY(TW_ENABLED())) tw_def_param_fl(__FILE__, __LINE__, (p), (v), (s)); \
  } while (0)

/* ---- Settings worth reporting (git's trace2_cmd_list_config and friends) ----------- */

/* Tells the runtime one of the program's own settings (its configuration: a key and a
 * value, NULL for a valueless key) and where it came from (`scope`: e.g. "system",
 * "global", "local", "command"; NULL = "unknown"). The runtime keeps every (key, scope)
 * pair, the last value winning. Once tw_cmd_list_config has run, a setting whose key
 * matches TRACEWIRE_CONFIG_PARAMS is recorded as `def_param` right away (an update of what
 * was listed, as git's trace2_cmd_set_config). */
void tw_cmd_set_config_fl(const char *file, int line, const char *key, const char *value,
                          const char *scope);
#define tw_cmd_set_config_scope(k, v, s)                                                       \
  do {                                                                                         \
    if (TW_UNLIKELY(TW_ENABLED())) tw_cmd_set_config_fl(__FILE__, __LINE__, (k), (v), (s)); \
  } while (0)
/* git's trace2_cmd_set_config(key, value): scope "unknown". */
#define tw_cmd_set_config(k, v) tw_cmd_set_config_scope((k), (v), NULL)

/* Records one `def_param` (with its scope) for every setting told by tw_cmd_set_config*
 * whose key matches a TRACEWIRE_CONFIG_PARAMS pattern, in the order they were first set
 * (git's trace2_cmd_list_config). */
void tw_cmd_list_config_fl(const char *file, int line);
#define tw_cmd_list_config()                                                     \
  do {                                                                           \
    if (TW_UNLIKELY(TW_ENABLED())) tw_cmd_list_config_fl(__FILE__, __LINE__); \
  } while (0)

/* Records one `def_param` (scope "command") for every variable named in TRACEWIRE_ENV_VARS
 * that is set and not empty, in list order (git's trace2_cmd_list_env_vars). */
void tw_cmd_list_env_vars_fl(const char *file, int line);
#define tw_cmd_list_env_vars()                                                     \
  do {                                                                             \
    if (TW_UNLIKELY(TW_ENABLED())) tw_cmd_list_env_vars_fl(__FILE__, __LINE__); \
  } while (0)

/* Registers a repository (worktree path); returns its id (1, 2, ...), or 0 if disabled. */
int tw_def_repo_fl(const char *file, int line, const char *worktree);
#define tw_def_repo(w) tw_def_repo_fl(__FILE__, __LINE__, (w))

/* ---- Child processes and exec ------------------------------------------------------ */

/* Describes a child process. Fill argv, class, hook name, dir, use_shell, git_cmd before
 * tw_child_start; it assigns child_id and start_ticks; set pid once known. */
struct tw_child {
  const char **argv;       /* NULL-terminated; without the leading "git" if git_cmd */
  const char *child_class; /* e.g. "hook", "editor"; NULL prints "?" */
  const char *hook_name;   /* for class "hook" */
  const char *dir;         /* working directory, NULL if unchanged */
  int use_shell;
  int git_cmd;          /* argv is a git sub-command: decoders prepend "git" */
  int child_id;         /* assigned by tw_child_start */
  int pid;              /* set by the caller after spawning; -1 if it failed */
  uint64_t start_ticks; /* assigned by tw_child_start */
};

void tw_child_start_fl(const char *file, int line, struct tw_child *child);
void tw_child_exit_fl(const char *file, int line, struct tw_child *child, int exit_code);
/* `ready` is "ready", "timeout" or "error". */
void tw_child_ready_fl(const char *file, int line, struct tw_child *child, const char *ready);
#define tw_child_start(c)                                                         \
  do {                                                                            \
    if (TW_UNLIKELY(TW_ENABLED())) tw_child_start_fl(__FILE__, __LINE__, (c)); \
  } while (0)
#define tw_child_exit(c, code)                                                           \
  do {                                                                                   \
    if (TW_UNLIKELY(TW_ENABLED())) tw_child_exit_fl(__FILE__, __LINE__, (c), (code)); \
  } while (0)
#define tw_child_ready(c, r)                                                           \
  do {                                                                                 \
    if (TW_UNLIKELY(TW_ENABLED())) tw_child_ready_fl(__FILE__, __LINE__, (c), (r)); \
  } while (0)

/* Records an exec about to happen; returns its id (-1 if disabled). */
int tw_exec_fl(const char *file, int line, const char *exe, const char **argv);
#define tw_exec(exe, argv) tw_exec_fl(__FILE__, __LINE__, (exe), (argv))
void tw_exec_result_fl(const char *file, int line, int exec_id, int code);
#define tw_exec_result(id, code)                                                           \
  do {                                                                                     \
    if (TW_UNLIKELY(TW_ENABLED())) tw_exec_result_fl(__FILE__, __LINE__, (id), (code)); \
  } while (0)

/* ---- Threads ------------------------------------------------------------------------ */

/* Names the calling thread "thNN:<base>" (truncated to 24 bytes) and records thread_start.
 * On the main thread it records a region instead, as git does. */
void tw_thread_start_fl(const char *file, int line, const char *thread_base_name);
#define tw_thread_start(n)                                                         \
  do {                                                                             \
    if (TW_UNLIKELY(TW_ENABLED())) tw_thread_start_fl(__FILE__, __LINE__, (n)); \
  } while (0)
/* Records the thread's th_timer/th_counter events and thread_exit; flushes its batch. */
void tw_thread_exit_fl(const char *file, int line);
#define tw_thread_exit()                                                     \
  do {                                                                       \
    if (TW_UNLIKELY(TW_ENABLED())) tw_thread_exit_fl(__FILE__, __LINE__); \
  } while (0)

/* ---- Regions ------------------------------------------------------------------------ */

/* Opaque per-call-site cache used by the macros when category and label are literals. */
struct tw_callsite {
  uint64_t word;
};

/* The word of a literal call site whose category TRACEWIRE_CATEGORIES filters out: the
 * macros test it inline, so a filtered call site costs one branch. */
#define TW_CALLSITE_FILTERED (~(uint64_t)0)
#if defined(__GNUC__)
#define TW_SITE_RECORDS_(site) \
  (__atomic_load_n(&(site)->word, __ATOMIC_RELAXED) != TW_CALLSITE_FILTERED)
#else
#define TW_SITE_RECORDS_(site) ((site)->word != TW_CALLSITE_FILTERED)
#endif

void tw_region_enter_fl(const char *file, int line, const char *category, const char *label,
                        int repo_id);
void tw_region_leave_fl(const char *file, int line, const char *category, const char *label,
                        int repo_id);
void tw_region_enter_printf_va_fl(const char *file, int line, const char *category,
                                  const char *label, int repo_id, const char *fmt, va_list ap);
void tw_region_leave_printf_va_fl(const char *file, int line, const char *category,
                                  const char *label, int repo_id, const char *fmt, va_list ap);
void tw_region_enter_printf_fl(const char *file, int line, const char *category, const char *label,
                               int repo_id, const char *fmt, ...) TW_PRINTF(6, 7);
void tw_region_leave_printf_fl(const char *file, int line, const char *category, const char *label,
                               int repo_id, const char *fmt, ...) TW_PRINTF(6, 7);
/* Literal call sites: `site` caches the call site's identity; file, category and label
 * must be string literals (never freed or changed). */
void tw_region_enter_site(struct tw_callsite *site, const char *file, int line,
                          const char *category, const char *label, int repo_id);
void tw_region_leave_site(struct tw_callsite *site, const char *file, int line,
                          const char *category, const char *label, int repo_id);

#define TW_LITERAL_SITE_(cat, label) (TW_IS_LITERAL(cat) && TW_IS_LITERAL(label))
#define tw_region_enter(category, label, repo)                                            \
  do {                                                                                    \
    if (TW_UNLIKELY(TW_ENABLED())) {                                                   \
      if (TW_LITERAL_SITE_(category, label)) {                                            \
        static struct tw_callsite tw_site_;                                               \
        if (TW_SITE_RECORDS_(&tw_site_))                                                  \
          tw_region_enter_site(&tw_site_, __FILE__, __LINE__, (category), (label), (repo)); \
      } else {                                                                            \
        tw_region_enter_fl(__FILE__, __LINE__, (category), (label), (repo));              \
      }                                                                                   \
    }                                                                                     \
  } while (0)
#define tw_region_leave(category, label, repo)                                            \
  do {                                                                                    \
    if (TW_UNLIKELY(TW_ENABLED())) {                                                   \
      if (TW_LITERAL_SITE_(category, label)) {                                            \
        static struct tw_callsite tw_site_;                                               \
        if (TW_SITE_RECORDS_(&tw_site_))                                                  \
          tw_region_leave_site(&tw_site_, __FILE__, __LINE__, (category), (label), (repo)); \
      } else {                                                                            \
        tw_region_leave_fl(__FILE__, __LINE__, (category), (label), (repo));              \
      }                                                                                   \
    }                                                                                     \
  } while (0)
#define tw_region_enter_printf(category, label, repo, ...)                                     \
  do {                                                                                         \
    if (TW_UNLIKELY(TW_ENABLED()))                                                          \
      tw_region_enter_printf_fl(__FILE__, __LINE__, (category), (label), (repo), __VA_ARGS__); \
  } while (0)
#define tw_region_leave_printf(category, label, repo, ...)                                     \
  do {                                                                                         \
    if (TW_UNLIKELY(TW_ENABLED()))                                                          \
      tw_region_leave_printf_fl(__FILE__, __LINE__, (category), (label), (repo), __VA_ARGS__); \
  } while (0)

/* ---- Data and printf ---------------------------------------------------------------- */

void tw_data_string_fl(const char *file, int line, const char *category, int repo_id,
                       const char *key, const char *value);
void tw_data_intmax_fl(const char *file, int line, const char *category, int repo_id,
                       const char *key, intmax_t value);
/* `json` is a complete JSON value; its bytes are kept as given. */
void tw_data_json_fl(const char *file, int line, const char *category, int repo_id, const char *key,
                     const char *json);
void tw_data_intmax_site(struct tw_callsite *site, const char *file, int line, const char *category,
                         int repo_id, const char *key, intmax_t value);
#define tw_data_string(cat, repo, key, value)                               \
  do {                                                                      \
    if (TW_UNLIKELY(TW_ENABLED()))                                       \
      tw_data_string_fl(__FILE__, __LINE__, (cat), (repo), (key), (value)); \
  } while (0)
#define tw_data_intmax(cat, repo, key, value)                                              \
  do {                                                                                     \
    if (TW_UNLIKELY(TW_ENABLED())) {                                                    \
      if (TW_LITERAL_SITE_(cat, key)) {                                                    \
        static struct tw_callsite tw_site_;                                                \
        if (TW_SITE_RECORDS_(&tw_site_))                                                   \
          tw_data_intmax_site(&tw_site_, __FILE__, __LINE__, (cat), (repo), (key), (value)); \
      } else {                                                                             \
        tw_data_intmax_fl(__FILE__, __LINE__, (cat), (repo), (key), (value));              \
      }                                                                                    \
    }                                                                                      \
  } while (0)
#define tw_data_json(cat, repo, key, json)                               \
  do {                                                                   \
    if (TW_UNLIKELY(TW_ENABLED()))                                    \
      tw_data_json_fl(__FILE__, __LINE__, (cat), (repo), (key), (json)); \
  } while (0)

void tw_printf_va_fl(const char *file, int line, const char *fmt, va_list ap);
void tw_printf_fl(const char *file, int line, const char *fmt, ...) TW_PRINTF(3, 4);
#define tw_printf(...)                                                               \
  do {                                                                               \
    if (TW_UNLIKELY(TW_ENABLED())) tw_printf_fl(__FILE__, __LINE__, __VA_ARGS__); \
  } while (0)

/* ---- Stopwatch timers and counters -------------------------------------------------- */

/* Defines a timer (at most 64); returns its id, or -1 if the table is full. With
 * per_thread, each thread that used it reports a th_timer at thread exit. The process-wide
 * `timer` event is written at exit if the timer ran at least once. */
int tw_timer_define(const char *category, const char *name, int per_thread);
void tw_timer_start(int timer_id);
void tw_timer_stop(int timer_id);

/* Defines a counter (at most 64); returns its id, or -1. Same reporting as timers. */
int tw_counter_define(const char *category, const char *name, int per_thread);
void tw_counter_add(int counter_id, uint64_t value);

/* ---- Tasks: work that crosses threads ---------------------------------------------- */

/* Begins a task (one request or job, handed from thread to thread) named `name` in
 * `category`, child of task `parent` (0: none), and returns its ID: non-zero and unique in
 * the process. Returns 0 when tracing is off or `category` is filtered out; the other task
 * calls accept 0 and do nothing. Any thread may end it. */
uint64_t tw_task_begin_fl(const char *file, int line, uint64_t parent, const char *category,
                          const char *name);
#define tw_task_begin(parent, category, name)                                          \
  (TW_UNLIKELY(TW_ENABLED()) ? tw_task_begin_fl(__FILE__, __LINE__, (parent), (category), \
                                                (name))                               \
                             : (uint64_t)0)
/* Ends task `task` (0: nothing). Threads that still work for it keep doing so until they
 * release it. */
void tw_task_end(uint64_t task);
/* From now on the calling thread works for `task` (replacing the task it worked for): the
 * regions, data and errors it records belong to the task, until tw_task_release or the
 * next tw_task_adopt. `task` 0 releases. */
void tw_task_adopt(uint64_t task);
/* The calling thread stops working for the task it adopted (nothing if none). */
void tw_task_release(void);

/* ---- Gauges: values over time ------------------------------------------------------- */

/* Defines a gauge (at most 256): a value sampled over time, such as a queue depth or the
 * memory in use, in `unit` (e.g. "items", "bytes"; NULL: none). Returns its id, or -1 if
 * the table is full. May be called before tracing starts. */
int tw_gauge_define(const char *category, const char *name, const char *unit);
/* Records one timestamped sample of gauge `gauge_id` (nothing for -1, when tracing is off,
 * or when its category is filtered out). */
void tw_gauge_set(int gauge_id, int64_t value);

/* ---- Categories --------------------------------------------------------------------- */

/* Non-zero if tracing is enabled and events of `category` are recorded (TRACEWIRE_CATEGORIES
 * does not filter it out): guards arguments that are costly to compute. */
int tw_category_enabled(const char *category);

#ifdef __cplusplus
} /* extern "C" */
#endif

#ifdef TW_C89_VARIADIC_MACROS_
#pragma GCC diagnostic pop
#undef TW_C89_VARIADIC_MACROS_
#endif

#endif /* TRACEWIRE_TRACEWIRE_H_ */
