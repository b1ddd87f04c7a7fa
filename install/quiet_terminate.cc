// Linked into libtracewire.a only, never into a program's own libstdc++: the terminate
// handler of the library's private libstdc++ (reached only if the runtime's own code let
// an exception escape). libstdc++'s verbose handler demangles the exception's type name;
// linking it brings the demangler and its pointer tables, which the dynamic loader
// relocates at every process start, traced or not. This one prints a fixed line and
// aborts, as the verbose one does after its message.
#include <cxxabi.h>
#include <unistd.h>

#include <cstdlib>

namespace __gnu_cxx {

void __verbose_terminate_handler() {
  static constexpr char kMessage[] =
      "terminate called in the tracewire runtime (uncaught exception)\n";
  (void)!write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
  abort();
}

}  // namespace __gnu_cxx
