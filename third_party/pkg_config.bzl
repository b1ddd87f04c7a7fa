"""A repository rule that wraps an installed pkg-config module as a cc_library.

Link and compile flags are read from `pkg-config` when the repository is set up,
so the Debian packages' own metadata decides them; nothing is downloaded.

With `static = True` the modules' own libraries are linked from their `.a` files
(`-l:libNAME.a`, in the order `pkg-config --static --libs` gives), so a program
linking the target does not load them as shared libraries at start-up. What the
modules need privately from the C library and the toolchain (`-pthread`, `-ldl`,
`-lrt`, `-latomic`, ...) stays as pkg-config states it.

With `headers_only = True` only the compile flags are used: the program links nothing
of the modules and loads their shared libraries itself (dlopen, in the C library since
glibc 2.34) when it first needs them.

With `sysroot` the modules are those of another architecture's packages extracted under
that directory (`pkg-config` searches only its `.pc` files, and prefixes their paths with
it): the libraries a cross toolchain links.
"""

# Libraries of the C library and the compiler that are never linked from a `.a` here.
_SYSTEM_LIBRARIES = [
    "atomic",
    "c",
    "dl",
    "gcc",
    "gcc_s",
    "m",
    "pthread",
    "resolv",
    "rt",
    "stdc++",
    "util",
]

def _pkg_config_environment(ctx):
    sysroot = ctx.attr.sysroot
    if not sysroot:
        return {}
    libdir = "%s/usr/lib/%s" % (sysroot, ctx.attr.triplet)
    return {
        "PKG_CONFIG_LIBDIR": "%s/pkgconfig:%s/usr/share/pkgconfig" % (libdir, sysroot),
        "PKG_CONFIG_PATH": "",
        "PKG_CONFIG_SYSROOT_DIR": sysroot,
    }

def _run_pkg_config(ctx, args):
    result = ctx.execute(["pkg-config"] + args, environment = _pkg_config_environment(ctx))
    if result.return_code != 0:
        fail("pkg-config %s failed (is the Debian -dev package installed?): %s" %
             (" ".join(args), result.stderr))
    return [word for word in result.stdout.strip().split(" ") if word]

def _find_archive(ctx, archive, dirs):
    """True if `archive` is in one of `dirs` or on the compiler's library search path."""
    for d in dirs:
        if ctx.path(d + "/" + archive).exists:
            return True
    if ctx.attr.sysroot:
        # Debian's libzstd.pc names /usr/lib; the library is in the architecture's directory.
        return ctx.path("%s/usr/lib/%s/%s" % (ctx.attr.sysroot, ctx.attr.triplet, archive)).exists

    # Debian's libzstd.pc names /usr/lib as its libdir; the compiler knows where it is.
    result = ctx.execute([ctx.os.environ.get("CC", "cc"), "-print-file-name=" + archive])
    return result.return_code == 0 and result.stdout.strip() != archive

def _static_linkopts(ctx, modules):
    libs = _run_pkg_config(ctx, ["--static", "--libs"] + modules)
    own = [flag[2:] for flag in _run_pkg_config(ctx, ["--libs-only-l"] + modules)]
    dirs = [flag[2:] for flag in libs if flag.startswith("-L")]
    for module in modules:
        dirs.extend(_run_pkg_config(ctx, ["--variable=libdir", module]))
    linkopts = []
    for flag in libs:
        name = flag[2:]
        if flag.startswith("-l") and name in ctx.attr.unused_private_libs:
            continue
        if not flag.startswith("-l") or name not in own or name in _SYSTEM_LIBRARIES:
            linkopts.append(flag)
            continue
        archive = "lib%s.a" % name
        if not _find_archive(ctx, archive, dirs):
            fail("pkg-config module(s) %s: %s has no static library %s" %
                 (" ".join(modules), flag, archive))
        linkopts.append("-l:" + archive)
    return linkopts

def _pkg_config_library_impl(ctx):
    modules = ctx.attr.modules
    if ctx.attr.static and ctx.attr.headers_only:
        fail("pkg_config_library %s: static and headers_only exclude each other" % ctx.name)
    if ctx.attr.headers_only:
        libs = []
    elif ctx.attr.static:
        libs = _static_linkopts(ctx, modules)
    else:
        libs = _run_pkg_config(ctx, ["--libs"] + modules)
    cflags = _run_pkg_config(ctx, ["--cflags"] + modules)
    if ctx.attr.sysroot:
        # The sysroot's include directories are the cross toolchain's system directories.
        own = ["-I%s/usr/include" % ctx.attr.sysroot, "-I%s/usr/include/%s" % (ctx.attr.sysroot, ctx.attr.triplet)]
        copts = [flag for flag in cflags if flag not in own]
    else:
        copts = [flag for flag in cflags if not flag.startswith("-I/usr/include")]
    ctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % ctx.name)
    ctx.file("BUILD.bazel", """\
# Generated from `pkg-config {mode}`.
cc_library(
    name = "lib",
    copts = {copts},
    linkopts = {linkopts},
    visibility = ["//visibility:public"],
)
""".format(
        mode = ("--cflags {m}" if ctx.attr.headers_only else
                "--static --libs --cflags {m}" if ctx.attr.static else
                "--libs --cflags {m}").format(m = " ".join(modules)),
        copts = repr(copts),
        linkopts = repr(libs),
    ))

pkg_config_library = repository_rule(
    implementation = _pkg_config_library_impl,
    attrs = {
        "modules": attr.string_list(mandatory = True),
        "static": attr.bool(
            default = False,
            doc = "Link the modules' own libraries from their .a files.",
        ),
        "unused_private_libs": attr.string_list(
            default = [],
            doc = "With static: libraries of `pkg-config --static --libs` the modules' .a " +
                  "files do not use (left out, so the program does not load them).",
        ),
        "sysroot": attr.string(
            doc = "A directory of another architecture's packages to take the modules from.",
        ),
        "triplet": attr.string(
            default = "",
            doc = "With sysroot: the architecture's multiarch triplet (aarch64-linux-gnu).",
        ),
        "headers_only": attr.bool(
            default = False,
            doc = "Compile flags only: nothing is linked (the program dlopens the library).",
        ),
    },
    local = True,
    environ = ["PKG_CONFIG_PATH"],
)
