"""Build settings shared by tracewire's own targets."""

# Compiler flags of every library and binary of tracewire. C++20 is carried by the targets
# themselves, so a workspace that builds them (through local_repository) needs no flags of
# its own; tracewire's .bazelrc sets the same standard for its tests.
TRACEWIRE_COPTS = ["-std=c++20"]
