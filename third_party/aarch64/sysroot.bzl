"""Where install/install_deps_aarch64.sh puts the arm64 libraries (extracted .deb packages)."""

AARCH64_SYSROOT = "/opt/tracewire/aarch64-sysroot"

# The sysroot's pkg-config search path and the architecture's library directory.
AARCH64_TRIPLET = "aarch64-linux-gnu"
