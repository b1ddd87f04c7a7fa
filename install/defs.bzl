"""tracewire_library: the self-contained libtracewire.a and libtracewire.so.

Both are made from one relocatable object that holds the runtime's position-independent
objects and everything they use from the static libraries they link (Abseil and zstd
from their .a files, and the parts of libstdc++ and libgcc they need). In that
object every symbol but the API's `tw_*` is made local, so the library loads no other
shared library than the C library's, and its copies of Abseil or libstdc++ never meet a
program's own. A C program links it with `cc`.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

# Flags of the C library's own libraries, passed to the shared library's link and
# written into tracewire.pc's Libs.private.
_SYSTEM_FLAGS = ["-pthread", "-ldl", "-lrt", "-lm"]

def _archives_and_objects(deps):
    objects = []
    archives = []
    for dep in deps:
        for linker_input in dep[CcInfo].linking_context.linker_inputs.to_list():
            for library in linker_input.libraries:
                objects.extend(library.pic_objects or library.objects or [])
            for flag in linker_input.user_link_flags:
                # -L: where a cross build's libraries are (the sysroot of --config=aarch64).
                is_archive = flag.startswith("-l:") and flag.endswith(".a")
                if (is_archive or flag.startswith("-L")) and flag not in archives:
                    archives.append(flag)
    return objects, archives

def _tracewire_library_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    objects, archives = _archives_and_objects(ctx.attr.deps)
    if not objects:
        fail("no object files found in %s" % ctx.attr.deps)
    static_only, _ = _archives_and_objects(ctx.attr.static_only_deps)

    merged = ctx.actions.declare_file(ctx.label.name + ".o")
    static_library = ctx.outputs.static_library
    shared_library = ctx.outputs.shared_library

    args = ctx.actions.args()
    args.add(cc_toolchain.compiler_executable)
    args.add(cc_toolchain.objcopy_executable)
    args.add(cc_toolchain.ar_executable)
    args.add(merged)
    args.add(static_library)
    args.add(shared_library)
    args.add(ctx.attr.soname)
    args.add(ctx.file.version_script)
    args.add_joined(_SYSTEM_FLAGS, join_with = " ")
    args.add_all(archives)
    args.add("--")
    args.add_all(objects)
    args.add("--")
    args.add_all(static_only)
    ctx.actions.run(
        executable = ctx.executable._merge,
        arguments = [args],
        inputs = depset(
            objects + static_only + [ctx.file.version_script],
            transitive = [cc_toolchain.all_files],
        ),
        outputs = [merged, static_library, shared_library],
        mnemonic = "TracewireLibrary",
        progress_message = "Linking the self-contained libtracewire.a and %s" % shared_library.basename,
        use_default_shell_env = True,
    )
    return [DefaultInfo(files = depset([static_library, shared_library]))]

tracewire_library = rule(
    implementation = _tracewire_library_impl,
    attrs = {
        "deps": attr.label_list(providers = [CcInfo], mandatory = True),
        # Objects linked into the static library only.
        "static_only_deps": attr.label_list(providers = [CcInfo]),
        "soname": attr.string(mandatory = True),
        "static_library": attr.output(mandatory = True),
        "shared_library": attr.output(mandatory = True),
        "version_script": attr.label(allow_single_file = True, mandatory = True),
        "_merge": attr.label(
            default = ":merge_library.sh",
            executable = True,
            cfg = "exec",
            allow_single_file = True,
        ),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    fragments = ["cpp"],
)

def _expand_version_impl(ctx):
    ctx.actions.expand_template(
        template = ctx.file.template,
        output = ctx.outputs.out,
        substitutions = {
            "@VERSION@": ctx.attr.version,
            "@SOVERSION@": ctx.attr.version.split(".")[0],
            "@PRIVATE_LIBS@": " ".join(_SYSTEM_FLAGS),
        },
    )

# Fills @VERSION@, @SOVERSION@ and @PRIVATE_LIBS@ into a template (.pc, CMake files).
expand_version = rule(
    implementation = _expand_version_impl,
    attrs = {
        "template": attr.label(allow_single_file = True, mandatory = True),
        "out": attr.output(mandatory = True),
        "version": attr.string(mandatory = True),
    },
)
