"""A repository rule that wraps an installed pkg-config module as a cc_library.

Link and compile flags are read from `pkg-config` when the repository is set up,
so the Debian packages' own metadata decides them; nothing is downloaded.
"""

def _run_pkg_config(ctx, args):
    result = ctx.execute(["pkg-config"] + args)
    if result.return_code != 0:
        fail("pkg-config %s failed (is the Debian -dev package installed?): %s" %
             (" ".join(args), result.stderr))
    return [word for word in result.stdout.strip().split(" ") if word]

def _pkg_config_library_impl(ctx):
    modules = ctx.attr.modules
    libs = _run_pkg_config(ctx, ["--libs"] + modules)
    cflags = _run_pkg_config(ctx, ["--cflags"] + modules)
    copts = [flag for flag in cflags if not flag.startswith("-I/usr/include")]
    ctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % ctx.name)
    ctx.file("BUILD.bazel", """\
# Generated from `pkg-config --libs --cflags {modules}`.
cc_library(
    name = "lib",
    copts = {copts},
    linkopts = {linkopts},
    visibility = ["//visibility:public"],
)
""".format(
        modules = " ".join(modules),
        copts = repr(copts),
        linkopts = repr(libs),
    ))

pkg_config_library = repository_rule(
    implementation = _pkg_config_library_impl,
    attrs = {
        "modules": attr.string_list(mandatory = True),
    },
    local = True,
    environ = ["PKG_CONFIG_PATH"],
)
