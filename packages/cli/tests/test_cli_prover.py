"""``eutaxy report --prover``: the PROVEN rung from the command line, on real files, Node and Z3."""

import json

MODULE = """\
// False on one double only, which no draw is likely to meet: it is no value drawn
// near the module's numbers (those are 1000 and 122456.789, not their sum).
export function score(x: number): number {
  if (x - 1000 === 122456.789) return -1;
  return Math.abs(x) + 1;
}
"""

SPEC = """\
import { forall } from "eutaxy/spec";
import { score } from "./domain.ts";

export const positive = forall(score, {
  when: (x) => !Number.isNaN(x),
  ensures: (x) => score(x) > 0,
});
"""


def _write(tmp_path):
    (tmp_path / "domain.ts").write_text(MODULE)
    (tmp_path / "domain.props.ts").write_text(SPEC)
    return tmp_path


def test_report_prover_smt_refutes_what_sampling_missed(run_cli, tmp_path, monkeypatch):
    """--prover smt --json: the engine's replayed model refutes the claim TESTED held on; exit 1."""
    monkeypatch.setenv("EUTAXY_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "case").mkdir()
    result = run_cli("report", str(_write(tmp_path / "case")), "--prover", "smt", "--json", "--no-cache")
    assert 1 == result.code, result.stderr
    [prop] = json.loads(result.stdout)["modules"][0]["properties"]
    assert ("refuted", "proven") == (prop["kind"], prop["rung"])
    [x] = prop["counterexample"]["args"]
    assert 122456.789 == x - 1000
    assert ["smt"] == [e["engine"]["name"] for e in prop["engines"]]


def test_report_prover_all_names_the_engine_that_is_not_there(run_cli, tmp_path, monkeypatch):
    """--prover all runs smt and lean; lean, not installed here, is UNKNOWN (unavailable) among the engines' answers."""
    monkeypatch.setenv("EUTAXY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ELAN_HOME", str(tmp_path / "no-elan"))
    (tmp_path / "case").mkdir()
    result = run_cli("report", str(_write(tmp_path / "case")), "--prover", "all", "--json")
    [prop] = json.loads(result.stdout)["modules"][0]["properties"]
    engines = {e["engine"]["name"]: e for e in prop["engines"]}
    assert ["lean", "smt"] == sorted(engines)
    assert ("unknown", ["unavailable"]) == (engines["lean"]["kind"], engines["lean"]["reasons"])
    assert "eutaxy prover install lean" in engines["lean"]["detail"]


def test_prover_install_smt_reports_what_prover_status_reports(run_cli, tmp_path, monkeypatch):
    """`prover install smt` finds the Z3 the engine uses (nothing fetched) and names the place prover_status names."""
    from eutaxy.cli.mcp_tools import call_tool

    monkeypatch.setenv("EUTAXY_CACHE_DIR", str(tmp_path))
    result = run_cli("prover", "install", "smt", "--json")
    assert 0 == result.code, result.stderr
    installed = json.loads(result.stdout)
    assert {"already": True, "engine": "smt", "version": "5.4.1.0"} == {
        k: installed[k] for k in ("already", "engine", "version")}
    smt = call_tool("prover_status", {}).data["toolchains"]["smt"]
    assert (True, installed["location"], installed["source"]) == (smt["installed"], smt["location"], smt["source"])


def test_prover_install_lean_refuses_a_wrong_digest_from_an_offline_copy(run_cli, tmp_path, monkeypatch):
    """`prover install lean --from DIR`: a file of the table's name with other bytes is deleted; nothing installed."""
    from eutaxy.prover.toolchains import platform_key
    from eutaxy.prover_lean.toolchain import release_files

    monkeypatch.setenv("EUTAXY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ELAN_HOME", str(tmp_path / "no-elan"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    release = release_files()[platform_key()]
    offline = tmp_path / "offline"
    offline.mkdir()
    (offline / release.file).write_bytes(b"not the release")
    result = run_cli("prover", "install", "lean", "--from", str(offline), "--json")
    assert 2 == result.code
    assert f"SHA-256 mismatch for {release.file}" in result.stderr and "nothing was installed" in result.stderr
    assert not (tmp_path / "cache" / "toolchains" / "lean").exists()
    assert [] == list((tmp_path / "cache" / "downloads").iterdir())
    status = run_cli("prover", "install", "lean", "--help")
    assert 0 == status.code


def test_prover_help_promises_only_what_runs(run_cli, capsys):
    """`--help` of report and check says lean answers UNKNOWN unavailable until installed, as docs/cli.md does."""
    for command in ("report", "check"):
        result = run_cli(command, "--help")
        text = " ".join((result.stdout + capsys.readouterr().out).split())
        assert 0 == result.code
        assert "smt (Z3), lean (Lean 4; UNKNOWN unavailable until `eutaxy prover install lean`) or all" in text, command
