"""Externals: the data external() builds, the scenario's list, and the assumptions they add."""

from pathlib import Path

import pytest

from eutaxy.cloudflare import define_scenario, external, http, queue
from eutaxy.cloudflare.platform import CloudflarePlatform
from eutaxy.core.errors import UserError


def test_an_external_is_plain_data_with_defaults():
    assert {
        "name": "payments-api",
        "host": "*.pay.example",
        "responses": [{"method": "POST", "path": "/charges", "status": 200, "headers": {}, "body": None}],
        "dedupeBy": "Idempotency-Key",
    } == external("payments-api", "*.Pay.example", [{"method": "post", "path": "/charges"}], dedupe_by="Idempotency-Key")
    assert {"name": "hooks", "host": "hooks.example", "responses": [], "dedupeBy": None} == external("hooks", "hooks.example")


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        (("", "a.example"), {}, "name must be"),
        (("x", "https://a.example"), {}, "host must be a host name"),
        (("x", "*.*.example"), {}, "host must be a host name"),
        (("x", "a.example", {"method": "GET"}), {}, "responses must be a list"),
        (("x", "a.example", [{"path": "/a"}]), {}, "method must be an HTTP method"),
        (("x", "a.example", [{"method": "GET", "path": "/a?b=1"}]), {}, "no query"),
        (("x", "a.example", [{"method": "GET", "path": "/a", "status": 99}]), {}, "status must be"),
        (("x", "a.example", [{"method": "GET", "path": "/a", "body": {1, 2}}]), {}, "body must be JSON"),
        (("x", "a.example", [{"method": "GET", "path": "/a", "delay": 1}]), {}, "unknown fields delay"),
        (("x", "a.example"), {"dedupe_by": "Idempotency Key"}, "dedupe_by must be a header name"),
    ],
)
def test_mistakes_are_user_errors(args, kwargs, message):
    with pytest.raises(UserError, match=message):
        external(*args, **kwargs)


CONFIG = '{"name": "w", "main": "./worker.ts", "compatibility_date": "2026-01-01", "queues": {"consumers": [{"queue": "jobs"}]}}'


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "worker.ts").write_text("export default {};\n")
    (tmp_path / "wrangler.jsonc").write_text(CONFIG)
    return tmp_path


def _scenario(root: Path, **fields):
    defaults = {"name": "s", "drive": http([{"path": "/"}]), "root": root, "source": root / "s.sim.py"}
    return define_scenario(**{**defaults, **fields})


def test_define_scenario_lists_externals(root):
    pay = external("payments-api", "api.pay.example", dedupe_by="Idempotency-Key")
    assert [pay] == _scenario(root, externals=[pay])["externals"]
    assert [] == _scenario(root)["externals"]


def test_an_external_declared_twice_is_refused(root):
    pay = external("payments-api", "api.pay.example")
    with pytest.raises(UserError, match="declared 2 times"):
        _scenario(root, externals=[pay, pay])
    with pytest.raises(UserError, match="externals must be a list"):
        _scenario(root, externals=pay)


def test_describe_lists_externals_the_caller_and_background_work(root):
    """A verdict is only as good as the declarations, so each is an assumption."""
    pay = external("payments-api", "*.pay.example", [{"method": "POST", "path": "/charges"}], dedupe_by="Idempotency-Key")
    scenario = _scenario(root, externals=[pay], drive=http([{"path": "/"}], retries=2, retry_on="5xx", deadline_ms=500))
    sentences = CloudflarePlatform(scenario).describe()["assumptions"]
    [declared] = [s for s in sentences if s.startswith("External payments-api")]
    assert "*.pay.example" in declared and "POST /charges -> 200" in declared and "Idempotency-Key" in declared
    [caller] = [s for s in sentences if s.startswith("Inbound requests")]
    assert "up to 2 time(s)" in caller and "a 5xx answer" in caller and "500 ms" in caller
    assert any("outbound_request" in s for s in sentences)
    assert any("ctx.waitUntil" in s for s in sentences)


def test_a_queue_scenario_lists_no_caller(root):
    sentences = CloudflarePlatform(_scenario(root, drive=queue("jobs", [{"body": 1}]))).describe()["assumptions"]
    assert not any(s.startswith("Inbound requests") for s in sentences)
