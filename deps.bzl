"""tracewire_dependencies(): every repository tracewire needs, declared offline.

tracewire's own WORKSPACE calls it, and so does the WORKSPACE of a project that uses
tracewire from Bazel:

    local_repository(name = "tracewire", path = "/path/to/tracewire")
    load("@tracewire//:deps.bzl", "tracewire_dependencies")
    tracewire_dependencies()

Nothing is downloaded. The rule sets Bazel 4 expects (rules_cc, rules_java,
remote_coverage_tools) are small local stand-ins shipped under third_party/, and the
C++ libraries come from Debian -dev packages through pkg-config. Abseil and zstd are
linked from their static libraries, so a traced program does not load them at start-up. A repository the calling workspace already declares is left alone.
Repositories are only set up when a target needs them: a project that builds
@tracewire//runtime needs libabsl-dev and libzstd-dev, not the test libraries.
"""

load("//third_party:pkg_config.bzl", "pkg_config_library")
load("//third_party/aarch64:sysroot.bzl", "AARCH64_SYSROOT", "AARCH64_TRIPLET")

def _local_stand_in_impl(ctx):
    # The stand-in's directory inside the tracewire repository, wherever that is.
    marker = ctx.path(ctx.attr.marker)
    for entry in marker.dirname.readdir():
        ctx.symlink(entry, entry.basename)

# A repository made of a directory of the tracewire repository (found through one of its
# files, so it works when tracewire is itself an external repository).
_local_stand_in = repository_rule(
    implementation = _local_stand_in_impl,
    attrs = {"marker": attr.label(mandatory = True, allow_single_file = True)},
    local = True,
)

# Abseil modules used by the runtime, the reader and the command.
_ABSL_MODULES = [
    "absl_status",
    "absl_statusor",
    "absl_strings",
    "absl_str_format",
    "absl_flat_hash_map",
    "absl_flat_hash_set",
    "absl_time",
    "absl_synchronization",
    "absl_flags",
    "absl_flags_parse",
    "absl_flags_usage",
    "absl_random_random",
]

def _maybe(rule, name, **kwargs):
    if not native.existing_rule(name):
        rule(name = name, **kwargs)

def _aarch64_libraries():
    """The arm64 twins of the libraries, from the sysroot of install_deps_aarch64.sh.

    Everything that is linked is linked statically but the benchmark library (Debian ships
    it shared only), so an arm64 test needs no arm64 library but the C library's under
    qemu-aarch64.
    """
    shared = dict(sysroot = AARCH64_SYSROOT, triplet = AARCH64_TRIPLET)
    _maybe(pkg_config_library, name = "aarch64_absl", modules = _ABSL_MODULES, static = True, **shared)
    _maybe(pkg_config_library, name = "aarch64_zstd", modules = ["libzstd"], static = True, **shared)
    _maybe(pkg_config_library, name = "aarch64_crypto", modules = ["libcrypto"], static = True, **shared)
    _maybe(
        pkg_config_library,
        name = "aarch64_sqlite3",
        modules = ["sqlite3"],
        static = True,
        unused_private_libs = ["z"],
        **shared
    )
    _maybe(pkg_config_library, name = "aarch64_protobuf", modules = ["protobuf-lite"], static = True, **shared)
    _maybe(pkg_config_library, name = "aarch64_curl", modules = ["libcurl"], headers_only = True, **shared)
    _maybe(pkg_config_library, name = "aarch64_dw", modules = ["libdw"], headers_only = True, **shared)
    _maybe(pkg_config_library, name = "aarch64_gtest", modules = ["gtest", "gmock"], static = True, **shared)
    _maybe(pkg_config_library, name = "aarch64_gtest_main", modules = ["gtest_main"], static = True, **shared)
    # Debian ships libbenchmark as a shared library only: arm64 benchmarks are built, not run.
    _maybe(pkg_config_library, name = "aarch64_benchmark", modules = ["benchmark"], **shared)

def tracewire_dependencies():
    """Declares the repositories tracewire's targets need (see the file's comment)."""
    for name in ["rules_cc", "rules_java", "remote_coverage_tools"]:
        _maybe(
            _local_stand_in,
            name = name,
            marker = Label("//third_party/%s:WORKSPACE" % name),
        )

    # Linked into the runtime and the command: static, so nothing is loaded at start-up.
    _maybe(pkg_config_library, name = "system_absl", modules = _ABSL_MODULES, static = True)
    _maybe(pkg_config_library, name = "system_zstd", modules = ["libzstd"], static = True)

    # The command only (SHA-256 trace and span ids of the OTLP export).
    _maybe(pkg_config_library, name = "system_crypto", modules = ["libcrypto"], static = True)

    # The command only (`tracewire query`'s database): static, loaded by nothing else.
    # Debian's sqlite3.pc names zlib privately, but libsqlite3.a does not use it.
    _maybe(
        pkg_config_library,
        name = "system_sqlite3",
        modules = ["sqlite3"],
        static = True,
        unused_private_libs = ["z"],
    )

    # The command only (the Perfetto export's protobuf messages): protobuf-lite, static.
    _maybe(pkg_config_library, name = "system_protobuf", modules = ["protobuf-lite"], static = True)

    # The command only (the Perfetto export's compressed_packets): zlib, static.
    _maybe(pkg_config_library, name = "system_zlib", modules = ["zlib"], static = True)

    # The command only (the Perfetto export's compressed_packets, written in zlib's format
    # by libdeflate, several times faster than zlib at the same level): static.
    _maybe(pkg_config_library, name = "system_deflate", modules = ["libdeflate"], static = True)

    # The command only (the reader's symbolizer, OTLP/HTTP export): not part of the runtime.
    # Headers only: the command loads libcurl and libdw with dlopen when it first uses them
    # (tools/otlp/curl_library.cc, reader/dw_library.cc), so they cost nothing at start-up.
    _maybe(pkg_config_library, name = "system_curl", modules = ["libcurl"], headers_only = True)
    _maybe(pkg_config_library, name = "system_dw", modules = ["libdw"], headers_only = True)

    # Tests and benchmarks only.
    _maybe(pkg_config_library, name = "system_gtest", modules = ["gtest", "gmock"])
    _maybe(pkg_config_library, name = "system_gtest_main", modules = ["gtest_main"])
    _maybe(pkg_config_library, name = "system_benchmark", modules = ["benchmark"])

    # The same libraries for arm64 (bazel build --config=aarch64): set up only by such a build.
    _aarch64_libraries()
