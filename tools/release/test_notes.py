"""The release notes are one version's section of CHANGELOG.md."""

from __future__ import annotations

import notes

CHANGELOG = """# Changelog

<!-- towncrier release notes start -->

## 0.3.0rc1 (2026-12-09)

### Fixed

- `eutaxy check` now exits 2 on a bad seed.

## 0.2.0 (2026-12-01)

### Added

- A project config.
"""


def test_the_section_of_the_version_up_to_the_next_heading():
    assert "### Added\n\n- A project config.\n" == notes.section(CHANGELOG, "0.2.0")
    assert "### Fixed\n\n- `eutaxy check` now exits 2 on a bad seed.\n" == notes.section(CHANGELOG, "0.3.0rc1")


def test_a_version_with_no_section_is_none():
    """0.2 must not match 0.2.0, nor 0.3.0 match 0.3.0rc1."""
    assert notes.section(CHANGELOG, "0.2") is None
    assert notes.section(CHANGELOG, "0.3.0") is None
