"""The static Lean audit: the repository passes it, and each kind of defect is caught."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from lejepa_wm import lean_audit
from lejepa_wm.claims import Claim
from lejepa_wm.lean_audit import audit, read_ledger

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

CLAIMS = (Claim("X1", "t", "s", "theorem", ("LeJEPA.main_result",), None),)


def make_tree(root: Path) -> Path:
    """A minimal Lean project that passes every check."""
    (root / "LeJEPAProofs").mkdir()
    (root / "tests" / "numerics").mkdir(parents=True)
    (root / "lean-toolchain").write_text("leanprover/lean4:v4.29.0\n")
    (root / "lakefile.lean").write_text(LAKEFILE_TEXT)
    (root / "LeJEPAProofs.lean").write_text("import LeJEPAProofs.Fact\nimport LeJEPAProofs.Main\n")
    (root / "LeJEPAProofs" / "Fact.lean").write_text(GOOD_AXIOM_FILE)
    (root / "LeJEPAProofs" / "Main.lean").write_text(GOOD_THEOREM_FILE)
    (root / "LeJEPAProofs" / "AXIOMS.md").write_text(LEDGER_TEXT)
    (root / "tests" / "numerics" / "test_fact.py").write_text("def test_axiom_fact():\n    assert 1 + 1 == 2\n")
    return root


def checks_failed(root: Path) -> set[str]:
    return {finding.check for finding in audit(root, CLAIMS)}


def test_minimal_tree_passes(tmp_path: Path) -> None:
    assert audit(make_tree(tmp_path), CLAIMS) == []


def test_ledger_is_parsed(tmp_path: Path) -> None:
    rows = read_ledger(make_tree(tmp_path))
    assert [(r.axiom, r.file, r.tests) for r in rows] == [
        ("LeJEPA.fact_holds", "LeJEPAProofs/Fact.lean", ("tests/numerics/test_fact.py::test_axiom_fact",))]


@pytest.mark.parametrize("word", ["sorry", "admit", "native_decide"])
def test_forbidden_words_are_caught(tmp_path: Path, word: str) -> None:
    root = make_tree(tmp_path)
    main = root / "LeJEPAProofs" / "Main.lean"
    main.write_text(main.read_text().replace(":= rfl", f":= by {word}"))
    assert "forbidden" in checks_failed(root)


def test_undocumented_axiom_is_caught(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    main = root / "LeJEPAProofs" / "Main.lean"
    main.write_text(main.read_text().replace("end LeJEPA", "axiom extra : 1 = 1\n\nend LeJEPA"))
    found = audit(root, CLAIMS)
    assert any(f.check == "ledger" and "LeJEPA.extra" in f.where for f in found)
    assert any(f.check == "axiom-docs" and "no doc comment" in f.problem for f in found)


def test_ledger_row_without_axiom_is_caught(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    fact = root / "LeJEPAProofs" / "Fact.lean"
    fact.write_text(fact.read_text().replace("axiom fact_holds", "theorem fact_holds").replace(": x = x", ": x = x := rfl"))
    assert "ledger" in checks_failed(root)


def test_missing_python_test_is_caught(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    (root / "tests" / "numerics" / "test_fact.py").write_text("def test_something_else():\n    pass\n")
    found = audit(root, CLAIMS)
    assert any(f.check == "axiom-docs" and "does not exist" in f.problem for f in found)


def test_axiom_over_project_record_is_caught(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    fact = root / "LeJEPAProofs" / "Fact.lean"
    fact.write_text(fact.read_text().replace("(x : Fin n → ℝ) : x = x", "(r : Record) : r.value = 0"))
    assert "free-records" in checks_failed(root)


def test_missing_registry_declaration_is_caught(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    claims = (Claim("X2", "t", "s", "theorem", ("LeJEPA.does_not_exist",), None),)
    assert [f.check for f in audit(root, claims)] == ["registry"]


def test_missing_print_axioms_is_caught(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    main = root / "LeJEPAProofs" / "Main.lean"
    main.write_text(main.read_text().replace("#print axioms LeJEPA.main_result", ""))
    assert checks_failed(root) == {"registry"}


CONFIG_FAULTS = {
    "a toolchain other than the pin": ("lean-toolchain", lambda text: "leanprover/lean4:v4.31.0\n"),
    "a Mathlib revision other than the pin": ("lakefile.lean", lambda text: text.replace('"v4.29.0"', '"v4.31.0"')),
    "autoImplicit on": ("lakefile.lean", lambda text: text.replace("autoImplicit, false", "autoImplicit, true")),
    "a second Lake configuration": ("lakefile.toml", lambda text: 'name = "LeJEPAProofs"\n'),
    "no lakefile": ("lakefile.lean", None),
}


@pytest.mark.parametrize("fault", CONFIG_FAULTS)
def test_a_lake_configuration_fault_is_caught(tmp_path: Path, fault: str) -> None:
    root = make_tree(tmp_path)
    name, edit = CONFIG_FAULTS[fault]
    path = root / name
    if edit is None:
        path.unlink()
    else:
        path.write_text(edit(path.read_text() if path.exists() else ""))
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
    main = root / "LeJEPAProofs" / "Main.lean"
    main.write_text(main.read_text() + "-- " + "x" * 120 + "\n")
    assert checks_failed(root) == {"style"}


def test_commented_out_declarations_are_ignored(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    main = root / "LeJEPAProofs" / "Main.lean"
    main.write_text(main.read_text() + "/- axiom hidden : False -/\n-- axiom hidden2 : False\n")
    assert audit(root, CLAIMS) == []


def test_repository_lean_sources_pass_audit(capsys: pytest.CaptureFixture[str]) -> None:
    """The real Lean project: every axiom in the ledger, tested numerically, every claim declared."""
    status = lean_audit.main(argparse.Namespace(root=REPO))
    out = capsys.readouterr().out
    assert status == 0, out
