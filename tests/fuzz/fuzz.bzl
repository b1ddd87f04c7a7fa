"""tracewire_fuzzer: a libFuzzer target and the test that replays its committed inputs.

For a fuzzer `x_fuzzer` with source `x_fuzzer.cc`:
  * `:x_fuzzer` is the fuzzer. Under `--config=fuzz` (clang, libFuzzer, ASan, UBSan) it is
    a libFuzzer binary; in every other configuration it links `:fuzz_main`, which runs the
    inputs named on its command line once each (to reproduce a crash under gcc).
  * `:x_fuzzer_replay_test` runs every file of `corpus/x` (the seed corpus) and of
    `regressions/x` (every input that ever crashed it) through the target, one GoogleTest
    case per directory. `bazel test --config=asan` replays them under ASan and UBSan.
"""

def tracewire_fuzzer(name, deps, short_name = None):
    short = short_name or name.replace("_fuzzer", "")
    native.cc_binary(
        name = name,
        testonly = True,
        srcs = [name + ".cc"],
        deps = deps + select({
            ":fuzzing": [],
            "//conditions:default": [":fuzz_main"],
        }),
        linkopts = select({
            ":fuzzing": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
    )
    native.cc_test(
        name = name + "_replay_test",
        size = "medium",
        srcs = [name + ".cc"],
        args = [
            "tests/fuzz/corpus/" + short,
            "tests/fuzz/regressions/" + short,
        ],
        data = native.glob([
            "corpus/" + short + "/**",
            "regressions/" + short + "/**",
        ]),
        deps = deps + [":replay_test_main"],
    )
