// Links every_call.c and every_call.cc against the runtime and runs both, traced into a
// directory: every declaration of the public headers has a definition, and the calls run.
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int every_call(int argc, const char** argv);
int EveryCall(int argc, const char** argv);

int main(int argc, const char** argv) {
  const char* tmp = getenv("TEST_TMPDIR");
  const std::string dir = tmp != nullptr ? tmp : "/tmp";
  setenv("TRACEWIRE", dir.c_str(), 1);
  if (every_call(argc, argv) != 0) return 1;
  if (EveryCall(argc, argv) != 0) return 1;
  puts("every call ran");
  return 0;
}
