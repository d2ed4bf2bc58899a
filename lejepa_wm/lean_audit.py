"""``lejepa-wm audit-lean``: static audit of the Lean sources, for machines without a Lean toolchain.

It cannot tell whether the proofs compile (users check that with
``lake exe cache get && lake build``); it checks what a reader must be able to
trust before compiling:

- ``forbidden``: no ``sorry``, ``admit`` or ``native_decide`` anywhere in the sources;
- ``ledger``: the axioms declared in the sources are exactly those listed in
  ``LeJEPAProofs/AXIOMS.md``, each in the file the ledger names;
- ``axiom-docs``: every axiom has a doc comment naming at least one Python test
  (``tests/....py::test_name``), the same tests as its ledger row, and each test exists;
- ``free-records``: no axiom's statement mentions a structure, class or inductive
  type defined in this project (the pattern by which an axiom about records with
  free fields becomes false and the whole system inconsistent);
- ``registry``: every Lean declaration named by the claim registry exists and, unless it
  is itself an axiom, has a ``#print axioms`` line;
- ``docs``: every ``LeJEPA.*`` declaration named in the README, ``docs/THEORY.md`` and the
  ledger exists in the sources (so the prose cannot drift from the Lean statements' names);
- ``config``: the Lake configuration is the single file ``lakefile.lean``, it pins Mathlib to
  the release named in ``lean-toolchain``, and ``autoImplicit`` is off;
- ``style``: no line longer than 100 characters.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from lejepa_wm.claims import CLAIMS, Claim

LEAN_DIR = "LeJEPAProofs"
LEDGER = Path(LEAN_DIR) / "AXIOMS.md"
LEDGER_HEADER = ("Axiom", "File", "Statement", "Reference", "Python test")
FORBIDDEN = re.compile(r"\b(sorry|admit|native_decide)\b")
TEST_ID = re.compile(r"tests/[\w/.-]+\.py::test_\w+")
PRINT_AXIOMS = re.compile(r"^\s*#print\s+axioms\s+(\S+)", re.M)
LEAN_NAME = re.compile(r"`(LeJEPA\.[A-Za-z_][\w.']*)`")
DOC_FILES = ("README.md", "docs/THEORY.md", str(LEDGER))
LAKEFILE = "lakefile.lean"
MATHLIB_REQUIRE = re.compile(r'require\s+mathlib\s+from\s+git\s+"[^"]+"\s*@\s*"([^"]+)"')
AUTO_IMPLICIT_OFF = re.compile(r"⟨`autoImplicit,\s*false⟩")
MAX_LINE = 100
TYPE_KEYWORDS = ("structure", "class", "inductive")


# Reading Lean sources. Not a Lean parser: it understands line comments ``--``, nested block comments
# ``/- -/``, doc comments ``/-- -/`` and module docs ``/-! -/``, ``namespace``/``section``/``end`` blocks and
# declaration headers (``theorem``, ``lemma``, ``def``, ``axiom``, ``structure``, ...) with their modifiers and
# attributes, following the layout conventions Mathlib-style sources follow (one declaration keyword at the
# start of a line).

DECLARATION_KEYWORDS = ("theorem", "lemma", "def", "axiom", "structure", "abbrev", "instance",
                        "class", "inductive", "opaque")
_MODIFIERS = r"(?:(?:private|protected|noncomputable|partial|unsafe|nonrec)\s+)*"
_ATTRIBUTES = r"(?:@\[[^\]]*\]\s*)*"
DECLARATION_PATTERN = re.compile(
    rf"^[ \t]*{_ATTRIBUTES}{_MODIFIERS}({'|'.join(DECLARATION_KEYWORDS)})\s+([^\s:({{\[]+)", re.M)
SCOPE_PATTERN = re.compile(r"^[ \t]*(?:noncomputable[ \t]+)?(namespace|section|end)\b[ \t]*([^\s-]*)", re.M)


@dataclass(frozen=True)
class Declaration:
    """One declaration: keyword, fully qualified name, file, header text and doc comment."""

    keyword: str
    name: str
    path: Path
    line: int
    signature: str
    docstring: str | None


def mask_comments(source: str) -> tuple[str, dict[int, str]]:
    """Blank out every comment (keeping newlines) and collect doc comments.

    Returns the masked text and a map from the offset just after each doc
    comment ``/-- ... -/`` to its text. Nested block comments are handled.
    """
    out = list(source)
    docs: dict[int, str] = {}
    i, n = 0, len(source)
    in_string = False
    while i < n:
        ch = source[i]
        if in_string:
            in_string = ch != '"'
            i += 2 if ch == "\\" else 1
        elif ch == '"':
            in_string = True
            i += 1
        elif source.startswith("--", i):
            end = source.find("\n", i)
            end = n if end == -1 else end
            out[i:end] = " " * (end - i)
            i = end
        elif source.startswith("/-", i):
            depth, k = 1, i + 2
            while k < n and depth:
                if source.startswith("/-", k):
                    depth, k = depth + 1, k + 2
                elif source.startswith("-/", k):
                    depth, k = depth - 1, k + 2
                else:
                    k += 1
            if source.startswith("/--", i):
                docs[k] = source[i + 3:k - 2].strip()
            out[i:k] = [c if c == "\n" else " " for c in source[i:k]]
            i = k
        else:
            i += 1
    return "".join(out), docs


def _namespace_at(masked: str, offset: int) -> str:
    """The namespace prefix in force at ``offset`` (sections do not add a prefix)."""
    stack: list[tuple[str, str]] = []
    for match in SCOPE_PATTERN.finditer(masked, 0, offset):
        kind, name = match.group(1), match.group(2)
        if kind in ("namespace", "section"):
            stack.append((kind, name))
        elif stack:
            stack.pop()
    return ".".join(name for kind, name in stack if kind == "namespace" and name)


def _attached_doc(masked: str, docs: dict[int, str], offset: int) -> str | None:
    """The doc comment ending right before ``offset`` (only white space between), if any."""
    candidates = [end for end in docs if end <= offset and not masked[end:offset].strip()]
    return docs[max(candidates)] if candidates else None


def declarations(path: Path) -> list[Declaration]:
    """All declarations of one Lean file, with qualified names, signatures and doc comments."""
    source = path.read_text(encoding="utf-8")
    masked, docs = mask_comments(source)
    matches = list(DECLARATION_PATTERN.finditer(masked))
    result = []
    for index, match in enumerate(matches):
        keyword, raw_name = match.groups()
        prefix = "" if raw_name.startswith("_root_.") else _namespace_at(masked, match.start())
        name = f"{prefix}.{raw_name}" if prefix else raw_name.removeprefix("_root_.")
        end = matches[index + 1].start() if index + 1 < len(matches) else len(masked)
        scope = SCOPE_PATTERN.search(masked, match.end(), end)
        signature = masked[match.end():scope.start() if scope else end]
        signature = signature.split(":=")[0] if keyword != "structure" else signature
        docstring = _attached_doc(masked, docs, match.start())
        result.append(Declaration(keyword, name, path, source.count("\n", 0, match.start()) + 1,
                                  " ".join(signature.split()), docstring))
    return result


@dataclass(frozen=True)
class Finding:
    """One audit failure: which check, where, and what is wrong."""

    check: str
    where: str
    problem: str

    def __str__(self) -> str:
        return f"[{self.check}] {self.where}: {self.problem}"


@dataclass(frozen=True)
class LedgerRow:
    """One row of the axiom ledger."""

    axiom: str
    file: str
    tests: tuple[str, ...]


def _sources(root: Path) -> tuple[list[Path], list[Declaration]]:
    """The project's Lean sources (the root module, then everything under ``LeJEPAProofs/``) and their
    declarations."""
    top = root / f"{LEAN_DIR}.lean"
    files = ([top] if top.exists() else []) + sorted((root / LEAN_DIR).rglob("*.lean"))
    return files, [d for path in files for d in declarations(path)]


def read_ledger(root: Path) -> list[LedgerRow]:
    """Parse the ledger's markdown table (header ``| Axiom | File | Statement | Reference | Python test |``)."""
    path = root / LEDGER
    if not path.exists():
        raise FileNotFoundError(f"axiom ledger {LEDGER} is missing")
    rows: list[LedgerRow] = []
    in_table = False
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = tuple(cell.strip() for cell in line.strip().strip("|").split("|"))
        is_row = line.strip().startswith("|")
        if not is_row or cells == LEDGER_HEADER:  # a table ends at a line that is not a row; ours starts at its header
            in_table = is_row
            continue
        if not in_table or set("".join(cells)) <= set("-: "):
            continue
        if len(cells) != len(LEDGER_HEADER):
            raise ValueError(f"ledger row has {len(cells)} cells, expected {len(LEDGER_HEADER)}: {line!r}")
        rows.append(LedgerRow(cells[0].strip("`"), cells[1].strip("`"), tuple(TEST_ID.findall(cells[4]))))
    return rows


def test_exists(root: Path, test_id: str) -> bool:
    """Whether ``tests/x.py::test_name`` names a test function defined in that file."""
    file, _, name = test_id.partition("::")
    path = root / file
    return path.exists() and re.search(rf"^\s*def {re.escape(name)}\s*\(", path.read_text(encoding="utf-8"),
                                       re.M) is not None


def _numbered_lines(root: Path, paths: Sequence[Path]) -> Iterator[tuple[str, str]]:
    """``("file:line", text)`` for every line of ``paths``, the file relative to ``root``."""
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            yield f"{path.relative_to(root)}:{number}", line


def _check_forbidden(root: Path, files: list[Path]) -> list[Finding]:
    return [Finding("forbidden", where, f"contains '{match.group(1)}'")
            for where, line in _numbered_lines(root, files) if (match := FORBIDDEN.search(line))]


def _check_style(root: Path, files: list[Path]) -> list[Finding]:
    return [Finding("style", where, f"line has {len(line)} characters (max {MAX_LINE})")
            for where, line in _numbered_lines(root, files) if len(line) > MAX_LINE]


def _check_axioms(root: Path, decls: list[Declaration]) -> list[Finding]:
    try:
        ledger = {row.axiom: row for row in read_ledger(root)}
    except (FileNotFoundError, ValueError) as exc:
        return [Finding("ledger", str(LEDGER), str(exc))]
    axioms = {d.name: d for d in decls if d.keyword == "axiom"}
    found = [Finding("ledger", name, "axiom declared in the sources but missing from the ledger")
             for name in sorted(set(axioms) - set(ledger))]
    found += [Finding("ledger", name, "listed in the ledger but not declared in the sources")
              for name in sorted(set(ledger) - set(axioms))]
    type_names = {d.name for d in decls if d.keyword in TYPE_KEYWORDS}
    short_names = {name.rsplit(".", 1)[-1]: name for name in type_names}
    for name, decl in sorted(axioms.items()):
        where = f"{decl.path.relative_to(root)}:{decl.line}"
        row = ledger.get(name)
        if row is not None and row.file != str(decl.path.relative_to(root)):
            found.append(Finding("ledger", name, f"ledger says file {row.file}, declared in {where}"))
        doc_tests = tuple(TEST_ID.findall(decl.docstring or ""))
        if not decl.docstring:
            found.append(Finding("axiom-docs", where, f"axiom {name} has no doc comment"))
        elif not doc_tests:
            found.append(Finding("axiom-docs", where, f"doc comment of {name} names no Python test"))
        if row is not None and set(doc_tests) != set(row.tests):
            found.append(Finding("axiom-docs", where,
                                 f"doc comment tests {sorted(doc_tests)} differ from ledger {sorted(row.tests)}"))
        for test_id in sorted(set(doc_tests) | set(row.tests if row else ())):
            if not test_exists(root, test_id):
                found.append(Finding("axiom-docs", where, f"{name} cites {test_id}, which does not exist"))
        tokens = set(re.findall(r"[A-Za-z_][\w.']*", decl.signature))
        used = sorted({short_names.get(tok, tok) for tok in tokens if tok in type_names or tok in short_names})
        if used:
            found.append(Finding("free-records", where,
                                 f"axiom {name} quantifies over project-defined type(s) {', '.join(used)}"))
    return found


def _check_registry(decls: list[Declaration], files: list[Path], claims: Sequence[Claim]) -> list[Finding]:
    found = []
    kinds = {d.name: d.keyword for d in decls}
    printed = {m for path in files for m in PRINT_AXIOMS.findall(path.read_text(encoding="utf-8"))}
    for claim in claims:
        for name in claim.lean:
            if name not in kinds:
                found.append(Finding("registry", claim.id, f"Lean declaration {name} does not exist"))
            elif kinds[name] != "axiom" and name not in printed and name.rsplit(".", 1)[-1] not in printed:
                found.append(Finding("registry", claim.id, f"no '#print axioms {name}' line"))
    return found


def _check_docs(root: Path, decls: list[Declaration]) -> list[Finding]:
    """Every backticked ``LeJEPA.*`` name in the README, docs/THEORY.md and the ledger is declared."""
    declared = {d.name for d in decls}
    docs = [root / relative for relative in DOC_FILES if (root / relative).exists()]
    return [Finding("docs", where, f"names Lean declaration {name}, which does not exist")
            for where, line in _numbered_lines(root, docs)
            for name in (found.rstrip(".'") for found in LEAN_NAME.findall(line)) if name not in declared]


def _check_config(root: Path) -> list[Finding]:
    toolchain_path, lakefile = root / "lean-toolchain", root / LAKEFILE
    if not toolchain_path.exists() or not lakefile.exists():
        return [Finding("config", ".", f"lean-toolchain and {LAKEFILE} are both required")]
    toolchain = toolchain_path.read_text(encoding="utf-8").strip()
    lake = lakefile.read_text(encoding="utf-8")
    version = toolchain.rpartition(":")[2]
    rev = MATHLIB_REQUIRE.search(lake)
    problems = [
        ((root / "lakefile.toml").exists(), "lakefile.toml", f"two Lake configurations; keep only {LAKEFILE}"),
        (not toolchain.startswith("leanprover/lean4:v"), "lean-toolchain", f"unexpected toolchain {toolchain!r}"),
        (rev is None or rev.group(1) != version, LAKEFILE,
         f"Mathlib rev {rev.group(1) if rev else None!r} differs from toolchain {version!r}"),
        (not AUTO_IMPLICIT_OFF.search(lake), LAKEFILE, "autoImplicit must be set to false"),
    ]
    return [Finding("config", where, problem) for failed, where, problem in problems if failed]


def audit(root: Path, claims: Sequence[Claim] = CLAIMS) -> list[Finding]:
    """Run every check on the repository at ``root``; an empty list means the audit passed."""
    files, decls = _sources(root)
    if not files:
        return [Finding("sources", LEAN_DIR, "no Lean sources found")]
    return (_check_forbidden(root, files) + _check_axioms(root, decls) + _check_registry(decls, files, claims)
            + _check_docs(root, decls) + _check_config(root) + _check_style(root, files))


def default_root() -> Path:
    """The repository root: the current folder if it holds the Lean project, else the package's parent."""
    cwd = Path.cwd()
    return cwd if (cwd / LEAN_DIR).is_dir() else Path(__file__).resolve().parents[1]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``lejepa-wm audit-lean``."""
    parser.add_argument("--root", type=Path, default=None, help="repository root (default: auto)")


def main(args: argparse.Namespace) -> int:
    """Print the findings (or a summary of what was audited) and return 1 if any."""
    root = args.root or default_root()
    findings = audit(root)
    for finding in findings:
        print(finding)
    if findings:
        print(f"\naudit-lean: {len(findings)} problem(s)")
        return 1
    files, decls = _sources(root)
    axioms = sorted(d.name for d in decls if d.keyword == "axiom")
    print(f"audit-lean: OK — {len(files)} files, {len(decls)} declarations, {len(axioms)} axioms "
          f"(all in the ledger, each cites an existing numerical test): {', '.join(axioms)}")
    print("The audit is static; check the proofs themselves with `lake exe cache get && lake build`.")
    return 0
