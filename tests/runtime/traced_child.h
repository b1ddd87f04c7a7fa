// Test helper: runs a body of traced code in a forked child process (the runtime is a
// per-process singleton), then lets the parent inspect the trace it wrote.
#ifndef TRACEWIRE_TESTS_RUNTIME_TRACED_CHILD_H_
#define TRACEWIRE_TESTS_RUNTIME_TRACED_CHILD_H_

#include <functional>
#include <map>
#include <string>

namespace tracewire::testing {

// A fresh empty directory under TEST_TMPDIR (or /tmp).
std::string MakeTempDir(const std::string& name);

// The environment of a traced child for RunInChild: every TRACEWIRE_* setting unset
// except `overrides`, and XDG_CONFIG_HOME pointing where no user settings file is.
std::map<std::string, std::string> ChildEnv(const std::map<std::string, std::string>& overrides);

// Forks; the child sets `env` (empty value = unset), runs `body` and calls exit() with its
// result, so the runtime's exit path runs. Returns the child's wait status.
int RunInChild(const std::map<std::string, std::string>& env, const std::function<int()>& body);

// Like RunInChild, but returns the child's pid at once. Fork before starting any thread
// in the test (a thread sanitizer does not support forking a multi-threaded process).
int StartInChild(const std::map<std::string, std::string>& env, const std::function<int()>& body);

// Waits for a child started by StartInChild; returns its wait status.
int WaitForChild(int pid);

// The only regular file in `dir` (fails the test if there is not exactly one).
std::string OnlyFileIn(const std::string& dir);

// Reads a whole file.
std::string ReadFile(const std::string& path);

// Writes a whole file (fails the test if it cannot be created).
void WriteFile(const std::string& path, const std::string& text);

// Redirects this process's stderr into `path` (call first in a RunInChild body).
void StderrTo(const std::string& path);

}  // namespace tracewire::testing

#endif  // TRACEWIRE_TESTS_RUNTIME_TRACED_CHILD_H_
