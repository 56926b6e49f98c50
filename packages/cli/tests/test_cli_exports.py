"""The public surface of eutaxy.cli is what docs/cli.md names."""

import re

import eutaxy.cli


def test_cli_exports():
    """The entry point, the version and the platform hook."""
    assert ["VERSION", "main", "register_platform", "unregister_platform"] == sorted(eutaxy.cli.__all__)
    # The release version moves (tools/release/bump.py); //tools/release:versions_test checks it agrees.
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?", eutaxy.cli.VERSION), eutaxy.cli.VERSION

