"""One macro per Eutaxy package: the layer-checked py_library and its pytest target."""

def _layer_check_impl(ctx):
    stamp = ctx.actions.declare_file("src/eutaxy/%s/_layer_checked.py" % ctx.attr.layer)
    args = ctx.actions.args()
    args.add("--layer", ctx.attr.layer)
    args.add("--allowed", ",".join(ctx.attr.allowed))
    args.add("--stamp", stamp)
    args.add_all(ctx.files.srcs)
    ctx.actions.run(
        executable = ctx.executable._checker,
        arguments = [args],
        inputs = ctx.files.srcs,
        outputs = [stamp],
        mnemonic = "EutaxyLayerCheck",
        progress_message = "Checking the layer rule for eutaxy.%s" % ctx.attr.layer,
    )
    return [DefaultInfo(files = depset([stamp]))]

layer_check = rule(
    implementation = _layer_check_impl,
    attrs = {
        "layer": attr.string(mandatory = True),
        "allowed": attr.string_list(),
        "srcs": attr.label_list(allow_files = [".py"]),
        "_checker": attr.label(default = "//tools/bazel:import_check", executable = True, cfg = "exec"),
    },
)

# Who may depend on a library besides the layers above it: the corpus gates,
# benchmarks and the repository's own tools.
_NON_LAYER_USERS = ["//corpus:__subpackages__", "//bench:__subpackages__", "//tools:__subpackages__"]

def _layer_of(label):
    # "//packages/core" or "//packages/core:core" -> "core"
    return label.split(":")[0].rsplit("/", 1)[-1]

def eutaxy_package(layer, deps = [], users = [], third_party = [], data = [], test_data = [], test_deps = [], test_size = "medium", test_shards = 0, test_tags = [], test_support = [], test_support_users = []):
    """A py_library for eutaxy.<layer> whose every build checks the layer rule.

    deps: the eutaxy layers this one may import (labels //packages/<layer>);
    users: the layers allowed to import this one (its visibility);
    third_party: other py deps (e.g. the z3 wheel repository);
    test_support: helper modules in tests/ (uniquely named) that the tests of
    test_support_users import too, as :test_support (their test_deps name it);
    test_shards: how many Bazel shards the package's tests are dealt over (0: one process).
    """
    srcs = native.glob(["src/**/*.py"], exclude = ["src/**/_layer_checked.py"])
    layer_check(
        name = layer + "_layer_check",
        layer = layer,
        allowed = [_layer_of(d) for d in deps],
        srcs = srcs,
    )
    native.py_library(
        name = layer,
        srcs = srcs + [":" + layer + "_layer_check"],
        imports = ["src"],
        deps = deps + third_party,
        data = data + native.glob(["src/**"], exclude = ["src/**/*.py", "src/**/__pycache__/**", "src/**/* *"]),
        visibility = ["//packages/%s:__pkg__" % u for u in users] + _NON_LAYER_USERS,
    )
    native.exports_files(["BUILD.bazel", "pyproject.toml"], visibility = ["//tools:__subpackages__"])
    native.filegroup(name = "srcs_for_layer_check", srcs = srcs + native.glob(["tests/**"], exclude = ["**/__pycache__/**", "**/.hypothesis/**"]), visibility = ["//tools:__subpackages__"])
    if test_support:
        native.py_library(
            name = "test_support",
            testonly = True,
            srcs = test_support,
            imports = ["tests"],
            deps = [":" + layer],
            visibility = ["//packages/%s:__pkg__" % u for u in test_support_users],
        )
    tests = native.glob(["tests/**/*.py"])
    if tests:
        native.py_test(
            name = "test",
            srcs = tests + ["//tools/bazel:pytest_main.py"],
            main = "//tools/bazel:pytest_main.py",
            args = [native.package_name() + "/tests"],
            deps = [":" + layer] + test_deps,
            data = native.glob(["tests/**"], exclude = ["tests/**/*.py", "**/__pycache__/**", "**/.hypothesis/**"]) + test_data,
            size = test_size,
            shard_count = test_shards if test_shards else None,
            tags = test_tags,
            legacy_create_init = False,
        )

def corpus_case(name, srcs, deps, data = [], support = [], size = "large", tags = [], shards = 0):
    """A corpus gate: pytest over one case's test file, with the case's files as data.

    support: shared modules the test imports (and a conftest.py), not run as tests;
    shards: how many Bazel shards its tests are dealt over (0: one process).
    """
    native.py_test(
        name = name,
        srcs = srcs + support + ["//tools/bazel:pytest_main.py"],
        main = "//tools/bazel:pytest_main.py",
        args = ["%s/%s" % (native.package_name(), s) for s in srcs],
        deps = deps,
        data = data,
        size = size,
        shard_count = shards if shards else None,
        tags = tags,
        legacy_create_init = False,
    )

# What a scenario test needs of Eutaxy, per platform: one public library each (tools/bazel/BUILD.bazel),
# so a user's repository depends on it without seeing Eutaxy's packages one by one.
_SCENARIO_TEST_DEPS = {
    "cloudflare": Label("//tools/bazel:scenario_test_cloudflare"),
    "aws": Label("//tools/bazel:scenario_test_aws"),
}

def eutaxy_scenario_test(name, scenario, data = [], max_runs = 200, shard_count = 2, seed = None, budget_ms = 600000, platform = "cloudflare", size = "large", tags = [], deps = []):
    """`eutaxy check` of one scenario as a Bazel test whose exploration is split over shard_count shards.

    scenario: the scenario file (<name>.sim.py) in this package;
    data: the files it reads (the Worker and its config, the handler, setup files);
    max_runs: the run cap the shards split (each runs its slice of the first max_runs plans);
    shard_count: how many shards (each a test action of its own, on as many machines as the executor has);
    seed: the exploration seed (default: the scenario file's name);
    budget_ms: each shard's and the merge's wall-time budget, long enough that max_runs ends
      exploration (below a large test's 900 s): the merge's verdict is then one job's bytes;
    platform: "cloudflare" or "aws".

    Each shard fails when a run of its slice breaks an invariant and its replay breaks it again.
    `bazel run :<name>.merge` prints the verdict one job would give, from the shards' results
    under bazel-testlogs (eutaxy check --merge-shards); see docs/ci.md.
    """
    if platform not in _SCENARIO_TEST_DEPS:
        fail("eutaxy_scenario_test: platform must be one of %s, got %r" % (sorted(_SCENARIO_TEST_DEPS), platform))
    args = ["%s/%s" % (native.package_name(), scenario), "--max-runs", str(max_runs), "--budget-ms", str(budget_ms)] + (["--seed", seed] if seed else [])
    files = [scenario] + data + ([Label("@eutaxy_node//:location")] if platform == "cloudflare" else [])
    main = Label("//tools/bazel:scenario_test_main.py")
    native.py_test(
        name = name,
        srcs = [main],
        main = main,
        args = args,
        data = files,
        deps = [_SCENARIO_TEST_DEPS[platform]] + deps,
        size = size,
        shard_count = shard_count,
        tags = tags,
        legacy_create_init = False,
    )
    native.py_binary(
        name = name + ".merge",
        srcs = [main],
        main = main,
        args = ["--merge", "%s/%s" % (native.package_name(), name)] + args,
        data = files,
        deps = [_SCENARIO_TEST_DEPS[platform]] + deps,
        testonly = True,
        tags = tags,
        legacy_create_init = False,
    )
