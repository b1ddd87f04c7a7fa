# CMake toolchain file for Debian's arm64 cross compiler (g++-aarch64-linux-gnu):
#
#   cmake -S examples/threadpool -B build \
#     -DCMAKE_TOOLCHAIN_FILE=install/aarch64-linux-gnu.cmake \
#     -DCMAKE_PREFIX_PATH=PREFIX   # where install/install.sh --arch=aarch64 installed tracewire
#
# The arm64 C library and libstdc++ come from /usr/aarch64-linux-gnu (libc6-dev-arm64-cross);
# packages (tracewire's CMake package) are also looked up outside it, in CMAKE_PREFIX_PATH.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
