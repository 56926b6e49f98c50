"""Loading *.sim.py files: the scenario, or a UserError at the line that failed."""

from pathlib import Path

import pytest

from eutaxy.cloudflare import load_scenario
from eutaxy.core.errors import UserError

GOOD = '''
from eutaxy.cloudflare import define_scenario, queue
from helper import NAME

scenario = define_scenario(name=NAME, drive=queue("payments", [{"body": 1}]))
'''


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_scenario_loads_with_its_directory_importable(tmp_path):
    """The file runs with its own directory on sys.path; root and source are its own."""
    write(tmp_path, "helper.py", 'NAME = "from-helper"\n')
    path = write(tmp_path, "good.sim.py", GOOD)
    scenario = load_scenario(path)
    assert "from-helper" == scenario["name"]
    assert str(tmp_path) == scenario["root"]
    assert str(path) == scenario["source"]


def test_loading_twice_runs_the_file_afresh(tmp_path):
    """Scenario modules are not cached: an edited file is read again."""
    write(tmp_path, "helper.py", 'NAME = "n"\n')
    path = write(tmp_path, "good.sim.py", GOOD)
    load_scenario(path)
    write(tmp_path, "good.sim.py", GOOD.replace("name=NAME", 'name="edited"'))
    assert "edited" == load_scenario(path)["name"]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        # A runtime error is reported at the scenario file's path and line.
        pytest.param("x = 1\ny = undefined_name\n", r"bad\.sim\.py:2: the scenario failed to load: NameError", id="exception"),
        # A UserError raised by a helper is reported at the scenario's own line that called it.
        pytest.param(
            'from eutaxy.cloudflare import queue\n\nq = queue("payments", [{"nobody": 1}])\n',
            r"bad\.sim\.py:3: the scenario failed to load: queue\('payments'\)",
            id="helper-error",
        ),
        # A file that does not parse is refused at the offending line.
        pytest.param("scenario = {\n\n  'a': (\n}\n", r"bad\.sim\.py:\d+: the scenario does not parse", id="syntax-error"),
        # A module that binds no scenario is told how to bind one.
        pytest.param("x = 1\n", "scenario = define_scenario", id="no-scenario"),
    ],
)
def test_a_file_that_does_not_load_is_a_user_error_naming_where_and_why(tmp_path, text, words):
    """Each way a scenario file fails to load is a UserError whose message matches ``words``."""
    path = write(tmp_path, "bad.sim.py", text)
    with pytest.raises(UserError, match=words):
        load_scenario(path)


def test_a_scenario_of_the_wrong_type_is_refused(tmp_path):
    """scenario must be the dict define_scenario returns."""
    path = write(tmp_path, "odd.sim.py", "scenario = [1]\n")
    with pytest.raises(UserError, match="got list"):
        load_scenario(path)


def test_a_missing_file_is_named(tmp_path):
    """A path that does not exist is a UserError naming it."""
    with pytest.raises(UserError, match="no such scenario file"):
        load_scenario(tmp_path / "missing.sim.py")


def test_sys_exit_in_a_scenario_is_a_user_error(tmp_path):
    """Even SystemExit from a scenario file does not end the checker."""
    path = write(tmp_path, "exit.sim.py", "raise SystemExit(3)\n")
    with pytest.raises(UserError, match="SystemExit"):
        load_scenario(path)


WORKER_GOOD = GOOD.replace("drive=queue(", 'worker={"entry": "./worker.ts"}, drive=queue(')


def _real_and_linked(tmp_path: Path, helper: str, name: str) -> tuple[Path, Path]:
    """A folder ``real`` holding a worker scenario that names itself ``name`` through its
    helper module ``helper``, and an empty folder ``linked`` for the symlinks."""
    real = tmp_path / "real"
    linked = tmp_path / "linked"
    real.mkdir()
    linked.mkdir()
    write(real, f"{helper}.py", f"NAME = {name!r}\n")
    write(real, "worker.ts", "export default {};\n")
    write(real, "good.sim.py", WORKER_GOOD.replace("from helper import", f"from {helper} import"))
    return real, linked


def test_a_symlinked_scenario_reads_its_files_beside_the_file_it_links_to(tmp_path):
    """A scenario opened through a symlink resolves its paths, and imports its helpers, as the real file does."""
    real, linked = _real_and_linked(tmp_path, "helper_beside_the_real_file", "beside-the-real-file")
    (linked / "good.sim.py").symlink_to(real / "good.sim.py")
    scenario = load_scenario(linked / "good.sim.py")
    assert (str(real), "beside-the-real-file") == (scenario["root"], scenario["name"])
    assert str(linked / "good.sim.py") == scenario["source"]


def test_a_symlinked_scenario_with_its_files_beside_the_link_keeps_the_link_folder(tmp_path):
    """As in Bazel's runfiles, where each declared file is a symlink beside the others: root is the link's folder."""
    real, linked = _real_and_linked(tmp_path, "helper", "n")
    for name in ("helper.py", "worker.ts", "good.sim.py"):
        (linked / name).symlink_to(real / name)
    assert str(linked) == load_scenario(linked / "good.sim.py")["root"]
