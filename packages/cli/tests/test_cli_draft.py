"""``eutaxy draft``: a scenario skeleton for every corpus Worker, its holes, --json, no overwrite,
and a filled draft checked on workerd.

Each corpus Worker's folder is copied into a temporary folder without its scenario files,
so the draft writes ``<name>.sim.py`` where the case's own scenario was.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

PACKAGE = Path(__file__).absolute().parents[1]


def corpus() -> Path:
    for root in (Path.cwd(), PACKAGE.parents[1]):
        if (root / "corpus" / "planted-bugs").is_dir():
            return root / "corpus" / "planted-bugs"
    raise AssertionError("corpus/planted-bugs is not in the test's files")


def differential_configs() -> list[str]:
    """Every Worker config of corpus/differential, as ``<case>/<path>`` (a callee case has two: the caller's and the callee's)."""
    root = corpus().parent / "differential"
    return sorted(str(path.relative_to(root)) for path in root.glob("*/**/wrangler.jsonc"))


def worker_cases() -> list[str]:
    """Every corpus case with a wrangler config: the Cloudflare Workers."""
    return sorted(path.parent.name for path in corpus().glob("*/wrangler.jsonc"))


def copy_worker(case: str, into: Path) -> Path:
    """The case's folder (Worker, config, schema) without its scenarios or its fixed twin."""
    folder = into / case
    shutil.copytree(corpus() / case, folder, ignore=shutil.ignore_patterns("*.py", "fixed", "__pycache__"))
    return folder


def fill(source: str, events: str, invariants: str) -> str:
    """The draft with its events and invariants holes written, as the author would."""
    source = re.sub(r'todo\("events", "[^"]*"\)', events, source)
    return re.sub(r'todo\("invariants", "[^"]*"\)', invariants, source)


def drafted(run_cli, folder, name, *options):
    """``eutaxy draft folder *options`` (exit 0) and the file it wrote there: (its path, its text)."""
    result = run_cli("draft", str(folder), *options)
    assert 0 == result.code, result.stderr
    path = folder / f"{name}.sim.py"
    return path, path.read_text()


def test_there_are_corpus_workers_to_draft():
    """The parametrized test below is not vacuous."""
    assert len(worker_cases()) >= 4, worker_cases()


@pytest.mark.parametrize("case", worker_cases())
def test_draft_on_each_corpus_worker_writes_a_file_that_loads_up_to_its_holes(case, tmp_path, run_cli):
    """Exit 0 and <name>.sim.py beside the config; its holes are marked TODO in comments and as
    todo(...) values; checking it unfilled is exit 2 naming each hole with its line."""
    folder = copy_worker(case, tmp_path)
    result = run_cli("draft", str(folder / "wrangler.jsonc"))
    assert 0 == result.code, result.stderr
    path = folder / f"{case}.sim.py"
    assert f"Draft written: {path}" in result.stdout
    source = path.read_text()
    assert "# TODO(events):" in source and "# TODO(invariants):" in source
    holes = re.findall(r'^\s*(?:\w+\s*=\s*)?(?:d1_schema\("\w+", )?todo\("(\w+)"', source, re.MULTILINE)
    assert {"events", "invariants"} <= set(holes)
    checked = run_cli("check", str(path), "--max-runs", "1")
    assert 2 == checked.code, checked.stdout
    assert "this scenario is a draft with" in checked.stderr
    for number, line in enumerate(source.splitlines(), start=1):
        match = re.search(r'todo\("(\w+)"', line)
        if match:
            assert f"{path.name}:{number}: TODO({match.group(1)})" in checked.stderr
            assert f"line {number}: TODO({match.group(1)})" in result.stdout


def test_there_are_differential_workers_to_draft():
    """The parametrized test below is not vacuous: queue, rpc, cron, Durable Object and callee cases."""
    assert len(differential_configs()) >= 10, differential_configs()
    assert "callee-object-holds/inventory/wrangler.jsonc" in differential_configs()


@pytest.mark.parametrize("config", differential_configs())
def test_draft_on_each_differential_worker_writes_a_file_that_loads_up_to_its_holes(config, tmp_path, run_cli):
    """The differential corpus's Workers (a callee's on both sides of its service binding, a cron
    Worker, Durable Objects with alarms, Workflows) draft as the planted bugs' do: exit 0, and
    checking the draft unfilled is exit 2 naming its holes, nothing else."""
    case = config.split("/")[0]
    shutil.copytree(corpus().parent / "differential" / case, tmp_path / case, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    path = tmp_path / config
    result = run_cli("draft", str(path))
    assert 0 == result.code, result.stderr
    [drafted] = path.parent.glob("*.sim.py")
    checked = run_cli("check", str(drafted), "--max-runs", "1")
    assert 2 == checked.code, checked.stdout
    assert "this scenario is a draft with" in checked.stderr, checked.stderr


@pytest.mark.parametrize("case", worker_cases())
def test_each_corpus_draft_filled_with_its_examples_loads(case, tmp_path, run_cli):
    """With the example events and a first example invariant written in, the draft loads whole:
    the holes were the only thing missing."""
    from eutaxy.cloudflare import load_scenario
    from eutaxy.cloudflare.worker import prepare_worker

    folder = copy_worker(case, tmp_path)
    result = run_cli("draft", str(folder), "--json")
    assert 0 == result.code, result.stderr
    data = json.loads(result.stdout)
    assert not (folder / f"{case}.sim.py").exists()
    defaults = {"http": [{"method": "GET", "path": "/"}], "cron": 2}  # a cron drive's events hole is its tick count
    events = data["exampleEvents"] or defaults.get(data["drive"]["kind"], [{"body": {}}])
    invariant = data["exampleInvariants"][0].rstrip(",")
    path = folder / f"{case}.sim.py"
    path.write_text(fill(data["source"], json.dumps(events), invariant))
    scenario = load_scenario(path)
    prepare_worker(scenario)


def test_json_prints_the_draft_as_data_and_writes_nothing(tmp_path, run_cli, monkeypatch):
    """--json: one object, kind draft, the holes with their lines, the notes and the file's text;
    with no config named, the one in the working folder is found. The same twice."""
    folder = copy_worker("webhook-double-charge", tmp_path)
    monkeypatch.chdir(folder)
    first = run_cli("draft", "--json")
    assert 0 == first.code, first.stderr
    assert first.stdout == run_cli("draft", "--json").stdout
    data = json.loads(first.stdout)
    assert ("draft", 1, False) == (data["kind"], data["schemaVersion"], data["written"])
    assert str(folder / "webhook-double-charge.sim.py") == data["path"]
    assert [("events", "invariants")] == [tuple(hole["name"] for hole in data["holes"])]
    assert [{"host": "api.pay.example", "name": "api.pay.example",
             "requests": [{"method": "POST", "path": "/v1/charges", "where": "worker.ts:22"}]}] == data["externals"]
    assert {"kind": "http", "name": "http", "variable": "requests"} == data["drive"]
    assert ["fetch"] == data["handlers"]
    assert any(note["kind"] == "guess" for note in data["notes"])
    assert [] == sorted(p.name for p in folder.glob("*.sim.py"))
    written = run_cli("draft")
    assert 0 == written.code
    assert data["source"] == (folder / "webhook-double-charge.sim.py").read_text()
    # In the working folder, the text names the file as the person would type it.
    assert written.stdout.startswith("Draft written: webhook-double-charge.sim.py\n")
    assert written.stdout.endswith("Then: eutaxy check webhook-double-charge.sim.py\n")


def test_draft_never_overwrites_and_says_which_file(tmp_path, run_cli):
    """The case's own scenario is where the draft would go: exit 2, naming it; the file is untouched."""
    folder = tmp_path / "queue-duplicate-write"
    shutil.copytree(corpus() / "queue-duplicate-write", folder, ignore=shutil.ignore_patterns("fixed", "__pycache__"))
    before = (folder / "queue-duplicate-write.sim.py").read_text()
    result = run_cli("draft", str(folder / "wrangler.jsonc"))
    assert 2 == result.code
    assert f"{folder / 'queue-duplicate-write.sim.py'}: already exists; eutaxy draft never replaces a file" in result.stderr
    assert before == (folder / "queue-duplicate-write.sim.py").read_text()
    as_json = run_cli("draft", str(folder / "wrangler.jsonc"), "--json")
    assert 0 == as_json.code  # --json writes nothing, so it replaces nothing


def test_an_unproxied_binding_gets_a_note_in_the_file(tmp_path, run_cli):
    """An AI binding and a Hyperdrive config (outside the seeds' allowlist): each named as not proxied, in the file."""
    folder = copy_worker("background-lost", tmp_path)
    config = folder / "wrangler.jsonc"
    text = config.read_text().rstrip().rstrip("}")
    config.write_text(text + '  "ai": { "binding": "AI" },\n'
                      '  "hyperdrive": [{ "binding": "PG", "id": "pg" }],\n}\n')
    result = run_cli("draft", str(config))
    assert 0 == result.code, result.stderr
    source = (folder / "background-lost.sim.py").read_text()
    assert "# - unproxied: ai binding AI is not proxied in this build" in source
    assert "# - unproxied: hyperdrive binding PG is not proxied in this build" in source
    assert "unproxied: ai binding AI" in result.stdout


def test_bad_input_is_exit_2(tmp_path, run_cli, monkeypatch):
    """No config anywhere above, or a config whose main is missing: exit 2 with the reason."""
    monkeypatch.chdir(tmp_path)
    missing = run_cli("draft", "--json")
    assert 2 == missing.code
    assert "error" == json.loads(missing.stdout)["kind"]
    (tmp_path / "wrangler.jsonc").write_text('{"name": "x", "main": "./gone.ts"}')
    result = run_cli("draft")
    assert 2 == result.code
    assert "main names './gone.ts', which does not exist" in result.stderr


def test_a_filled_draft_checks_on_workerd(tmp_path, run_cli, toolchain):
    """queue-duplicate-write drafted, its two holes filled as a user would, checked with runs
    capped: a verdict (the planted duplicate insert is found), not an error."""
    folder = copy_worker("queue-duplicate-write", tmp_path)
    path, source = drafted(run_cli, folder, "queue-duplicate-write")
    path.write_text(fill(
        source,
        '[{"body": {"orderId": "o-1", "amountCents": 1200}}, {"body": {"orderId": "o-2", "amountCents": 500}}]',
        'at_most_once_per_key("one-db-write-per-key", d1_write("DB"), d1_param(0))',
    ))
    result = run_cli("check", str(path), "--max-runs", "30", "--budget-ms", "120000", "--no-regression", "--json")
    data = json.loads(result.stdout)
    assert data["kind"] in ("violated", "bounded"), result.stderr
    assert "violated" == data["kind"]
    assert 1 == result.code
    assert ["one-db-write-per-key"] == [item["invariant"] for item in data["violations"]]


def test_the_toml_twin_drafts_as_its_jsonc(tmp_path, run_cli):
    """queue-duplicate-write's wrangler.toml gives the draft its wrangler.jsonc gives, but for the config's name."""
    folder = copy_worker("queue-duplicate-write", tmp_path)
    from_jsonc = json.loads(run_cli("draft", str(folder / "wrangler.jsonc"), "--json").stdout)
    from_toml = json.loads(run_cli("draft", str(folder / "wrangler.toml"), "--json").stdout)
    assert "./wrangler.toml" == from_toml["config"]
    assert from_jsonc["source"].replace("wrangler.jsonc", "wrangler.toml") == from_toml["source"]


def test_env_drafts_the_environment_and_names_it(tmp_path, run_cli):
    """--env staging: the staging database and consumer (the top level has neither), the file
    named for the environment, and worker={"env": "staging"} so check reads the same config."""
    from eutaxy.cloudflare import load_scenario

    folder = tmp_path / "env_e2e"
    shutil.copytree(Path(__file__).parent / "env_e2e", folder, ignore=shutil.ignore_patterns("*.py"))
    top = json.loads(run_cli("draft", str(folder), "--json").stdout)
    assert ([], None) == (top["setup"], top["drive"])  # queue() alone, and no consumer: the drive is a hole
    assert any("has a queue() handler but the config has no queues.consumers entry" in note["text"] for note in top["notes"])
    path, source = drafted(run_cli, folder, "pay-staging", "--env", "staging")
    assert 'worker={"entry": "./worker.ts", "config": "./wrangler.toml", "env": "staging"},' in source
    assert 'd1_schema("DB", "./schema.sql"),' in source
    assert "payments = queue(" in source
    path.write_text(fill(source, '[{"body": {"orderId": "o-1"}}]', 'at_most_once_per_key("once", d1_write("DB"), d1_param(0))'))
    assert "staging" == load_scenario(path)["worker"]["env"]
    unknown = run_cli("draft", str(folder), "--env", "prod")
    assert 2 == unknown.code
    assert "there is no environment 'prod'" in unknown.stderr


def test_out_and_the_mcp_tool_write_where_asked_with_paths_from_there(tmp_path, run_cli):
    """--out (and the MCP draft tool's write) put the file elsewhere, its paths relative to its
    own folder; without write the tool writes nothing; an existing file is refused either way."""
    from eutaxy.cli.mcp_tools import call_tool
    from eutaxy.cloudflare import load_scenario
    from eutaxy.cloudflare.worker import prepare_worker

    folder = copy_worker("queue-duplicate-write", tmp_path)
    (tmp_path / "scenarios").mkdir()
    result = run_cli("draft", str(folder), "--out", str(tmp_path / "scenarios"), "--json")
    assert 0 == result.code, result.stderr
    data = json.loads(result.stdout)
    path = tmp_path / "scenarios" / "queue-duplicate-write.sim.py"
    assert (str(path), True) == (data["path"], data["written"])
    source = path.read_text()
    assert 'worker={"entry": "../queue-duplicate-write/worker.ts", "config": "../queue-duplicate-write/wrangler.jsonc"},' in source
    assert 'd1_schema("DB", "../queue-duplicate-write/schema.sql"),' in source
    path.write_text(fill(source, '[{"body": {"orderId": "o-1", "amountCents": 1}}]', 'at_most_once_per_key("once", d1_write("DB"), d1_param(0))'))
    prepare_worker(load_scenario(path))  # the paths resolve from the file's own folder

    answer = call_tool("draft", {"config": str(folder), "write": str(tmp_path / "mcp.sim.py")})
    assert not answer.is_error, answer.text
    assert answer.data["written"] and (tmp_path / "mcp.sim.py").read_text() == answer.data["source"]
    again = call_tool("draft", {"config": str(folder), "write": str(tmp_path / "mcp.sim.py")})
    assert again.is_error and "already exists" in again.text
    unwritten = call_tool("draft", {"config": str(folder)})
    assert not unwritten.is_error and not unwritten.data["written"]
    assert not (folder / "queue-duplicate-write.sim.py").exists()


def walkthrough() -> Path:
    """docs/examples/welcome-emails: the Worker docs/cloudflare.md walks from draft to verdict."""
    for root in (Path.cwd(), PACKAGE.parents[1]):
        if (root / "docs" / "examples" / "welcome-emails").is_dir():
            return root / "docs" / "examples" / "welcome-emails"
    raise AssertionError("docs/examples/welcome-emails is not in the test's files")


#: The walkthrough's fill (docs/cloudflare.md, "Checking an existing project"), as written there.
WALKTHROUGH_EVENTS = (
    '[{"body": {"signupId": "s-1", "email": "ada@example.com"}}, '
    '{"body": {"signupId": "s-2", "email": "bob@example.com"}}]'
)
WALKTHROUGH_INVARIANT = 'at_most_once_per_key("one-welcome-per-address", fetch_call("api.mail.example"), "args.body.to")'


def test_the_docs_walkthrough_goes_from_draft_to_violated_and_to_bounded_once_fixed(tmp_path, run_cli, toolchain):
    """docs/cloudflare.md's walkthrough, step by step: the draft (wrangler.toml, migrations/, a
    var and a .dev.vars secret, the mail API found by its literal URL), the two holes filled,
    VIOLATED on a second welcome email with one fault, then the documented fix BOUNDED."""
    folder = tmp_path / "welcome-emails"
    shutil.copytree(walkthrough(), folder, ignore=shutil.ignore_patterns("*.sim.py", "*_regression_test.py", "__pycache__"))
    path, source = drafted(run_cli, folder, "welcome-emails")
    assert 'd1_schema("DB", "./migrations"),' in source
    assert 'external("api.mail.example", "api.mail.example"),' in source
    assert "signups = queue(" in source
    assert '"secrets"' not in source  # MAIL_API_KEY comes from .dev.vars, FROM_ADDRESS from [vars]
    assert f"# {WALKTHROUGH_INVARIANT.replace('one-welcome-per-address', 'one-call-per-key-api.mail.example')}," in source
    path.write_text(fill(source, WALKTHROUGH_EVENTS, WALKTHROUGH_INVARIANT))
    args = ("--max-runs", "40", "--budget-ms", "120000", "--no-regression", "--json")
    violated = run_cli("check", str(path), *args)
    data = json.loads(violated.stdout)
    assert ("violated", 1) == (data["kind"], violated.code), violated.stderr
    assert ["one-welcome-per-address"] == [item["invariant"] for item in data["violations"]]
    assert "dev-only-key" not in violated.stdout  # the secret's value is shown nowhere

    worker = folder / "src" / "index.ts"
    assert worker.read_text().count('"content-type": "application/json" },') == 1
    worker.write_text(worker.read_text().replace(
        '"content-type": "application/json" },',
        '"content-type": "application/json", "idempotency-key": `welcome/${signupId}` },',
    ))
    path.write_text(path.read_text().replace(
        'external("api.mail.example", "api.mail.example"),',
        'external("api.mail.example", "api.mail.example", dedupe_by="Idempotency-Key"),',
    ))
    bounded = run_cli("check", str(path), *args)
    assert ("bounded", 0) == (json.loads(bounded.stdout)["kind"], bounded.code), bounded.stdout


#: The walkthrough's second scenario: fetch() driven, the produced message consumed in the same run.
WALKTHROUGH_END_TO_END = """\
from eutaxy.cloudflare import at_most_once_per_key, d1_schema, define_scenario, external, fetch_call, http

signups = http([{"method": "POST", "path": "/signups", "body": {"email": "ada@example.com"}}], retries=2)

scenario = define_scenario(
    name="signups-end-to-end",
    worker={"config": "./wrangler.toml"},
    setup=[d1_schema("DB", "./migrations")],
    drive=signups,
    externals=[external("api.mail.example", "api.mail.example")],
    invariants=[at_most_once_per_key("one-welcome-per-address", fetch_call("api.mail.example"), "args.body.to")],
)
"""


def test_the_docs_walkthroughs_end_to_end_scenario_finds_the_bug_through_the_producer(tmp_path, run_cli, toolchain):
    """The sign-up request's send is delivered to the Worker's own consumer in the same run, whose
    welcome email is sent twice after one fault: VIOLATED, the message's invocation under the request's."""
    folder = tmp_path / "welcome-emails"
    shutil.copytree(walkthrough(), folder, ignore=shutil.ignore_patterns("*.sim.py", "*_regression_test.py", "__pycache__"))
    path = folder / "signups-end-to-end.sim.py"
    path.write_text(WALKTHROUGH_END_TO_END)
    result = run_cli("check", str(path), "--max-runs", "40", "--budget-ms", "120000", "--no-regression", "--json")
    data = json.loads(result.stdout)
    assert ("violated", 1) == (data["kind"], result.code), result.stderr
    assert ["one-welcome-per-address"] == [item["invariant"] for item in data["violations"]]
    sends = [(e["invocation"], e["op"]) for e in data["trace"] if e["target"] == "Queue:signups" and e["op"] == "send"]
    assert [("req-1#1", "send")] == sends[:1]
    assert any(e["invocation"].startswith("req-1#1/") for e in data["trace"])  # the consumer ran under the request


# --- a drafted scenario runs: its holes filled mechanically, checked fault-free ---------------

#: The holes a mechanical filler writes, as an author would without reading the Worker: the
#: events (the draft's example, else one plain event), the invariants (every example the draft
#: gives, all at once) and a test value for each secret. Any other hole (the schema, the drive)
#: is something the draft should have found.
FILLABLE_HOLES = frozenset({"events", "invariants", "secrets"})


def example_events(data: dict) -> list[dict] | int:
    """The draft's example events with each empty string a distinct value (``orderId`` ->
    ``"orderId-1"``), as an author writes placeholders in, and every other value as the draft
    gives it; one plain event (``GET /``, an empty message) when the draft gives none; two ticks
    for a cron drive."""
    if data["drive"]["kind"] == "cron":
        return 2  # a cron drive's events hole is its tick count
    events = data["exampleEvents"] or ([{"method": "GET", "path": "/"}] if data["drive"]["kind"] == "http" else [{"body": {}}])

    def filled(value, field, number):
        if value == "":
            return f"{field}-{number}"
        if isinstance(value, dict):
            return {key: filled(item, key, number) for key, item in value.items()}
        if isinstance(value, list):
            return [filled(item, field, number) for item in value]
        return value

    return [filled(event, "", number) for number, event in enumerate(events, start=1)]


def fill_mechanically(data: dict) -> tuple[str, list[str]]:
    """The draft's text with every fillable hole written, and the holes it could not fill."""
    source = data["source"]
    left = [hole["name"] for hole in data["holes"] if hole["name"] not in FILLABLE_HOLES]
    if data["drive"] is not None:
        source = re.sub(r'todo\("events", "[^"]*"\)', json.dumps(example_events(data)), source)
    invariants = ",\n        ".join(line.rstrip(",") for line in data["exampleInvariants"])
    if invariants:
        source = re.sub(r'todo\("invariants", "[^"]*"\)', lambda _: invariants, source)
    else:
        left.append("invariants (the draft gave no example)")
    source = re.sub(r'todo\("secrets", "a test value for env\.(\w+)"\)', lambda m: json.dumps(f"test-{m.group(1).lower()}"), source)
    return source, left


@pytest.mark.parametrize("case", worker_cases())
def test_each_corpus_draft_filled_mechanically_runs_fault_free(case, tmp_path, run_cli, toolchain):
    """The draft's only edits before a first check are its holes: filled mechanically (the
    example events, every example invariant, a test value per secret) and checked without
    faults (the bounds' maxFaultsPerRun set to 0, a handful of runs), the check is BOUNDED:
    not exit 2 (no load error, no invariant refused as vacuous, no handler that never
    returns), and no example invariant broken by a run nothing went wrong in."""
    folder = copy_worker(case, tmp_path)
    result = run_cli("draft", str(folder), "--json")
    assert 0 == result.code, result.stderr
    data = json.loads(result.stdout)
    assert "maxRedeliveries" not in data["source"]  # a queue's redeliveries are its consumer's max_retries
    source, left = fill_mechanically(data)
    assert [] == left, f"holes the draft should have filled itself: {left}"
    assert source.count('"maxFaultsPerRun": 1,') == 1
    path = folder / f"{case}.sim.py"
    path.write_text(source.replace('"maxFaultsPerRun": 1,', '"maxFaultsPerRun": 0,'))
    checked = run_cli("check", str(path), "--max-runs", "3", "--budget-ms", "300000", "--no-regression", "--json")
    verdict = json.loads(checked.stdout) if checked.stdout.strip() else {"kind": "error"}
    summary = {key: verdict.get(key) for key in ("kind", "cause", "violations", "message") if verdict.get(key)}
    assert ("bounded", 0) == (verdict["kind"], checked.code), f"{summary}\n{checked.stderr[-3000:]}"
