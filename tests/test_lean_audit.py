"""The static Lean audit: the repository passes it, each kind of defect and of bypass is caught,
and the workflow's reading of Lean's ``#print axioms`` output fails closed."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from lejepa_wm import lean_audit
from lejepa_wm.claims import Claim
from lejepa_wm.commands import audit_lean
from lejepa_wm.lean_audit import AxiomPin, audit, check_axiom_log, probe_source, read_ledger

REPO = Path(__file__).resolve().parents[1]

GOOD_AXIOM_FILE = '''/-! # An assumed fact -/
namespace LeJEPA

/-- A classical fact.
Numerical check: `tests/numerics/test_fact.py::test_axiom_fact` -/
axiom fact_holds (n : ℕ) (x : Fin n → ℝ) : x = x

end LeJEPA
'''

GOOD_THEOREM_FILE = '''/-! # A theorem -/
namespace LeJEPA

structure Record where
  value : ℝ

theorem main_result (n : ℕ) : n = n := rfl

end LeJEPA
'''

GOOD_AUDIT_FILE = '''import LeJEPAProofs.Main

/-- info: 'LeJEPA.main_result' depends on axioms: [propext] -/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.main_result
'''

LEDGER_TEXT = '''# Axioms

| Axiom | File | Statement | Reference | Python test |
|---|---|---|---|---|
| `LeJEPA.fact_holds` | `LeJEPAProofs/Fact.lean` | x = x | folklore | `tests/numerics/test_fact.py::test_axiom_fact` |
'''

LAKEFILE_TEXT = '''import Lake
open Lake DSL

package LeJEPAProofs where
  leanOptions := #[⟨`autoImplicit, false⟩]

require mathlib from git
  "https://github.com/leanprover-community/mathlib4.git" @ "v4.29.0"

@[default_target]
lean_lib LeJEPAProofs
'''

def manifest_text(**mathlib: object) -> str:
    """A Lake manifest locking Mathlib as ``LAKEFILE_TEXT`` requires it and one inherited package."""
    entry = {"url": "https://github.com/leanprover-community/mathlib4.git", "type": "git", "subDir": None,
             "scope": "", "rev": "8a178386ffc0f5fef0b77738bb5449d50efeea95", "name": "mathlib",
             "manifestFile": "lake-manifest.json", "inputRev": "v4.29.0", "inherited": False,
             "configFile": "lakefile.lean", **mathlib}
    batteries = {**entry, "url": "https://github.com/leanprover-community/batteries", "name": "batteries",
                 "rev": "756e3321fd3b02a85ffda19fef789916223e578c", "inputRev": "main", "inherited": True}
    return json.dumps({"version": "1.1.0", "packagesDir": ".lake/packages", "packages": [entry, batteries],
                       "name": "LeJEPAProofs", "lakeDir": ".lake"})


ROOT_MODULE = "import LeJEPAProofs.Fact\nimport LeJEPAProofs.Main\nimport LeJEPAProofs.Audit\n"

CLAIMS = (Claim("X1", "t", "s", "theorem", ("LeJEPA.main_result",), None),)


def make_tree(root: Path) -> Path:
    """A minimal Lean project that passes every check."""
    (root / "LeJEPAProofs").mkdir()
    (root / "tests" / "numerics").mkdir(parents=True)
    (root / "lean-toolchain").write_text("leanprover/lean4:v4.29.0\n")
    (root / "lakefile.lean").write_text(LAKEFILE_TEXT)
    (root / "lake-manifest.json").write_text(manifest_text())
    (root / "LeJEPAProofs.lean").write_text(ROOT_MODULE)
    (root / "LeJEPAProofs" / "Fact.lean").write_text(GOOD_AXIOM_FILE)
    (root / "LeJEPAProofs" / "Main.lean").write_text(GOOD_THEOREM_FILE)
    (root / "LeJEPAProofs" / "Audit.lean").write_text(GOOD_AUDIT_FILE)
    (root / "LeJEPAProofs" / "AXIOMS.md").write_text(LEDGER_TEXT)
    (root / "tests" / "numerics" / "test_fact.py").write_text("def test_axiom_fact():\n    assert 1 + 1 == 2\n")
    return root


def checks_failed(root: Path) -> set[str]:
    return {finding.check for finding in audit(root, CLAIMS)}


def edit(root: Path, name: str, change: Callable[[str], str]) -> None:
    path = root / "LeJEPAProofs" / name
    path.write_text(change(path.read_text()))


def add_to_main(text: str) -> Callable[[str], str]:
    """An edit that inserts ``text`` into ``Main.lean``, inside the namespace."""
    return lambda source: source.replace("end LeJEPA", text + "\nend LeJEPA")


def test_minimal_tree_passes(tmp_path: Path) -> None:
    assert audit(make_tree(tmp_path), CLAIMS) == []


def test_ledger_is_parsed(tmp_path: Path) -> None:
    rows = read_ledger(make_tree(tmp_path))
    assert [(r.axiom, r.file, r.tests) for r in rows] == [
        ("LeJEPA.fact_holds", "LeJEPAProofs/Fact.lean", ("tests/numerics/test_fact.py::test_axiom_fact",))]


@pytest.mark.parametrize("word", ["sorry", "admit", "native_decide"])
def test_forbidden_words_are_caught(tmp_path: Path, word: str) -> None:
    root = make_tree(tmp_path)
    edit(root, "Main.lean", lambda text: text.replace(":= rfl", f":= by {word}"))
    assert "forbidden" in checks_failed(root)


def test_undocumented_axiom_is_caught(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    edit(root, "Main.lean", add_to_main("axiom extra : 1 = 1\n"))
    found = audit(root, CLAIMS)
    assert any(f.check == "ledger" and "LeJEPA.extra" in f.where for f in found)
    assert any(f.check == "axiom-docs" and "no doc comment" in f.problem for f in found)


def test_ledger_row_without_axiom_is_caught(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    edit(root, "Fact.lean",
         lambda text: text.replace("axiom fact_holds", "theorem fact_holds").replace(": x = x", ": x = x := rfl"))
    assert "ledger" in checks_failed(root)


def test_missing_python_test_is_caught(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    (root / "tests" / "numerics" / "test_fact.py").write_text("def test_something_else():\n    pass\n")
    found = audit(root, CLAIMS)
    assert any(f.check == "axiom-docs" and "does not exist" in f.problem for f in found)


def test_axiom_over_project_record_is_caught(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    edit(root, "Fact.lean", lambda text: text.replace("(x : Fin n → ℝ) : x = x", "(r : Record) : r.value = 0"))
    assert "free-records" in checks_failed(root)


def test_missing_registry_declaration_is_caught(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    claims = (Claim("X2", "t", "s", "theorem", ("LeJEPA.does_not_exist",), None),)
    assert [f.check for f in audit(root, claims)] == ["registry"]


def test_missing_pin_is_caught(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    (root / "LeJEPAProofs" / "Audit.lean").write_text("import LeJEPAProofs.Main\n")
    assert checks_failed(root) == {"registry"}


CONFIG_FAULTS = {
    "a toolchain other than the pin": ("lean-toolchain", lambda text: "leanprover/lean4:v4.31.0\n"),
    "a Mathlib revision other than the pin": ("lakefile.lean", lambda text: text.replace('"v4.29.0"', '"v4.31.0"')),
    "autoImplicit on": ("lakefile.lean", lambda text: text.replace("autoImplicit, false", "autoImplicit, true")),
    "a debug option": ("lakefile.lean", lambda text: text.replace(
        "⟨`autoImplicit, false⟩", "⟨`autoImplicit, false⟩, ⟨`debug.skipKernelTC, true⟩")),
    "a second Lake configuration": ("lakefile.toml", lambda text: 'name = "LeJEPAProofs"\n'),
    "no lakefile": ("lakefile.lean", None),
    "no manifest": ("lake-manifest.json", None),
    "a manifest that is not JSON": ("lake-manifest.json", lambda text: text[:-5]),
    "Mathlib locked at another tag": ("lake-manifest.json", lambda text: manifest_text(inputRev="v4.31.0")),
    "Mathlib locked from another URL": ("lake-manifest.json",
                                        lambda text: manifest_text(url="https://example.org/mathlib4.git")),
    "Mathlib at a branch, not a revision": ("lake-manifest.json", lambda text: manifest_text(rev="master")),
    "a dependency at a branch, not a revision": ("lake-manifest.json", lambda text: text.replace(
        "756e3321fd3b02a85ffda19fef789916223e578c", "main")),
}


@pytest.mark.parametrize("fault", CONFIG_FAULTS)
def test_a_lake_configuration_fault_is_caught(tmp_path: Path, fault: str) -> None:
    root = make_tree(tmp_path)
    name, change = CONFIG_FAULTS[fault]
    path = root / name
    if change is None:
        path.unlink()
    else:
        path.write_text(change(path.read_text() if path.exists() else ""))
    assert checks_failed(root) == {"config"}


def test_docs_naming_missing_declaration_is_caught(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    (root / "docs").mkdir()
    (root / "docs" / "THEORY.md").write_text("T1 is `LeJEPA.main_result`; T9 is `LeJEPA.no_such_theorem`.\n")
    found = audit(root, CLAIMS)
    assert [(f.check, f.where) for f in found] == [("docs", "docs/THEORY.md:1")]
    assert "LeJEPA.no_such_theorem" in found[0].problem


def test_readme_naming_existing_declarations_passes(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    (root / "README.md").write_text("| T1 | `LeJEPA.main_result` | `LeJEPA.fact_holds` |\n")
    assert audit(root, CLAIMS) == []


def test_long_line_is_caught(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    edit(root, "Main.lean", lambda text: text + "-- " + "x" * 120 + "\n")
    assert checks_failed(root) == {"style"}


def test_commented_out_declarations_are_ignored(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    edit(root, "Main.lean", lambda text: text + "/- axiom hidden : False /- sorry -/ -/\n-- axiom hidden2 : False\n"
                                             '/-- A doc comment may say sorry. -/\ndef note : String := "sorry"\n')
    assert audit(root, CLAIMS) == []


# Each construction below hides a defect from a line-based audit; the audit, which reads code with its
# comments and literals masked, sees it.
BYPASSES = {
    "a command after another on the same line": (
        "Main.lean", lambda text: text.replace(":= rfl", ":= rfl axiom hidden : False"), {"ledger"}),
    "set_option … in before a declaration": (
        "Main.lean", add_to_main("set_option maxHeartbeats 400000 in axiom hidden : False\n"), {"ledger"}),
    "a character literal that opens a string for a line-based masker": (
        "Main.lean", add_to_main("def quote : Char := '\"'\ndef opener : String := \"/-\"\n"
                                 "axiom hidden : False\ndef closer : String := \"-/\"\n"), {"ledger"}),
    "a raw string literal that ends in a backslash": (
        "Main.lean", add_to_main('def slash : String := r"\\"\ndef opener : String := "/-"\n'
                                 'axiom hidden : False\ndef closer : String := "-/"\n'), {"ledger"}),
    "sorryAx": ("Main.lean", lambda text: text.replace(":= rfl", ":= sorryAx _ false"), {"forbidden"}),
    "sorryAx in a quoted name": ("Main.lean", lambda text: text.replace(":= rfl", ":= «sorryAx» _ false"),
                                 {"forbidden"}),
    "sorryAx inside an interpolated string": (
        "Main.lean", add_to_main('def text : String := s!"{(sorryAx Nat false)}"\n'), {"forbidden"}),
    "a macro that emits an axiom": (
        "Main.lean", add_to_main('macro "hide_axiom" : command => `(axiom hidden : False)\nhide_axiom\n'),
        {"meta"}),
    "an elab that can add declarations": (
        "Main.lean", add_to_main('elab "hide" : command => pure ()\nhide\n'), {"meta"}),
    "an elaborator attribute": (
        "Main.lean", add_to_main("@[command_elab Lean.Parser.Command.declaration]\n"
                                 "def hijack : Lean.Elab.Command.CommandElab := fun _ => pure ()\n"), {"meta"}),
    "set_option debug.skipKernelTC": (
        "Main.lean", add_to_main("set_option debug.skipKernelTC true\n"), {"forbidden"}),
    "run_cmd outside the audit file": ("Main.lean", add_to_main("run_cmd pure ()\n"), {"meta"}),
    "#eval": ("Main.lean", add_to_main("#eval 1 + 1\n"), {"meta"}),
    "#exit": ("Main.lean", add_to_main("#exit\n"), {"forbidden"}),
    "opaque": ("Main.lean", add_to_main("opaque secret : ℕ\n"), {"forbidden"}),
    "unsafe": ("Main.lean", add_to_main("unsafe def trusted : ℕ := 0\n"), {"forbidden"}),
    "implemented_by": ("Main.lean", add_to_main("@[implemented_by id] def g (n : ℕ) : ℕ := n\n"), {"forbidden"}),
    "extern": ("Main.lean", add_to_main('@[extern "c_fn"] def h (n : ℕ) : ℕ := n\n'), {"forbidden"}),
    "decide +native": (
        "Main.lean", add_to_main("theorem t : 1 + 1 = 2 := by decide +native\n"), {"forbidden"}),
    "an unpinned main theorem": (
        "Audit.lean", lambda text: "import LeJEPAProofs.Main\n\n#print axioms LeJEPA.main_result\n",
        {"registry"}),
    "a pin that admits sorryAx": (
        "Audit.lean", lambda text: text.replace("[propext]", "[propext, sorryAx]"), {"gate"}),
    "a pin whose docstring names another declaration": (
        "Audit.lean", lambda text: text.replace("'LeJEPA.main_result'", "'LeJEPA.fact_holds'"), {"gate"}),
    "an audit file the build does not import": (
        "../LeJEPAProofs.lean", lambda text: text.replace("import LeJEPAProofs.Audit\n", ""), {"gate"}),
    "a module the build does not import": (
        "Orphan.lean", lambda text: "namespace LeJEPA\n\ntheorem orphan : 1 = 1 := rfl\n\nend LeJEPA\n",
        {"sources"}),
}


@pytest.mark.parametrize("bypass", BYPASSES)
def test_a_bypass_is_caught(tmp_path: Path, bypass: str) -> None:
    root = make_tree(tmp_path)
    name, change, expected = BYPASSES[bypass]
    path = root / "LeJEPAProofs" / name
    path.write_text(change(path.read_text() if path.exists() else ""))
    assert expected <= checks_failed(root)


def test_run_cmd_is_allowed_in_the_audit_file(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    edit(root, "Audit.lean", lambda text: text + "\nopen Lean in\nrun_cmd do\n  let _ ← collectAxioms ``Nat\n")
    assert audit(root, CLAIMS) == []


def test_an_axiom_after_set_option_in_is_read_with_its_doc_comment(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    edit(root, "Fact.lean", lambda text: text.replace("/-- A", "set_option maxHeartbeats 4 in\n/-- A")
         .replace("axiom fact_holds", "@[simp] private axiom fact_holds"))
    assert audit(root, CLAIMS) == []
    edit(root, "Fact.lean", lambda text: text.replace("::test_axiom_fact", "::test_other"))
    assert {(f.check, f.where) for f in audit(root, CLAIMS)} == {("axiom-docs", "LeJEPAProofs/Fact.lean:7")}


# Each construction below holds the word sorry where it is no code (a comment, a literal, part of an
# identifier); the audit must pass it, and must still see code that follows it.
HIDING = {
    "a nested block comment": "/- outer /- inner -/ sorry -/",
    "a doc comment": "/-- A doc comment may say sorry. -/\ndef documented : ℕ := 0",
    "a line comment": "-- sorry",
    "a string with an escaped quote": 'def s : String := "a\\"sorry"',
    "a character literal of a quote": "def c : Char := '\\''\ndef s : String := \"sorry\"",
    "a raw string with hashes": 'def r : String := r#"a"sorry"#',
    "the text of an interpolated string": 'def i : String := s!"sorry {"}" ++ "sorry"} {1 + 1}"',
    "a name literal": "def n : Lean.Name := `sorry",
    "an identifier that contains a forbidden word": "theorem not_sorry' : True := trivial",
    "a quoted name with a space": "def «sorry free» : ℕ := 0",
}


@pytest.mark.parametrize("hiding", HIDING)
def test_a_word_in_a_comment_or_literal_is_no_code(tmp_path: Path, hiding: str) -> None:
    root = make_tree(tmp_path)
    edit(root, "Main.lean", add_to_main(HIDING[hiding] + "\n"))
    assert audit(root, CLAIMS) == []
    edit(root, "Main.lean", add_to_main("theorem t : True := by sorry\n"))
    assert checks_failed(root) == {"forbidden"}


PINS = (AxiomPin("LeJEPA.forward_identifiability",
                 ("propext", "Classical.choice", "LeJEPA.hermite_mehler_decomposition", "Quot.sound"), 1),
        AxiomPin("LeJEPA.ky_fan_diagonal", ("propext", "Classical.choice", "Quot.sound"), 2))

WRAPPED_LOG = """AxiomProbe.lean:3:0: info: 'LeJEPA.forward_identifiability' depends on axioms: [propext,
  Classical.choice,
  LeJEPA.hermite_mehler_decomposition,
  Quot.sound]
AxiomProbe.lean:4:0: info: 'LeJEPA.ky_fan_diagonal' depends on axioms: [propext, Classical.choice, Quot.sound]
"""


def test_probe_prints_every_pin() -> None:
    assert probe_source(PINS).splitlines() == [
        "import LeJEPAProofs", "", "#print axioms LeJEPA.forward_identifiability",
        "#print axioms LeJEPA.ky_fan_diagonal"]


def test_axiom_log_with_wrapped_lists_is_read_whole() -> None:
    assert check_axiom_log(WRAPPED_LOG, PINS) == []


@pytest.mark.parametrize("log", [
    WRAPPED_LOG.replace("Classical.choice,\n  LeJEPA", "Classical.choice,\n  sorryAx,\n  LeJEPA"),
    WRAPPED_LOG.split("AxiomProbe.lean:4")[0],
    WRAPPED_LOG.replace("LeJEPA.hermite_mehler_decomposition,\n", ""),
    "",
])
def test_axiom_log_fails_closed(log: str) -> None:
    assert check_axiom_log(log, PINS) != []


def run_main(*arguments: str) -> int:
    parser = argparse.ArgumentParser()
    audit_lean.add_arguments(parser)
    return audit_lean.main(parser.parse_args(list(arguments)))


def test_repository_lean_sources_pass_audit(capsys: pytest.CaptureFixture[str]) -> None:
    """The real Lean project: every axiom in the ledger, tested numerically, every claim pinned."""
    status = run_main("--root", str(REPO))
    out = capsys.readouterr().out
    assert status == 0, out


def test_the_lean_workflow_runs_the_audit_with_the_standard_library_alone() -> None:
    """``python -m lejepa_wm.commands.audit_lean`` from the repository, without site-packages (no numpy, no torch),
    as the Lean workflow runs it on a bare Python."""
    result = subprocess.run([sys.executable, "-S", "-m", "lejepa_wm.commands.audit_lean"], cwd=REPO,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "audit-lean: OK" in result.stdout, result.stderr


def test_repository_probe_covers_every_pin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    probe = tmp_path / "AxiomProbe.lean"
    assert run_main("--root", str(REPO), "--write-probe", str(probe)) == 0
    printed = [line.removeprefix("#print axioms ") for line in probe.read_text().splitlines()[2:]]
    pins = lean_audit.audit_with_pins(REPO, lean_audit.CLAIMS)[0]
    pinned_lines = REPO.joinpath(lean_audit.AUDIT_FILE).read_text(encoding="utf-8").splitlines()
    assert printed == [pin.name for pin in pins]
    assert len(pins) == sum(line.startswith("#guard_msgs") for line in pinned_lines)
    capsys.readouterr()
