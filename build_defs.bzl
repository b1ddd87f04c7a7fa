"""Build settings shared by tracewire's own targets."""

# Compiler flags of every library and binary of tracewire. C++20 is carried by the targets
# themselves, so a workspace that builds them (through local_repository) needs no flags of
# its own; tracewire's .bazelrc sets the same standard for its tests.
TRACEWIRE_COPTS = ["-std=c++20"]

# Compiler flags of the runtime and of the format libraries it links. Abseil's
# flat_hash_map.h and status.h include <iostream> (through absl/strings/cord.h), and with
# g++ 12 every translation unit that includes <iostream> constructs a static
# std::ios_base::Init: a program linking the runtime would construct the standard streams
# and the classic locale at start-up (about 100,000 instructions and a dozen page faults)
# even if it never uses them. Defining <iostream>'s include guard keeps that header out of
# these translation units; none of them uses std::cout, std::cerr or std::cin (a use
# would not compile). <ostream> and <istream> are not affected.
RUNTIME_COPTS = TRACEWIRE_COPTS + ["-D_GLIBCXX_IOSTREAM"]
