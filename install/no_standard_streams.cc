// Linked into libtracewire.a and libtracewire.so only, never into a program's own
// libstdc++: the runtime never uses the standard streams (std::cout, ...), but Abseil's
// headers include <iostream>, so every translation unit constructs them at start-up
// (the streams, the C locale and its facets: about ten page faults in every traced and
// untraced process). The library's libstdc++ is a private copy, so these definitions
// replace its stream initialization and nothing else.
#include <ios>

std::ios_base::Init::Init() {}
std::ios_base::Init::~Init() {}
