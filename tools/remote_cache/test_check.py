"""The check's reading of Bazel's output, on output Bazel 4.2.3 really wrote.

check.py itself needs a Bazel server and nginx, so it runs outside `bazel test`
(tools/test calls it); these tests pin the part that decides pass or fail:
the process summary and execution log parsers and the hit/miss verdicts, fed
with a summary line and execution logs recorded from a hit and a miss of
//tools/remote_cache:probe (testdata/, PATH values removed).
"""

import dataclasses
from pathlib import Path

import bazel_run
import cache_server
import check

DATA = Path(__file__).with_name("testdata")

HIT_LOG = """INFO: Invocation ID: 0
INFO: Analyzed target //tools/remote_cache:probe (5 packages loaded, 9 targets configured).
INFO: Found 1 target...
INFO: Elapsed time: 0.691s, Critical Path: 0.12s
INFO: 3 processes: 2 remote cache hit, 1 internal.
INFO: Build completed successfully, 3 total actions
"""
#: nginx directives naming a file or directory besides the *_temp_path ones.
PATH_DIRECTIVES = ("pid", "error_log", "access_log", "root")

MISS_LOG = HIT_LOG.replace("2 remote cache hit, 1 internal.", "1 internal, 2 linux-sandbox.")


def build(log: str, execlog: str, returncode: int = 0) -> bazel_run.Build:
    return bazel_run.Build(
        returncode=returncode,
        log=log,
        processes=bazel_run.parse_summary(log),
        spawns=bazel_run.parse_execution_log((DATA / execlog).read_text()),
    )


def test_summary_counts_each_kind():
    """The summary line becomes {kind: count}, singular and empty forms included."""
    assert {"remote cache hit": 2, "internal": 1} == bazel_run.parse_summary(HIT_LOG)
    assert {"internal": 1} == bazel_run.parse_summary("INFO: 1 process: 1 internal.\n")
    assert {} == bazel_run.parse_summary("INFO: 0 processes.\n")
    assert {} == bazel_run.parse_summary("INFO: Build completed successfully, 3 total actions\n")


def test_execution_log_is_read_record_by_record():
    """Bazel's JSON execution log is concatenated objects; each spawn keeps its cache flag."""
    hit = bazel_run.parse_execution_log((DATA / "hit.execlog.json").read_text())
    miss = bazel_run.parse_execution_log((DATA / "miss.execlog.json").read_text())
    assert ["Genrule", "Genrule"] == [s.mnemonic for s in hit]
    assert [True, True] == [s.remote_cache_hit for s in hit]
    assert [False, False] == [s.remote_cache_hit for s in miss]
    assert "Executing genrule //tools/remote_cache:probe" == hit[-1].progress


def test_a_rebuild_from_the_cache_passes():
    """Every action a remote cache hit, none run here: no problems."""
    assert [] == check.warm_problems(build(HIT_LOG, "hit.execlog.json"), actions=2)


def test_a_rebuild_that_missed_fails_on_both_sources():
    """A miss is caught by the summary and, independently, by the execution log."""
    problems = check.warm_problems(build(MISS_LOG, "miss.execlog.json"), actions=2)
    assert any(p.startswith("0 of 2 actions were remote cache hits") for p in problems)
    assert any("ran here" in p for p in problems)
    assert any("execution log shows misses" in p and "//tools/remote_cache:probe" in p for p in problems)
    only_log = check.warm_problems(build(HIT_LOG, "miss.execlog.json"), actions=2)
    assert ["the execution log shows misses"] == [p.split(":")[0] for p in only_log]


def test_a_failed_or_partial_rebuild_fails():
    """A failing build, or fewer hits than the first build had actions, is not a pass."""
    assert ["the rebuild failed (exit 1)"] == check.warm_problems(build(HIT_LOG, "hit.execlog.json", 1), actions=2)
    assert check.warm_problems(build(HIT_LOG, "hit.execlog.json"), actions=3)


def test_the_first_build_must_run_everything_and_fill_the_cache(tmp_path):
    """A cold build that hit, or left ac/ or cas/ empty, is reported."""
    (tmp_path / "ac").mkdir()
    (tmp_path / "cas").mkdir()
    assert any("no ac/" in p for p in check.cold_problems(build(MISS_LOG, "miss.execlog.json"), tmp_path))
    (tmp_path / "ac" / "k").write_text("")
    (tmp_path / "cas" / "k").write_text("")
    assert [] == check.cold_problems(build(MISS_LOG, "miss.execlog.json"), tmp_path)
    assert any("should have been empty" in p for p in check.cold_problems(build(HIT_LOG, "hit.execlog.json"), tmp_path))


def test_nginx_config_has_every_field_filled(tmp_path):
    """The template's fields are all replaced and every server path lands in the temp dir."""
    text = cache_server._render(8080, tmp_path / "root", tmp_path / "state")
    live = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    assert not any("@" in line for line in live)
    assert "listen 127.0.0.1:8080;" in text
    directives = [line.split() for line in live if line.strip()]
    placed = [words[1].rstrip(";") for words in directives if words[0] in PATH_DIRECTIVES or words[0].endswith("_temp_path")]
    assert 9 == len(placed)
    assert all(path.startswith(str(tmp_path)) for path in placed)
    assert "dav_methods PUT;" in text and "create_full_put_path on;" in text and "client_max_body_size 0;" in text


#: `bazel test` in a fresh checkout whose every test came from the cache, and one in which a test ran.
SUITE_HIT_LOG = HIT_LOG + "Executed 0 out of 2 tests: 2 tests pass.\n"
SUITE_MISS_LOG = MISS_LOG + "Executed 1 out of 2 tests: 2 tests pass.\n"


def test_test_summary_is_read():
    """`Executed N out of M tests` becomes (N, M); without it, None."""
    assert (0, 2) == bazel_run.parse_tests(SUITE_HIT_LOG)
    assert (1, 1) == bazel_run.parse_tests("Executed 1 out of 1 test: 1 test passes.\n")
    assert bazel_run.parse_tests(HIT_LOG) is None


def test_a_suite_served_from_the_cache_passes_and_one_that_ran_fails():
    """--suite's verdict: every test cached and every action a hit; a run test or a miss is reported."""
    assert [] == check.suite_problems(build(SUITE_HIT_LOG, "hit.execlog.json"))
    problems = check.suite_problems(build(SUITE_MISS_LOG, "miss.execlog.json"))
    assert any(p.startswith("tests ran instead of coming from the cache: Executed 1 out of 2") for p in problems)
    assert any(p.startswith("2 actions missed the cache") for p in problems)
    ruff, tools = "Testing //tools/lint:ruff_test", "external/bazel_tools/tools/test/"
    xml = bazel_run.Spawn("TestRunner", ruff, "linux-sandbox", False, {}, tools + "generate-xml.sh")
    test = bazel_run.Spawn("TestRunner", ruff, "linux-sandbox", False, {"a.py": "1"}, tools + "test-setup.sh")
    hit = dataclasses.replace(test, runner="remote cache hit", remote_cache_hit=True, inputs={"a.py": "0"})
    only_xml = bazel_run.Build(0, SUITE_HIT_LOG, bazel_run.parse_summary(SUITE_HIT_LOG), (hit, xml))
    assert [] == check.suite_problems(only_xml)
    ran = bazel_run.Build(0, SUITE_HIT_LOG, {}, (test, xml))
    assert [
        f"1 actions missed the cache: {ruff}",
        f"{ruff}: inputs unlike the first run's: a.py",
    ] == check.suite_problems(ran, first=(hit, xml))
    assert ["Bazel reported no tests"] == check.suite_problems(build(HIT_LOG, "hit.execlog.json"))
    assert ["the suite failed in the copy (exit 3)"] == check.suite_problems(build(SUITE_HIT_LOG, "hit.execlog.json", 3))


def test_the_copy_holds_what_git_would_track(tmp_path):
    """Tracked and untracked files as they are in the working tree; ignored and deleted ones left out."""
    import subprocess

    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / ".gitignore").write_text("ignored.txt\n")
    (work / "kept.txt").write_text("committed\n")
    (work / "gone.txt").write_text("x\n")
    subprocess.run(["git", "-C", str(work), "add", "."], check=True)
    (work / "kept.txt").write_text("edited\n")
    (work / "new.txt").write_text("new\n")
    (work / "ignored.txt").write_text("ignored\n")
    (work / "gone.txt").unlink()
    assert 3 == check.copy_checkout(work, tmp_path / "copy")
    assert "edited\n" == (tmp_path / "copy" / "kept.txt").read_text()
    assert sorted(p.name for p in (tmp_path / "copy").iterdir()) == [".gitignore", "kept.txt", "new.txt"]


def test_a_miss_of_an_action_the_first_run_never_executed_is_not_a_key_problem():
    """The first run uploads only what it executed; an action its output base already held cannot hit."""
    genrule = bazel_run.Spawn("Genrule", "Executing genrule //tools/remote_cache:probe", "linux-sandbox", False, {}, "/bin/bash")
    ran = bazel_run.Build(0, SUITE_HIT_LOG, {}, (genrule,))
    other = dataclasses.replace(genrule, progress="Executing genrule //x:y")
    assert [] == check.suite_problems(ran, first=(other,))
    assert any("missed the cache" in p for p in check.suite_problems(ran, first=(genrule,)))
