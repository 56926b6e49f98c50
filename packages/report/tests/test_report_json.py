"""The JSON report is canonical, versioned and byte-identical for equal input."""

from __future__ import annotations

import json

import pytest
import report_verdicts as verdicts

from eutaxy.core.canonical import to_json
from eutaxy.report.json import SCHEMA_VERSION, error_report, render_json, report_object


def test_verdict_json_is_canonical_and_versioned():
    """The text is core's canonical JSON of the verdict with schemaVersion 1."""
    verdict = verdicts.violated()
    text = render_json(verdict)
    assert to_json(verdict) == text
    parsed = json.loads(text)
    assert 1 == parsed["schemaVersion"] == SCHEMA_VERSION
    assert "violated" == parsed["kind"]
    assert json.dumps(parsed, sort_keys=True, separators=(",", ":"), ensure_ascii=False) == text


def test_equal_input_gives_byte_identical_json_whatever_the_key_order():
    """Two equal verdicts built in different orders encode to the same bytes."""
    one = verdicts.bounded()
    two = dict(reversed(list(verdicts.bounded().items())))
    assert render_json(one).encode() == render_json(two).encode()


def test_report_object_adds_version_and_kind_but_keeps_a_given_kind():
    """A command result gets schemaVersion and a kind; an existing kind wins."""
    assert {"schemaVersion": 1, "kind": "toolchain_install", "already": True} == report_object(
        {"already": True}, kind="toolchain_install"
    )
    assert "bounded" == report_object({"kind": "bounded"}, kind="other")["kind"]


def test_report_object_refuses_a_missing_kind_or_another_schema_version():
    """Consumers switch on kind, and a version is never relabelled."""
    with pytest.raises(ValueError):
        report_object({"runs": 1})
    with pytest.raises(ValueError):
        report_object({"kind": "bounded", "schemaVersion": 2})


def test_error_report_is_a_kind_like_any_other():
    """A command that could not run still prints one versioned object."""
    assert '{"kind":"error","message":"no such file","schemaVersion":1}' == render_json(error_report("no such file"))
