"""docs/layers.json, every BUILD.bazel and every pyproject.toml say the same thing."""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "layer_check"))
sys.path.insert(0, str(ROOT / "tools" / "bazel"))

import import_check  # noqa: E402 - after sys.path gets this folder
import render  # noqa: E402 - after sys.path gets this folder

LAYERS = json.loads((ROOT / "docs" / "layers.json").read_text())


def build_deps(layer: str) -> tuple[list[str], list[str]]:
    text = (ROOT / "packages" / layer / "BUILD.bazel").read_text()
    deps = re.search(r"\bdeps = \[([^\]]*)\]", text).group(1)
    users = re.search(r"\busers = \[([^\]]*)\]", text).group(1)
    return (re.findall(r'"//packages/(\w+)"', deps), re.findall(r'"(\w+)"', users))


def project(layer: str) -> dict:
    return tomllib.loads((ROOT / "packages" / layer / "pyproject.toml").read_text())["project"]


@pytest.mark.parametrize("layer", list(LAYERS))
def test_build_deps_match_the_table(layer):
    deps, users = build_deps(layer)
    assert sorted(deps) == sorted(LAYERS[layer]["imports"])
    assert sorted(users) == sorted(u for u, info in LAYERS.items() if layer in info["imports"])


@pytest.mark.parametrize("layer", list(LAYERS))
def test_pyproject_matches_the_table(layer):
    meta = project(layer)
    assert meta["name"] == LAYERS[layer]["distribution"]
    assert meta["version"] == "0.1.0"
    names = [re.split(r"[=<>!~ ]", d, maxsplit=1)[0] for d in meta["dependencies"]]
    siblings = {info["distribution"]: name for name, info in LAYERS.items()}
    sibling_pins = [d for d in meta["dependencies"] if d.split("==")[0] in siblings]
    assert all(d.endswith("==0.1.0") for d in sibling_pins), "siblings are pinned exactly"
    assert sorted(siblings[n] for n in names if n in siblings) == sorted(LAYERS[layer]["imports"])
    assert sorted(n for n in names if n not in siblings) == sorted(LAYERS[layer]["third_party"])


def test_every_package_exists_with_its_namespace_layout():
    for layer in LAYERS:
        pkg = ROOT / "packages" / layer
        assert (pkg / "src" / "eutaxy" / layer / "__init__.py").exists()
        assert not (pkg / "src" / "eutaxy" / "__init__.py").exists(), "eutaxy is a PEP 420 namespace"
        assert (pkg / "tests").is_dir()


def test_rendered_table_is_current():
    assert (ROOT / "docs" / "layers.md").read_text() == render.render(LAYERS), "run tools/layer_check/render.py"


def test_the_real_tree_keeps_the_layer_rule():
    for layer, info in LAYERS.items():
        files = sorted((ROOT / "packages" / layer / "src").rglob("*.py"))
        assert import_check.violations(layer, set(info["imports"]), files) == []


def test_a_planted_import_is_named_with_file_line_and_rule(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("import json\n\nfrom eutaxy.engine import check\nimport eutaxy.core.effects\n")
    [problem] = import_check.violations("core", {"spec"}, [planted])
    assert f"{planted}:3:" in problem
    assert "from eutaxy.engine import ..." in problem
    assert "core may import only spec" in problem


def test_from_eutaxy_import_layer_is_an_import_of_that_layer(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("from eutaxy import aws\n")
    [problem] = import_check.violations("engine", {"core"}, [planted])
    assert "from eutaxy import aws" in problem
