"""The public surface of eutaxy.cli is what docs/cli.md names."""

import eutaxy.cli


def test_cli_exports():
    """The entry point, the version and the platform hook."""
    assert ["VERSION", "main", "register_platform", "unregister_platform"] == sorted(eutaxy.cli.__all__)
    assert "0.1.0" == eutaxy.cli.VERSION

