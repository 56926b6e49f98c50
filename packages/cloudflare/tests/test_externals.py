"""Externals: the data external() builds, the scenario's list, and the assumptions they add."""

from pathlib import Path

import pytest

from eutaxy.cloudflare import external, http, queue
from eutaxy.cloudflare.externals import assumptions, validate_externals
from eutaxy.cloudflare.platform import CloudflarePlatform
from eutaxy.core.errors import UserError

from worker_project import scenario_in, write_project


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
        (("x", "a.example", [{"method": "GET", "path": "/a/*/b"}]), {}, "'\\*' only at its end"),
        (("x", "a.example", [{"method": "GET"}]), {}, "give a path .* or a pattern, exactly one"),
        (("x", "a.example", [{"method": "GET", "path": "/a", "pattern": "/a"}]), {}, "exactly one"),
        (("x", "a.example", [{"method": "GET", "pattern": "/a(+"}]), {}, "pattern must be a regular expression, got '/a\\(\\+'"),
        (("x", "a.example", [{"method": "GET", "pattern": "/(?P<id>[0-9]+)"}]), {}, "JavaScript regular expression, which has no '\\(\\?P'"),
        (("x", "a.example", [{"method": "GET", "path": "/a", "query": {"cursor": 2}}]), {}, "query must be a dict of parameter names to string values"),
        (("x", "a.example", [{"method": "GET", "path": "/a", "status": 200, "replies": [{}]}]),
         {}, "either replies or a single reply's .*\\(got replies and status\\)"),
        (("x", "a.example", [{"method": "GET", "path": "/a", "replies": []}]), {}, "replies must be a non-empty list"),
        (("x", "a.example", [{"method": "GET", "path": "/a", "replies": [{"status": 429, "delay": 1}]}]), {},
         "responses\\[0\\].replies\\[0\\] has unknown fields delay"),
        (("x", "a.example", [{"method": "GET", "path": "/a", "replies": [{"status": 700}]}]), {}, "replies\\[0\\]: status must be .* got 700"),
        (("x", "a.example", [{"method": "GET", "path": "/a", "replies": [{}] * 101}]), {}, "at most 100 replies, got 101"),
        (("x", "a.example", [{"method": "GET", "path": "/a", "headers": {"Retry After": "1"}}]), {}, "headers must be a dict of header names"),
    ],
)
def test_mistakes_are_user_errors(args, kwargs, message):
    with pytest.raises(UserError, match=message):
        external(*args, **kwargs)


def test_routes_keep_what_they_were_given_and_validate_again_unchanged():
    """A prefix, a pattern, a query and a sequence are plain data; validate_externals reads them back as they are."""
    routes = [
        {"method": "get", "path": "/v1/items", "query": {"cursor": "c2"}, "body": {"items": []}},
        {"method": "GET", "path": "/v1/items*", "replies": [{"status": 429, "headers": {"Retry-After": "1"}}, {"body": "ok"}]},
        {"method": "GET", "pattern": "/v2/orders/[0-9]+"},
    ]
    declared = external("api", "api.example", routes)
    assert [
        {"method": "GET", "path": "/v1/items", "query": {"cursor": "c2"}, "status": 200, "headers": {}, "body": {"items": []}},
        {"method": "GET", "path": "/v1/items*", "replies": [
            {"status": 429, "headers": {"Retry-After": "1"}, "body": None}, {"status": 200, "headers": {}, "body": "ok"}]},
        {"method": "GET", "pattern": "/v2/orders/[0-9]+", "status": 200, "headers": {}, "body": None},
    ] == declared["responses"]
    assert [declared] == validate_externals([declared])


def test_assumptions_name_each_route_and_the_sequence_rule():
    declared = external("api", "api.example", [
        {"method": "GET", "path": "/v1/items*", "replies": [{"status": 429}, {"status": 200}]},
        {"method": "GET", "pattern": "/v2/[a-z]+", "query": {"page": "2"}, "status": 404},
    ])
    [sentence, rule, _network] = assumptions([declared])
    assert "GET /v1/items* -> 429, 200; GET //v2/[a-z]+/ ?page=2 -> 404" in sentence
    assert rule.startswith("A route with a sequence of replies gives the n-th reply")
    [plain, _network] = assumptions([external("p", "p.example", [{"method": "POST", "path": "/c"}])])
    assert "(POST /c -> 200)" in plain


CONFIG = '{"name": "w", "main": "./worker.ts", "compatibility_date": "2026-01-01", "queues": {"consumers": [{"queue": "jobs"}]}}'


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_project(tmp_path, CONFIG)


def _scenario(root: Path, **fields):
    return scenario_in(root, **{"drive": http([{"path": "/"}]), **fields})


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
    assert "up to 2 times" in caller and "a 5xx answer" in caller and "500 ms" in caller
    assert any("outbound_request" in s for s in sentences)
    assert any("ctx.waitUntil" in s for s in sentences)


def test_a_queue_scenario_lists_no_caller(root):
    sentences = CloudflarePlatform(_scenario(root, drive=queue("jobs", [{"body": 1}]))).describe()["assumptions"]
    assert not any(s.startswith("Inbound requests") for s in sentences)
