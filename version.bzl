"""The tracewire version: the one place it is written.

`tracewire --version`, the SONAME of libtracewire.so (its major number), tracewire.pc and
the CMake package version file are all generated from it.
"""

TRACEWIRE_VERSION = "0.1.0"
