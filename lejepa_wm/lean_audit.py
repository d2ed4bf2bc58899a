"""The static audit of the Lean sources (``lejepa-wm audit-lean``), for machines without a Lean toolchain.

It cannot tell whether the proofs compile (users check that with
``lake exe cache get && lake build``; the build itself is the gate, since
``LeJEPAProofs/Audit.lean`` pins every main theorem's ``#print axioms`` output with
``#guard_msgs``, and Lean compares each pin with what it prints). It checks what a reader must be
able to trust before compiling, and what the build cannot check. The sources are read with their
comments (nested block comments, doc comments, line comments), string literals (raw and interpolated
ones included) and character literals masked, so a word inside them is never taken for code, no
construction of them hides code, and every command is seen whatever the layout:

- ``forbidden``: no ``sorry``, ``admit``, ``sorryAx``, ``native_decide`` (nor ``+native``, nor the
  axioms behind it), ``set_option debug.*``, ``#exit``, ``opaque``, ``unsafe``,
  ``implemented_by`` or ``extern``, anywhere;
- ``meta``: no ``macro``, ``elab``, ``syntax``, ``run_cmd``, ``#eval`` or other metaprogram
  (elaborator attributes included) outside :data:`_META_ALLOWED` (the order-free axiom check of
  the audit file);
- ``ledger``: the axioms declared in the sources are exactly those listed in
  ``LeJEPAProofs/AXIOMS.md``, each in the file the ledger names;
- ``axiom-docs``: every axiom has a doc comment naming at least one Python test
  (``tests/....py::test_name``), the same tests as its ledger row, and each test exists;
- ``free-records``: no axiom's statement mentions a structure, class or inductive
  type defined in this project (the pattern by which an axiom about records with
  free fields becomes false and the whole system inconsistent);
- ``registry``: every Lean declaration named by the claim registry exists and, unless it
  is itself an axiom, has its ``#print axioms`` output pinned in the audit file;
- ``gate``: every pin in the audit file is ``/-- info: … -/ #guard_msgs (whitespace := lax) in
  #print axioms NAME`` for a declared ``NAME``, lists only Lean's ``propext``,
  ``Classical.choice``, ``Quot.sound`` and ledger axioms, and the root module imports the audit
  file (so ``lake build`` runs the pins);
- ``sources``: every file under ``LeJEPAProofs/`` is imported by the root module (``lake build``
  compiles nothing else);
- ``docs``: every ``LeJEPA.*`` declaration named in the README, ``docs/THEORY.md`` and the
  ledger exists in the sources (so the prose cannot drift from the Lean statements' names);
- ``config``: the Lake configuration is the single file ``lakefile.lean``, it pins Mathlib to
  the release named in ``lean-toolchain``, ``autoImplicit`` is off and no ``debug.*`` option is set;
  ``lake-manifest.json`` locks Mathlib as the lakefile requires it and every package (Mathlib's own
  dependencies included) to an exact git revision;
- ``style``: no line longer than 100 characters.

For the Lean workflow, ``--write-probe`` writes a Lean file printing the axioms of every pinned
declaration and ``--check-log`` reads Lean's output for it as a whole (lists longer than a line
wrap), failing unless every pinned declaration was printed with exactly its pinned axioms.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from lejepa_wm.claims import CLAIMS, Claim

__all__ = [
    "AUDIT_FILE", "LEDGER", "Declaration", "LeanFile", "Finding", "LedgerRow", "AxiomPin", "lean_sources",
    "read_ledger", "test_exists", "audit_with_pins", "audit", "probe_source", "check_axiom_log", "default_root"
]

_LEAN_DIR = "LeJEPAProofs"
_ROOT_MODULE = f"{_LEAN_DIR}.lean"
AUDIT_FILE = f"{_LEAN_DIR}/Audit.lean"
LEDGER = Path(_LEAN_DIR) / "AXIOMS.md"
_LEDGER_HEADER = ("Axiom", "File", "Statement", "Reference", "Python test")
_TEST_ID = re.compile(r"tests/[\w/.-]+\.py::test_\w+")
_LEAN_NAME = re.compile(r"`(LeJEPA\.[A-Za-z_][\w.']*)`")
_DOC_FILES = ("README.md", "docs/THEORY.md", str(LEDGER))
_LAKEFILE = "lakefile.lean"
_MATHLIB_REQUIRE = re.compile(r'require\s+mathlib\s+from\s+git\s+"([^"]+)"\s*@\s*"([^"]+)"')
_MANIFEST = "lake-manifest.json"
_GIT_REVISION = re.compile(r"[0-9a-f]{40}")
_AUTO_IMPLICIT_OFF = re.compile(r"⟨`autoImplicit,\s*false⟩")
_MAX_LINE = 100
_TYPE_KEYWORDS = ("structure", "class", "inductive")
_LEAN_AXIOMS = ("propext", "Classical.choice", "Quot.sound")

_DECLARATION_KEYWORDS = ("theorem", "lemma", "def", "axiom", "structure", "abbrev", "instance",
                        "class", "inductive", "opaque", "example")
_MODIFIERS = frozenset({"private", "protected", "noncomputable", "partial", "nonrec", "unsafe"})
_FORBIDDEN_WORDS = frozenset({"sorry", "admit", "native_decide", "native", "#exit", "opaque",
                             "unsafe", "implemented_by", "extern"})
_FORBIDDEN_NAMES = frozenset({"sorryAx", "ofReduceBool", "ofReduceNat", "reduceBool", "reduceNat",
                             "trustCompiler"})
_META_WORDS = frozenset({"macro", "macro_rules", "elab", "elab_rules", "syntax", "declare_syntax_cat",
                        "run_cmd", "run_tac", "run_elab", "run_meta", "by_elab", "initialize",
                        "builtin_initialize", "simproc", "dsimproc", "#eval", "#eval!"})
_META_ATTRIBUTES = frozenset({"command_elab", "term_elab", "tactic", "macro", "init", "builtin_init",
                             "csimp"})
_META_ALLOWED = {AUDIT_FILE: frozenset({"run_cmd"})}
# Words that can only start a command (an axiom's statement ends before the first of them).
_BOUNDARIES = frozenset({*_DECLARATION_KEYWORDS, "namespace", "section", "end", "open", "variable", "universe",
                         "set_option", "attribute", "mutual", *_META_WORDS})
_AXIOM_REPORT = re.compile(r"'(?P<name>\S+?)'\s+(?:depends on axioms:\s*\[(?P<axioms>[^\]]*)\]"
                          r"|does not depend on any axioms)")
_PIN_INFO = re.compile(rf"info:\s*{_AXIOM_REPORT.pattern}\s*")


# Reading Lean sources. Not a Lean parser: comments, strings and character literals are masked (so a word
# inside them is never read as code, and no construction of them can hide code from the checks), then
# the few rules of the command grammar the checks need (declaration keywords, their modifiers, attributes
# and doc comments, ``namespace``/``section``/``end``) are read from the words that remain.

# Lean's identifier characters: ASCII letters, ``_``, Greek but λ, Π and Σ, Coptic, letter-like symbols and
# script letters start one; digits, ``'``, ``!``, ``?`` and subscripts may follow.
_FIRST = ("A-Za-z_\u03b1-\u03ba\u03bc-\u03c9\u0391-\u039f\u03a1-\u03a2\u03a4-\u03a9\u03ca-\u03fb\u1f00-\u1ffe"
          "\u2100-\u214f\U0001d49c-\U0001d59f")
_REST = _FIRST + "0-9'!?\u2080-\u209c\u1d62-\u1d6a"
_NAME = rf"(?:«[^»]*»?|[{_FIRST}][{_REST}]*)(?:\.(?:«[^»]*»?|[{_FIRST}][{_REST}]*))*"
# A word: an identifier (``«»`` parts allowed), a ``#`` command or a `` `name `` literal.
_WORD = re.compile(rf"(?:``?|#)?{_NAME}")
_PIN = re.compile(rf"#guard_msgs\s*\(\s*whitespace\s*:=\s*lax\s*\)\s*in\s*#print\s+axioms(?:\s+|(?=«))"
                  rf"(?P<name>{_NAME})")
# What may stand between a declaration keyword and its doc comment: modifiers, ``@[…]`` attributes.
_HEADER = re.compile(rf"(?:\s|@\[[^\]]*\]|(?<![{_REST}.])(?:{'|'.join(_MODIFIERS)})(?![{_REST}]))*")
# A line comment, the opening of a block comment or a string, a raw string (no escapes), a character
# literal, interpolation braces, or a quoted name (skipped whole: «a'"'b» is one name).
_OPENER = re.compile(rf'--[^\n]*|/-|"|(?<![{_REST}.«»])r(#*)"[\s\S]*?(?:"\1|\Z)'
                     r"|'(?:\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)|[^\\'\n])'|[{}]|«[^»]*»?")
_IDENT_BEFORE = re.compile(rf"[{_FIRST}][{_REST}]*\Z")  # an identifier ends here (a ' after it is part of it)
_INTERPOLATED = re.compile(rf"[{_FIRST}][{_REST}]*![ \t]*\Z")  # s!"…", m!"…": the string is interpolated
_BLOCK_DELIMITER = re.compile(r"/-|-/")
_ATTRIBUTE = re.compile(rf"@\[|(?<![{_REST}.«»#])attribute\s*\[")


def _mask(source: str) -> tuple[str, dict[int, str]]:
    """``source`` with every comment blanked and every string and character literal filled with ``"``
    (newlines kept, so offsets and lines are those of the source), and its doc comments by end offset.

    A doc comment (``/-- -/``) or module doc (``/-! -/``) keeps its delimiters, so what follows it can be
    seen to follow it; the code between the braces of an interpolated string (``s!"…{code}…"``) stays code.
    """
    code = list(source)
    docs: dict[int, str] = {}

    def fill(start: int, end: int, char: str = " ") -> None:
        code[start:end] = [c if c == "\n" else char for c in source[start:end]]

    def string_end(start: int) -> int:
        interpolated = _INTERPOLATED.search(source, max(0, start - 64), start) is not None
        k, piece = start + 1, start
        while k < len(source) and source[k] != '"':
            if source[k] == "{" and interpolated:
                fill(piece, k + 1, '"')
                piece = scan(k + 1, in_braces=True)
                k = piece + 1
            else:
                k += 2 if source[k] == "\\" else 1
        fill(piece, k + 1, '"')
        return k + 1

    def scan(i: int, in_braces: bool) -> int:
        depth = 0
        while match := _OPENER.search(source, i):
            start, opener, i = match.start(), match.group(), match.end()
            if opener.startswith("--"):
                fill(start, i)
            elif opener == "/-":
                nesting = 1
                while nesting and (delimiter := _BLOCK_DELIMITER.search(source, i)):
                    nesting, i = nesting + (1 if delimiter.group() == "/-" else -1), delimiter.end()
                i = len(source) if nesting else i
                kept = source.startswith(("/--", "/-!"), start) and not source.startswith("/--/", start)
                fill(start + 3 if kept else start, i - 2 if kept else i)
                if kept and source[start + 2] == "-":
                    docs[i] = source[start + 3:i - 2].strip()
            elif opener == '"':
                i = string_end(start)
            elif opener.startswith("'") and _IDENT_BEFORE.search(source, max(0, start - 64), start):
                i = start + 1  # the prime of an identifier (x'), no character literal
            elif opener.startswith(("'", "r")):
                fill(start, i, '"')
            elif opener == "}" and in_braces and depth == 0:
                return start
            elif opener in ("{", "}"):
                depth += 1 if opener == "{" else -1
        return len(source)

    scan(0, in_braces=False)
    return "".join(code), docs


@dataclass(frozen=True)
class _Word:
    """One word of the masked source: an identifier (``«»`` parts allowed) or a ``#`` command.

    ``value`` is the dotted name with ``«»`` removed (``#`` kept for a command), ``quoted`` whether a
    part was quoted (a quoted word is never a keyword).
    """

    start: int
    end: int
    text: str
    value: str
    quoted: bool

    def is_(self, *words: str) -> bool:
        """Whether it is an unquoted word among ``words``."""
        return not self.quoted and self.value in words


def _words(code: str) -> tuple[_Word, ...]:
    """The words of masked code, in order; name literals (`` `foo ``) are no words."""
    return tuple(_Word(match.start(), match.end(), match.group(), match.group().replace("«", "").replace("»", ""),
                       "«" in match.group())
                 for match in _WORD.finditer(code) if not match.group().startswith("`"))


def _attributes(code: str) -> list[tuple[int, int]]:
    """Where the attribute lists ``@[…]`` and ``attribute […]`` start and end (nested brackets included)."""
    spans = []
    for match in _ATTRIBUTE.finditer(code):
        depth, end = 1, match.end()
        while depth and end < len(code):
            depth += {"[": 1, "]": -1}.get(code[end], 0)
            end += 1
        spans.append((match.start(), end))
    return spans


def _adjacent(code: str, first: _Word, second: _Word) -> bool:
    """Whether only whitespace and comments stand between two words."""
    return not code[first.end:second.start].strip()


def _doc_before(code: str, docs: dict[int, str], offset: int) -> str | None:
    """The doc comment before ``offset``, with only whitespace, comments, modifiers and ``@[…]``
    attributes between."""
    end = code.rfind("-/", 0, offset) + 2
    return docs.get(end) if end > 1 and _HEADER.fullmatch(code, end, offset) else None


@dataclass(frozen=True)
class Declaration:
    """One named declaration: keyword, fully qualified name, file, ``file:line`` and doc comment; for an
    axiom, ``statement_names`` are the identifiers of its statement (up to the next command)."""

    keyword: str
    name: str
    file: str
    where: str
    docstring: str | None
    statement_names: tuple[str, ...]


@dataclass(frozen=True)
class LeanFile:
    """A Lean source file (``path`` relative to the repository root): its masked code, doc comments by end
    offset, words, attribute lists, declarations and imported modules."""

    path: str
    code: str
    docs: dict[int, str]
    words: tuple[_Word, ...]
    attributes: tuple[tuple[int, int], ...]
    declarations: tuple[Declaration, ...]
    imports: tuple[str, ...]

    def line(self, offset: int) -> int:
        """The 1-based line of an offset."""
        return self.code.count("\n", 0, offset) + 1

    def where(self, offset: int) -> str:
        """``file:line`` of an offset."""
        return f"{self.path}:{self.line(offset)}"

    def in_attribute(self, offset: int) -> bool:
        """Whether ``offset`` lies inside an attribute list."""
        return any(start <= offset < end for start, end in self.attributes)


def _statement(code: str, words: Sequence[_Word], start: int) -> tuple[str, ...]:
    """The identifiers from ``start`` to the next command (a doc comment, an attribute, a keyword)."""
    ends = [offset for offset in (code.find(mark, start) for mark in ("/--", "/-!", "@[")) if offset >= 0]
    ends += [word.start for word in words
             if word.start >= start and (word.value.startswith("#") or word.is_(*_BOUNDARIES))][:1]
    stop = min(ends, default=len(code))
    return tuple(word.value for word in words if start <= word.start < stop and not word.value.startswith("#"))


def _declarations(lean: LeanFile) -> list[Declaration]:
    """The named declarations of one file, wherever they stand; keywords inside attributes and
    ``deriving instance`` are not declarations."""
    words, namespaces, result = lean.words, [], []
    for index, word in enumerate(words):
        previous, following = words[index - 1] if index else None, words[index + 1: index + 2]
        if word.is_("namespace") and following:
            namespaces.append(following[0].value)
        elif word.is_("section", "mutual"):
            namespaces.append("")
        elif word.is_("end") and namespaces:
            namespaces.pop()
        if (not word.is_(*_DECLARATION_KEYWORDS) or lean.in_attribute(word.start) or (previous is not None and (
                previous.is_("deriving") or (word.value == "inductive" and previous.is_("class"))))):
            continue
        name_index = index + 2 if word.value == "class" and following and following[0].is_("inductive") else index + 1
        if name_index >= len(words) or not _adjacent(lean.code, words[name_index - 1], words[name_index]):
            continue
        name = words[name_index].value
        if name.startswith("#") or words[name_index].is_(*_BOUNDARIES):
            continue
        prefix = "" if name.startswith("_root_.") else ".".join(filter(None, namespaces))
        statement = _statement(lean.code, words, words[name_index].end) if word.value == "axiom" else ()
        result.append(Declaration(word.value, f"{prefix}.{name}" if prefix else name.removeprefix("_root_."),
                                  lean.path, lean.where(word.start), _doc_before(lean.code, lean.docs, word.start),
                                  statement))
    return result


def _read_lean(root: Path, path: Path) -> LeanFile:
    """Mask one Lean file and read its words, attributes, declarations and imports."""
    code, docs = _mask(path.read_text(encoding="utf-8"))
    words = _words(code)
    imports = tuple(name.value for word, name in zip(words, words[1:])
                    if word.is_("import") and not name.value.startswith("#") and _adjacent(code, word, name))
    lean = LeanFile(str(path.relative_to(root)), code, docs, words, tuple(_attributes(code)), (), imports)
    return replace(lean, declarations=tuple(_declarations(lean)))


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


@dataclass(frozen=True)
class AxiomPin:
    """A ``#guard_msgs`` pin in the audit file: the declaration and the axioms Lean must print."""

    name: str
    axioms: tuple[str, ...]
    line: int


def lean_sources(root: Path) -> list[LeanFile]:
    """The project's Lean sources: the root module, then everything under ``LeJEPAProofs/``."""
    top = root / _ROOT_MODULE
    paths = ([top] if top.exists() else []) + sorted((root / _LEAN_DIR).rglob("*.lean"))
    return [_read_lean(root, path) for path in paths]


def read_ledger(root: Path) -> list[LedgerRow]:
    """Parse the ledger's markdown table (header ``| Axiom | File | Statement | Reference | Python test |``)."""
    path = root / LEDGER
    if not path.exists():
        raise FileNotFoundError(f"axiom ledger {LEDGER} is missing")
    rows: list[LedgerRow] = []
    in_table = False  # a table ends at a line that is not a row; ours starts at its header
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = tuple(cell.strip() for cell in line.strip().strip("|").split("|"))
        is_row = line.strip().startswith("|")
        if in_table and is_row and cells != _LEDGER_HEADER and not set("".join(cells)) <= set("-: "):
            if len(cells) != len(_LEDGER_HEADER):
                raise ValueError(f"ledger row has {len(cells)} cells, expected {len(_LEDGER_HEADER)}: {line!r}")
            rows.append(LedgerRow(cells[0].strip("`"), cells[1].strip("`"), tuple(_TEST_ID.findall(cells[4]))))
        in_table = is_row and (in_table or cells == _LEDGER_HEADER)
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


def _check_words(files: Sequence[LeanFile]) -> list[Finding]:
    """Words and names that prove nothing or bypass the kernel, ``set_option debug.*``, and metaprograms
    (which can add declarations unseen by this audit) outside the allow-list."""
    found = []
    for lean in files:
        allowed = _META_ALLOWED.get(lean.path, frozenset())
        for word, following in zip(lean.words, lean.words[1:] + (None,)):
            if word.value in _FORBIDDEN_WORDS or word.value.rsplit(".", 1)[-1] in _FORBIDDEN_NAMES:
                found.append(Finding("forbidden", lean.where(word.start), f"contains '{word.text}'"))
            elif word.is_("set_option") and following is not None and following.value.split(".", 1)[0] == "debug":
                found.append(Finding("forbidden", lean.where(word.start),
                                     f"sets the debugging option '{following.value}'"))
            if ((word.is_(*_META_WORDS) or (word.is_(*_META_ATTRIBUTES) and lean.in_attribute(word.start)))
                    and word.value not in allowed):
                found.append(Finding("meta", lean.where(word.start), f"'{word.text}' is a metaprogram; only "
                                     f"{AUDIT_FILE} may run one (its axiom check)"))
    return found


def _check_style(root: Path, files: Sequence[LeanFile]) -> list[Finding]:
    """No line longer than :data:`_MAX_LINE` characters."""
    return [Finding("style", where, f"line has {len(line)} characters (max {_MAX_LINE})")
            for where, line in _numbered_lines(root, [root / lean.path for lean in files]) if len(line) > _MAX_LINE]


def _check_axioms(root: Path, decls: list[Declaration], ledger: dict[str, LedgerRow]) -> list[Finding]:
    """The declared axioms are the ledger's, each documented with existing tests, none about records."""
    axioms = {d.name: d for d in decls if d.keyword == "axiom"}
    found = [Finding("ledger", name, "axiom declared in the sources but missing from the ledger")
             for name in sorted(set(axioms) - set(ledger))]
    found += [Finding("ledger", name, "listed in the ledger but not declared in the sources")
              for name in sorted(set(ledger) - set(axioms))]
    type_names = {d.name for d in decls if d.keyword in _TYPE_KEYWORDS}
    short_names = {name.rsplit(".", 1)[-1]: name for name in type_names}
    for name, decl in sorted(axioms.items()):
        row = ledger.get(name)
        if row is not None and row.file != decl.file:
            found.append(Finding("ledger", name, f"ledger says file {row.file}, declared in {decl.where}"))
        doc_tests = tuple(_TEST_ID.findall(decl.docstring or ""))
        if not decl.docstring:
            found.append(Finding("axiom-docs", decl.where, f"axiom {name} has no doc comment"))
        elif not doc_tests:
            found.append(Finding("axiom-docs", decl.where, f"doc comment of {name} names no Python test"))
        if row is not None and set(doc_tests) != set(row.tests):
            found.append(Finding("axiom-docs", decl.where,
                                 f"doc comment tests {sorted(doc_tests)} differ from ledger {sorted(row.tests)}"))
        for test_id in sorted(set(doc_tests) | set(row.tests if row else ())):
            if not test_exists(root, test_id):
                found.append(Finding("axiom-docs", decl.where, f"{name} cites {test_id}, which does not exist"))
        used = sorted({short_names.get(word, word) for word in decl.statement_names
                       if word in type_names or word in short_names})
        if used:
            found.append(Finding("free-records", decl.where,
                                 f"axiom {name} quantifies over project-defined type(s) {', '.join(used)}"))
    return found


def _axiom_list(text: str) -> tuple[str, ...]:
    """The names in Lean's printed list ``a, b, c`` (any whitespace, line breaks included)."""
    return tuple(item.strip() for item in text.split(",") if item.strip())


def _axiom_pins(audit_file: LeanFile) -> tuple[list[AxiomPin], list[Finding]]:
    """The ``#guard_msgs`` pins of ``#print axioms`` in the audit file, and malformed ones."""
    pins, found = [], []
    for word in audit_file.words:
        if not word.is_("#guard_msgs"):
            continue
        pin = _PIN.match(audit_file.code, word.start)
        doc = _doc_before(audit_file.code, audit_file.docs, word.start)
        info = _PIN_INFO.fullmatch(doc) if doc is not None else None
        where = audit_file.where(word.start)
        target = pin["name"].replace("«", "").replace("»", "") if pin else ""
        if pin is None:
            found.append(Finding("gate", where, "a #guard_msgs that is not "
                                 "'(whitespace := lax) in #print axioms NAME'"))
        elif info is None:
            found.append(Finding("gate", where, f"the pin of {target} has no doc comment "
                                 f"'info: '{target}' depends on axioms: [...]'"))
        elif info["name"] != target:
            found.append(Finding("gate", where, f"pins the output of {info['name']} on #print axioms "
                                 f"{target}; use the fully qualified name in both"))
        else:
            pins.append(AxiomPin(target, _axiom_list(info["axioms"] or ""), audit_file.line(word.start)))
    return pins, found


def _check_gate(files: Sequence[LeanFile], decls: list[Declaration],
                ledger: dict[str, LedgerRow]) -> tuple[list[AxiomPin], list[Finding]]:
    """The pins of the audit file, whether each is well formed and pins a declared name to known axioms,
    and whether the build runs them (Lean itself checks each pin against what it prints)."""
    by_path = {lean.path: lean for lean in files}
    audit_file = by_path.get(AUDIT_FILE)
    if audit_file is None:
        return [], [Finding("gate", AUDIT_FILE, "the audit file is missing")]
    pins, found = _axiom_pins(audit_file)
    root_file = by_path.get(_ROOT_MODULE)
    audit_module = AUDIT_FILE.removesuffix(".lean").replace("/", ".")
    if root_file is None or audit_module not in root_file.imports:
        found.append(Finding("gate", _ROOT_MODULE, f"does not import {audit_module}, so lake build "
                             f"would not run the axiom gate"))
    declared = {d.name for d in decls}
    allowed = set(_LEAN_AXIOMS) | set(ledger)
    for pin in pins:
        where = f"{AUDIT_FILE}:{pin.line}"
        if pin.name not in declared:
            found.append(Finding("gate", where, f"pins {pin.name}, which is not declared"))
        if outside := sorted(set(pin.axioms) - allowed):
            found.append(Finding("gate", where, f"{pin.name} is pinned to axioms outside Lean's and "
                                 f"the ledger's: {', '.join(outside)}"))
    return pins, found


def _check_registry(decls: list[Declaration], pins: list[AxiomPin], claims: Sequence[Claim]) -> list[Finding]:
    """Every claim's declaration exists and, unless it is an axiom, has its axioms pinned."""
    found = []
    kinds = {d.name: d.keyword for d in decls}
    pinned = {pin.name for pin in pins}
    for claim in claims:
        for name in claim.lean:
            if name not in kinds:
                found.append(Finding("registry", claim.id, f"Lean declaration {name} does not exist"))
            elif kinds[name] != "axiom" and name not in pinned:
                found.append(Finding("registry", claim.id, f"no #guard_msgs pin of '#print axioms {name}' "
                                     f"in {AUDIT_FILE}"))
    return found


def _module_path(module: str) -> str:
    """The file of a module: ``A.B`` is ``A/B.lean``."""
    return module.replace(".", "/") + ".lean"


def _check_sources(files: Sequence[LeanFile]) -> list[Finding]:
    """Every file under ``LeJEPAProofs/`` is imported, directly or not, by the root module."""
    by_path = {lean.path: lean for lean in files}
    reached, todo = set(), [_ROOT_MODULE]
    while todo:
        path = todo.pop()
        if path in reached or path not in by_path:
            continue
        reached.add(path)
        todo.extend(_module_path(module) for module in by_path[path].imports)
    return [Finding("sources", path, f"not imported by {_ROOT_MODULE}, so lake build does not compile it")
            for path in sorted(set(by_path) - reached)]


def _check_docs(root: Path, decls: list[Declaration]) -> list[Finding]:
    """Every backticked ``LeJEPA.*`` name in the README, docs/THEORY.md and the ledger is declared."""
    declared = {d.name for d in decls}
    docs = [root / relative for relative in _DOC_FILES if (root / relative).exists()]
    return [Finding("docs", where, f"names Lean declaration {name}, which does not exist")
            for where, line in _numbered_lines(root, docs)
            for name in (found.rstrip(".'") for found in _LEAN_NAME.findall(line)) if name not in declared]


def _check_config(root: Path) -> list[Finding]:
    """One Lake configuration, Mathlib at the toolchain's release, autoImplicit off, no debug option."""
    toolchain_path, lakefile = root / "lean-toolchain", root / _LAKEFILE
    if not toolchain_path.exists() or not lakefile.exists():
        return [Finding("config", ".", f"lean-toolchain and {_LAKEFILE} are both required")]
    toolchain = toolchain_path.read_text(encoding="utf-8").strip()
    lake = lakefile.read_text(encoding="utf-8")
    version = toolchain.rpartition(":")[2]
    rev = _MATHLIB_REQUIRE.search(lake)
    problems = [
        ((root / "lakefile.toml").exists(), "lakefile.toml", f"two Lake configurations; keep only {_LAKEFILE}"),
        (not toolchain.startswith("leanprover/lean4:v"), "lean-toolchain", f"unexpected toolchain {toolchain!r}"),
        (rev is None or rev.group(2) != version, _LAKEFILE,
         f"Mathlib rev {rev.group(2) if rev else None!r} differs from toolchain {version!r}"),
        (not _AUTO_IMPLICIT_OFF.search(lake), _LAKEFILE, "autoImplicit must be set to false"),
        ("debug." in lake, _LAKEFILE, "sets a debug.* option"),
    ]
    found = [Finding("config", where, problem) for failed, where, problem in problems if failed]
    return found + ([] if rev is None else _check_manifest(root, rev.group(1), rev.group(2)))


def _check_manifest(root: Path, url: str, input_rev: str) -> list[Finding]:
    """``lake-manifest.json`` is tracked and locks the build: Mathlib as the lakefile requires it (same URL
    and tag), and every package, Mathlib's own dependencies included, at an exact 40-hex git revision."""
    path = root / _MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        packages = {entry["name"]: entry for entry in manifest["packages"]}
    except FileNotFoundError:
        return [Finding("config", _MANIFEST, "missing: without it the build is not locked to exact revisions")]
    except (ValueError, KeyError, TypeError) as exc:
        return [Finding("config", _MANIFEST, f"unreadable ({type(exc).__name__}: {exc})")]
    mathlib = packages.get("mathlib", {})
    problems = [(mathlib.get("url") != url or mathlib.get("inputRev") != input_rev,
                 f"Mathlib must be locked as {_LAKEFILE} requires it ({url} @ {input_rev}); the manifest has "
                 f"{mathlib.get('url')!r} @ {mathlib.get('inputRev')!r}"),
                (len(packages) != len(manifest["packages"]), "a package is listed twice")]
    problems += [(not _GIT_REVISION.fullmatch(str(entry.get("rev"))), f"package {name} has no exact revision "
                  f"(rev {entry.get('rev')!r})") for name, entry in packages.items()]
    return [Finding("config", _MANIFEST, problem) for failed, problem in problems if failed]


def audit_with_pins(root: Path, claims: Sequence[Claim]) -> tuple[list[AxiomPin], list[Finding]]:
    """The pins of the audit file and every finding of every check."""
    files = lean_sources(root)
    if not files:
        return [], [Finding("sources", _LEAN_DIR, "no Lean sources found")]
    decls = [d for lean in files for d in lean.declarations]
    try:
        ledger = {row.axiom: row for row in read_ledger(root)}
    except (FileNotFoundError, ValueError) as exc:
        return [], [Finding("ledger", str(LEDGER), str(exc))]
    pins, gate = _check_gate(files, decls, ledger)
    return pins, (_check_words(files) + _check_axioms(root, decls, ledger) + _check_registry(decls, pins, claims) + gate
                  + _check_sources(files) + _check_docs(root, decls) + _check_config(root)
                  + _check_style(root, files))


def audit(root: Path, claims: Sequence[Claim] = CLAIMS) -> list[Finding]:
    """Run every check on the repository at ``root``; an empty list means the audit passed."""
    return audit_with_pins(root, claims)[1]


def probe_source(pins: Sequence[AxiomPin]) -> str:
    """A Lean file that prints the axioms of every pinned declaration (``lake env lean`` runs it)."""
    return "\n".join([f"import {_LEAN_DIR}", ""] + [f"#print axioms {pin.name}" for pin in pins]) + "\n"


def check_axiom_log(log: str, pins: Sequence[AxiomPin]) -> list[Finding]:
    """Read Lean's output for :func:`probe_source` as a whole (a long list wraps over lines) and
    check that every pinned declaration was printed with exactly its pinned axioms."""
    printed = {match["name"]: _axiom_list(match["axioms"] or "") for match in _AXIOM_REPORT.finditer(log)}
    found = [Finding("axiom-log", pin.name, "no '#print axioms' output for it") for pin in pins
             if pin.name not in printed]
    found += [Finding("axiom-log", pin.name, f"Lean printed [{', '.join(printed[pin.name])}], "
                      f"pinned [{', '.join(pin.axioms)}]") for pin in pins
              if pin.name in printed and set(printed[pin.name]) != set(pin.axioms)]
    if "sorryAx" in log:
        found.append(Finding("axiom-log", "log", "mentions sorryAx"))
    return found


def default_root() -> Path:
    """The repository root: the current folder if it holds the Lean project, else the package's parent."""
    cwd = Path.cwd()
    return cwd if (cwd / _LEAN_DIR).is_dir() else Path(__file__).resolve().parents[1]
