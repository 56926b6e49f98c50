"""Renders docs/layers.json (the layer table, kept once) into docs/layers.md."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def render(layers: dict) -> str:
    lines = [
        "# Layers",
        "",
        "Generated from `docs/layers.json` by `tools/layer_check/render.py`; edit the JSON, then re-render.",
        "Dependencies point down. An import of an `eutaxy.<layer>` package that a library does not declare",
        "fails `bazel build` (tools/bazel/import_check.py); a test keeps each BUILD.bazel, each pyproject.toml",
        "and this table in agreement.",
        "",
        "| package | distribution | holds | may import (repo) | third-party at run time |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, info in layers.items():
        imports = ", ".join(info["imports"]) or "nothing"
        third = ", ".join(info["third_party"]) or "none"
        lines.append(f"| {name} | `{info['distribution']}` | {info['holds']} | {imports} | {third} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    layers = json.loads((ROOT / "docs" / "layers.json").read_text())
    (ROOT / "docs" / "layers.md").write_text(render(layers))
    return 0


if __name__ == "__main__":
    sys.exit(main())
