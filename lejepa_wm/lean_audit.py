"""The static audit of the Lean sources (``lejepa-wm audit-lean``), for machines without a Lean toolchain.

It cannot tell whether the proofs compile (users check that with
``lake exe cache get && lake build``; the build itself is the gate, since
``LeJEPAProofs/Audit.lean`` pins every main theorem's ``#print axioms`` output with
``#guard_msgs``). It checks what a reader must be able to trust before compiling. The sources
are read as Lean tokens (nested block comments, doc comments, line comments, string, raw string
and character literals, ``«»`` names), so every command is seen whatever the layout:

- ``forbidden``: no ``sorry``, ``admit``, ``sorryAx``, ``native_decide`` (nor ``+native``, nor the
  axioms behind it), ``set_option debug.*``, ``#exit``, ``opaque``, ``unsafe``,
  ``implemented_by`` or ``extern``, anywhere;
- ``meta``: no ``macro``, ``elab``, ``syntax``, ``run_cmd``, ``#eval`` or other metaprogram
  (elaborator attributes included) outside :data:`_META_ALLOWED` (the order-free axiom check of
  the audit file);
- ``layout``: every declaration and every ``#`` command starts on a line of its own;
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
  ``Classical.choice``, ``Quot.sound`` and ledger axioms, in the order Lean prints them, and the
  root module imports the audit file;
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

import bisect
import functools
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from lejepa_wm.claims import CLAIMS, Claim

__all__ = [
    "AUDIT_FILE", "LEDGER", "Token", "tokenize", "Declaration", "LeanFile", "declarations", "read_lean", "Finding",
    "LedgerRow", "AxiomPin", "lean_sources", "read_ledger", "test_exists", "lean_name_order", "axiom_pins",
    "audit_with_pins", "audit", "probe_source", "check_axiom_log", "default_root"
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
_IN_PREFIX_COMMANDS = frozenset({"set_option", "open", "omit", "include", "variable", "#guard_msgs"})
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
_PIN_SHAPE = ("(", "whitespace", ":=", "lax", ")", "in", "#print", "axioms")
_PIN_INFO = re.compile(r"info:\s*'(?P<name>\S+?)'\s+(?:depends on axioms:\s*\[(?P<axioms>[^\]]*)\]"
                      r"|does not depend on any axioms)\s*", re.S)
_AXIOM_REPORT = re.compile(r"'(?P<name>\S+?)'\s+(?:depends on axioms:\s*\[(?P<axioms>[^\]]*)\]"
                          r"|does not depend on any axioms)")


# Reading Lean sources as tokens. Not a Lean parser: a lexer that knows Lean's comments and literals,
# plus the few rules of the command grammar the checks need (declaration keywords, their modifiers,
# attributes and doc comments, ``… in`` prefixes, ``namespace``/``section``/``end``).

@dataclass(frozen=True)
class Token:
    """One Lean token: its kind, its text, its value and the lines where it starts and ends.

    Kinds: ``ident`` (value: the dotted name with ``«»`` removed; ``quoted`` if a part was quoted),
    ``command`` (``#print``, ``#eval``, …), ``doc`` (``/-- -/``; value: the text inside),
    ``moddoc`` (``/-! -/``), ``string``, ``char``, ``name`` (`` `foo ``), ``number``, ``symbol``.
    """

    kind: str
    text: str
    value: str
    line: int
    end_line: int
    quoted: bool = False


def _letter_like(c: str) -> bool:
    """Lean's ``isLetterLike``: Greek (but λ, Π, Σ), Coptic, letter-like symbols, script letters."""
    cp = ord(c)
    return ((0x3B1 <= cp <= 0x3C9 and cp != 0x3BB) or (0x391 <= cp <= 0x3A9 and cp not in (0x3A0, 0x3A3))
            or 0x3CA <= cp <= 0x3FB or 0x1F00 <= cp <= 0x1FFE or 0x2100 <= cp <= 0x214F
            or 0x1D49C <= cp <= 0x1D59F)


def _id_first(c: str) -> bool:
    """Whether ``c`` can start a Lean identifier."""
    return (c.isascii() and c.isalpha()) or c == "_" or _letter_like(c)


def _id_rest(c: str) -> bool:
    """Whether ``c`` can continue a Lean identifier (digits, ``'``, ``!``, ``?``, subscripts)."""
    cp = ord(c)
    return (_id_first(c) or (c.isascii() and c.isdigit()) or c in "'!?" or 0x2080 <= cp <= 0x209C
            or 0x1D62 <= cp <= 0x1D6A)


_CHAR_LITERAL = re.compile(r"'(?:\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)|[^\\'\n])'")
_NUMBER = re.compile(r"0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|[0-9][0-9_]*(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_RAW_STRING = re.compile(r'(#*)"')


class _Lexer:
    """Splits Lean source into :class:`Token` s; comments other than doc comments are dropped."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", source)]
        self.tokens: list[Token] = []

    def line(self, offset: int) -> int:
        """The 1-based line of a character offset."""
        return bisect.bisect_right(self.line_starts, offset)

    def emit(self, kind: str, start: int, end: int, value: str | None = None, quoted: bool = False) -> None:
        """Append the token ``source[start:end]``."""
        text = self.source[start:end]
        self.tokens.append(Token(kind, text, text if value is None else value, self.line(start),
                                 self.line(max(start, end - 1)), quoted))

    def block_end(self, start: int) -> int:
        """End of the (nested) block comment opened at ``start``."""
        depth, k, n = 1, start + 2, len(self.source)
        while k < n and depth:
            if self.source.startswith("/-", k):
                depth, k = depth + 1, k + 2
            elif self.source.startswith("-/", k):
                depth, k = depth - 1, k + 2
            else:
                k += 1
        return k

    def string_end(self, start: int, interpolated: bool) -> int:
        """End of the string literal opened at ``start``; in an interpolated string (``s!"…"``,
        ``m!"…"``) the code between braces is lexed as code."""
        k, n = start + 1, len(self.source)
        while k < n:
            ch = self.source[k]
            if ch == "\\":
                k += 2
            elif ch == '"':
                return k + 1
            elif ch == "{" and interpolated:
                k = self.lex(k + 1, in_braces=True) + 1
            else:
                k += 1
        return n

    def ident_end(self, start: int) -> tuple[int, str, bool]:
        """End, value and quoting of the (dotted) identifier starting at ``start``."""
        parts, quoted, k, n = [], False, start, len(self.source)
        while True:
            if self.source.startswith("«", k):
                close = self.source.find("»", k + 1)
                close = n - 1 if close == -1 else close
                parts.append(self.source[k + 1:close])
                quoted, k = True, close + 1
            else:
                j = k + 1
                while j < n and _id_rest(self.source[j]):
                    j += 1
                parts.append(self.source[k:j])
                k = j
            if k + 1 < n and self.source[k] == "." and (_id_first(self.source[k + 1])
                                                        or self.source[k + 1] == "«"):
                k += 1
                continue
            return k, ".".join(parts), quoted

    def lex(self, start: int = 0, in_braces: bool = False) -> int:
        """Lex from ``start``; inside interpolation braces, stop at the unmatched ``}``."""
        source, n, i, depth = self.source, len(self.source), start, 0
        while i < n:
            ch = source[i]
            if ch.isspace():
                i += 1
            elif source.startswith("--", i):
                end = source.find("\n", i)
                i = n if end == -1 else end
            elif source.startswith("/-", i):
                end = self.block_end(i)
                if source.startswith("/--", i) and not source.startswith("/--/", i):
                    self.emit("doc", i, end, source[i + 3:end - 2].strip())
                elif source.startswith("/-!", i):
                    self.emit("moddoc", i, end, source[i + 3:end - 2].strip())
                i = end
            elif ch == '"':
                previous = self.tokens[-1] if self.tokens else None
                interpolated = (previous is not None and previous.kind == "ident"
                                and previous.text.endswith("!") and previous.end_line == self.line(i))
                end = self.string_end(i, interpolated)
                self.emit("string", i, end)
                i = end
            elif ch == "'" and (match := _CHAR_LITERAL.match(source, i)):
                self.emit("char", i, match.end())
                i = match.end()
            elif ch == "`" and i + 1 < n and (source[i + 1] == "`" or _id_first(source[i + 1])
                                              or source[i + 1] == "«"):
                begin = i + 2 if source[i + 1] == "`" else i + 1
                if begin < n and (_id_first(source[begin]) or source[begin] == "«"):
                    end, value, quoted = self.ident_end(begin)
                    self.emit("name", i, end, value, quoted)
                    i = end
                else:
                    self.emit("symbol", i, i + 1)
                    i += 1
            elif ch == "#" and i + 1 < n and _id_first(source[i + 1]):
                end, value, _ = self.ident_end(i + 1)
                self.emit("command", i, end, "#" + value)
                i = end
            elif _id_first(ch) or ch == "«":
                end, value, quoted = self.ident_end(i)
                raw = _RAW_STRING.match(source, end) if value == "r" and not quoted else None
                if raw:
                    close = source.find('"' + raw.group(1), raw.end())
                    close = n if close == -1 else close + 1 + len(raw.group(1))
                    self.emit("string", i, close)
                    i = close
                else:
                    self.emit("ident", i, end, value, quoted)
                    i = end
            elif ch.isdigit():
                match = _NUMBER.match(source, i)
                end = match.end() if match else i + 1
                self.emit("number", i, end)
                i = end
            else:
                if in_braces and ch == "}" and depth == 0:
                    return i
                depth += {"{": 1, "}": -1}.get(ch, 0)
                width = 2 if source.startswith(("@[", ":="), i) else 1
                self.emit("symbol", i, i + width)
                i += width
        return n


def tokenize(source: str) -> list[Token]:
    """The tokens of a Lean source (comments dropped, doc comments kept)."""
    lexer = _Lexer(source)
    lexer.lex()
    return lexer.tokens


def _is_word(token: Token, *words: str) -> bool:
    """Whether ``token`` is an unquoted identifier (or ``#`` command) among ``words``."""
    return token.kind in ("ident", "command") and not token.quoted and token.value in words


def _attribute_tokens(tokens: Sequence[Token]) -> set[int]:
    """Indices of the tokens inside ``@[…]`` and ``attribute […]`` (brackets included)."""
    inside: set[int] = set()
    for index, token in enumerate(tokens):
        opens = token.kind == "symbol" and (token.text == "@[" or (
            token.text == "[" and index > 0 and _is_word(tokens[index - 1], "attribute")))
        if not opens or index in inside:
            continue
        depth, k = 0, index
        while k < len(tokens):
            depth += {"@[": 1, "[": 1, "]": -1}.get(tokens[k].text, 0) if tokens[k].kind == "symbol" else 0
            inside.add(k)
            if depth == 0:
                break
            k += 1
    return inside


def _attribute_open(tokens: Sequence[Token], close: int) -> int | None:
    """Index of the ``@[`` closed by the ``]`` at ``close``, if that bracket closes an attribute."""
    depth = 0
    for k in range(close, -1, -1):
        if tokens[k].kind != "symbol":
            continue
        depth += {"]": 1, "[": -1, "@[": -1}.get(tokens[k].text, 0)
        if depth == 0:
            return k if tokens[k].text == "@[" else None
    return None


def _prefix_command(tokens: Sequence[Token], in_index: int) -> int | None:
    """Index of the ``set_option``/``open``/``#guard_msgs``… whose ``in`` is at ``in_index``."""
    for k in range(in_index - 1, max(in_index - 40, -1), -1):
        if _is_word(tokens[k], *_IN_PREFIX_COMMANDS):
            return k
        if tokens[k].kind in ("doc", "moddoc") or _is_word(tokens[k], *_DECLARATION_KEYWORDS):
            return None
    return None


def _header_start(tokens: Sequence[Token], index: int) -> int:
    """First index of the modifiers and ``@[…]`` attributes right before ``index``."""
    k = index
    while k > 0:
        previous = tokens[k - 1]
        opener = _attribute_open(tokens, k - 1) if previous.kind == "symbol" and previous.text == "]" else None
        if opener is not None:
            k = opener
        elif _is_word(previous, *_MODIFIERS):
            k -= 1
        else:
            break
    return k


def _command_start(tokens: Sequence[Token], index: int) -> int:
    """Index of the first token of the command whose keyword is at ``index``: its doc comment,
    attributes, modifiers and every ``set_option … in``-style prefix."""
    start = index
    while True:
        start = _header_start(tokens, start)
        if start > 0 and tokens[start - 1].kind == "doc":
            start -= 1
        if start > 0 and _is_word(tokens[start - 1], "in"):
            prefix = _prefix_command(tokens, start - 1)
            if prefix is not None:
                start = prefix
                continue
        return start


@dataclass(frozen=True)
class Declaration:
    """One declaration: keyword, fully qualified name, file, line, statement and doc comment.

    ``signature`` is the statement (the tokens between the name and ``:=``, ``where`` or the next
    command) and ``signature_names`` the identifiers in it.
    """

    keyword: str
    name: str
    path: Path
    line: int
    signature: str
    signature_names: tuple[str, ...]
    docstring: str | None


@dataclass(frozen=True)
class LeanFile:
    """A Lean source file, its tokens and its declarations."""

    path: Path
    text: str
    tokens: tuple[Token, ...]
    declarations: tuple[Declaration, ...]

    @property
    def imports(self) -> tuple[str, ...]:
        """The modules named by its ``import`` commands."""
        return tuple(self.tokens[k + 1].value for k in range(len(self.tokens) - 1)
                     if _is_word(self.tokens[k], "import") and self.tokens[k + 1].kind == "ident")


def _declaration_keywords(tokens: Sequence[Token]) -> list[int]:
    """Indices of the declaration keywords (``theorem``, ``axiom``, …, ``example``) of a file,
    wherever they stand; keywords inside attributes and ``deriving instance`` are not declarations."""
    attributes = _attribute_tokens(tokens)
    found = []
    for index, token in enumerate(tokens):
        if index in attributes or not _is_word(token, *_DECLARATION_KEYWORDS):
            continue
        previous = tokens[index - 1] if index else None
        if previous is not None and (_is_word(previous, "deriving") or
                                     (token.value == "inductive" and _is_word(previous, "class"))):
            continue
        found.append(index)
    return found


def _boundary(token: Token) -> bool:
    """Whether a token can only start a new command (it ends the statement of an axiom)."""
    return (token.kind in ("doc", "moddoc", "command") or token.text == "@["
            or _is_word(token, *_DECLARATION_KEYWORDS, "namespace", "section", "end", "open", "variable",
                        "universe", "set_option", "attribute", "mutual", *_META_WORDS))


def _signature(tokens: Sequence[Token], start: int) -> list[Token]:
    """The statement tokens from ``start`` to ``:=`` or ``where`` at depth 0, or the next command."""
    depth, result = 0, []
    for token in tokens[start:]:
        if token.kind == "symbol":
            depth += {"(": 1, "[": 1, "{": 1, "⟨": 1, ")": -1, "]": -1, "}": -1, "⟩": -1}.get(token.text, 0)
            if depth == 0 and token.text == ":=":
                break
        if depth == 0 and (_is_word(token, "where") or _boundary(token)):
            break
        result.append(token)
    return result


def _namespaces(tokens: Sequence[Token]) -> dict[int, str]:
    """The namespace in force at every token index (sections add no prefix)."""
    stack: list[tuple[str, str]] = []
    prefix: dict[int, str] = {}
    for index, token in enumerate(tokens):
        prefix[index] = ".".join(name for kind, name in stack if kind == "namespace" and name)
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        named = (following is not None and following.kind == "ident" and following.line == token.line
                 and not _is_word(following, *_DECLARATION_KEYWORDS, "variable", "open", "universe"))
        if _is_word(token, "namespace") and following is not None:
            stack.append(("namespace", following.value))
        elif _is_word(token, "section", "mutual"):
            stack.append((token.value, following.value if named and token.value == "section" else ""))
        elif _is_word(token, "end") and stack:
            stack.pop()
    return prefix


def declarations(path: Path, tokens: Sequence[Token]) -> list[Declaration]:
    """All named declarations of one Lean file, with qualified names, statements and doc comments."""
    prefixes = _namespaces(tokens)
    result = []
    for index in _declaration_keywords(tokens):
        keyword, name_index = tokens[index].value, index + 1
        if keyword == "class" and name_index < len(tokens) and _is_word(tokens[name_index], "inductive"):
            name_index += 1
        if name_index >= len(tokens) or tokens[name_index].kind != "ident" or _boundary(tokens[name_index]):
            continue
        raw_name = tokens[name_index].value
        prefix = "" if raw_name.startswith("_root_.") else prefixes[index]
        name = f"{prefix}.{raw_name}" if prefix else raw_name.removeprefix("_root_.")
        signature = _signature(tokens, name_index + 1)
        header = _header_start(tokens, index)
        docstring = tokens[header - 1].value if header > 0 and tokens[header - 1].kind == "doc" else None
        result.append(Declaration(keyword, name, path, tokens[index].line, " ".join(t.text for t in signature),
                                  tuple(t.value for t in signature if t.kind == "ident"), docstring))
    return result


def read_lean(path: Path) -> LeanFile:
    """Tokenize one Lean file and collect its declarations."""
    text = path.read_text(encoding="utf-8")
    tokens = tuple(tokenize(text))
    return LeanFile(path, text, tokens, tuple(declarations(path, tokens)))


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
    return [read_lean(path) for path in paths]


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
        if not is_row or cells == _LEDGER_HEADER:  # a table ends at a line that is not a row; ours starts at its header
            in_table = is_row
            continue
        if not in_table or set("".join(cells)) <= set("-: "):
            continue
        if len(cells) != len(_LEDGER_HEADER):
            raise ValueError(f"ledger row has {len(cells)} cells, expected {len(_LEDGER_HEADER)}: {line!r}")
        rows.append(LedgerRow(cells[0].strip("`"), cells[1].strip("`"), tuple(_TEST_ID.findall(cells[4]))))
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


def _where(root: Path, lean: LeanFile, token: Token) -> str:
    """``file:line`` of a token, the file relative to ``root``."""
    return f"{lean.path.relative_to(root)}:{token.line}"


def _check_forbidden(root: Path, files: Sequence[LeanFile]) -> list[Finding]:
    """Words and names that prove nothing or bypass the kernel, and ``set_option debug.*``."""
    found = []
    for lean in files:
        for index, token in enumerate(lean.tokens):
            if token.kind not in ("ident", "command"):
                continue
            last = token.value.rsplit(".", 1)[-1]
            following = lean.tokens[index + 1] if index + 1 < len(lean.tokens) else None
            if token.value in _FORBIDDEN_WORDS or last in _FORBIDDEN_NAMES:
                found.append(Finding("forbidden", _where(root, lean, token), f"contains '{token.text}'"))
            elif (_is_word(token, "set_option") and following is not None
                  and following.value.split(".", 1)[0] == "debug"):
                found.append(Finding("forbidden", _where(root, lean, token),
                                     f"sets the debugging option '{following.value}'"))
    return found


def _check_meta(root: Path, files: Sequence[LeanFile]) -> list[Finding]:
    """Metaprograms (which can add declarations unseen by this audit) outside the allow-list."""
    found = []
    for lean in files:
        allowed = _META_ALLOWED.get(str(lean.path.relative_to(root)), frozenset())
        attributes = _attribute_tokens(lean.tokens)
        for index, token in enumerate(lean.tokens):
            word = _is_word(token, *_META_WORDS) or (index in attributes and _is_word(token, *_META_ATTRIBUTES))
            if word and token.value not in allowed:
                found.append(Finding("meta", _where(root, lean, token),
                                     f"'{token.text}' is a metaprogram; only {AUDIT_FILE} may run one "
                                     f"(its axiom check)"))
    return found


def _check_layout(root: Path, files: Sequence[LeanFile]) -> list[Finding]:
    """Every declaration and ``#`` command starts on a line of its own."""
    found = []
    for lean in files:
        tokens = lean.tokens
        keywords = set(_declaration_keywords(tokens)) | {k for k, t in enumerate(tokens) if t.kind == "command"}
        for index in sorted(keywords):
            start = _command_start(tokens, index)
            if start > 0 and tokens[start - 1].end_line == tokens[start].line:
                found.append(Finding("layout", _where(root, lean, tokens[index]),
                                     f"'{tokens[index].text}' starts on the line where the previous command "
                                     f"ends; put each command on a line of its own"))
    return found


def _check_style(root: Path, files: Sequence[LeanFile]) -> list[Finding]:
    """No line longer than :data:`_MAX_LINE` characters."""
    return [Finding("style", where, f"line has {len(line)} characters (max {_MAX_LINE})")
            for where, line in _numbered_lines(root, [lean.path for lean in files]) if len(line) > _MAX_LINE]


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
        where = f"{decl.path.relative_to(root)}:{decl.line}"
        row = ledger.get(name)
        if row is not None and row.file != str(decl.path.relative_to(root)):
            found.append(Finding("ledger", name, f"ledger says file {row.file}, declared in {where}"))
        doc_tests = tuple(_TEST_ID.findall(decl.docstring or ""))
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
        used = sorted({short_names.get(tok, tok) for tok in decl.signature_names
                       if tok in type_names or tok in short_names})
        if used:
            found.append(Finding("free-records", where,
                                 f"axiom {name} quantifies over project-defined type(s) {', '.join(used)}"))
    return found


def lean_name_order(first: str, second: str) -> int:
    """Lean's ``Name.cmp``, the order of ``#print axioms``: the prefixes first, then the last part
    (so ``propext < Classical.choice < LeJEPA.x < Quot.sound``)."""
    def cmp(a: tuple[str, ...], b: tuple[str, ...]) -> int:
        if not a or not b:
            return (len(a) > 0) - (len(b) > 0)
        return cmp(a[:-1], b[:-1]) or (a[-1] > b[-1]) - (a[-1] < b[-1])
    return cmp(tuple(first.split(".")), tuple(second.split(".")))


def _axiom_list(text: str) -> tuple[str, ...]:
    """The names in Lean's printed list ``a, b, c`` (any whitespace, line breaks included)."""
    return tuple(item.strip() for item in text.split(",") if item.strip())


def axiom_pins(audit_file: LeanFile, root: Path) -> tuple[list[AxiomPin], list[Finding]]:
    """The ``#guard_msgs`` pins of ``#print axioms`` in the audit file, and malformed ones."""
    pins, found, tokens = [], [], audit_file.tokens
    for index, token in enumerate(tokens):
        if not _is_word(token, "#guard_msgs"):
            continue
        shape = tokens[index + 1:index + 1 + len(_PIN_SHAPE)]
        target = tokens[index + 1 + len(_PIN_SHAPE)] if index + 1 + len(_PIN_SHAPE) < len(tokens) else None
        doc = tokens[index - 1] if index > 0 and tokens[index - 1].kind == "doc" else None
        info = _PIN_INFO.fullmatch(doc.value) if doc is not None else None
        where = _where(root, audit_file, token)
        if tuple(t.text for t in shape) != _PIN_SHAPE or target is None or target.kind != "ident":
            found.append(Finding("gate", where, "a #guard_msgs that is not "
                                 "'(whitespace := lax) in #print axioms NAME'"))
        elif info is None:
            found.append(Finding("gate", where, f"the pin of {target.value} has no doc comment "
                                 f"'info: '{target.value}' depends on axioms: [...]'"))
        elif info["name"] != target.value:
            found.append(Finding("gate", where, f"pins the output of {info['name']} on #print axioms "
                                 f"{target.value}; use the fully qualified name in both"))
        else:
            pins.append(AxiomPin(target.value, _axiom_list(info["axioms"] or ""), token.line))
    return pins, found


def _check_gate(root: Path, files: Sequence[LeanFile], decls: list[Declaration],
                ledger: dict[str, LedgerRow]) -> tuple[list[AxiomPin], list[Finding]]:
    """The pins of the audit file, and whether each is well formed and the build runs them."""
    by_path = {str(lean.path.relative_to(root)): lean for lean in files}
    audit_file = by_path.get(AUDIT_FILE)
    if audit_file is None:
        return [], [Finding("gate", AUDIT_FILE, "the audit file is missing")]
    pins, found = axiom_pins(audit_file, root)
    root_file = by_path.get(_ROOT_MODULE)
    audit_module = AUDIT_FILE.removesuffix(".lean").replace("/", ".")
    if root_file is None or audit_module not in root_file.imports:
        found.append(Finding("gate", _ROOT_MODULE, f"does not import {audit_module}, so lake build "
                             f"would not run the axiom gate"))
    declared = {d.name for d in decls}
    allowed = set(_LEAN_AXIOMS) | set(ledger)
    for pin in pins:
        where = f"{AUDIT_FILE}:{pin.line}"
        order = sorted(set(pin.axioms), key=functools.cmp_to_key(lean_name_order))
        if pin.name not in declared:
            found.append(Finding("gate", where, f"pins {pin.name}, which is not declared"))
        if outside := sorted(set(pin.axioms) - allowed):
            found.append(Finding("gate", where, f"{pin.name} is pinned to axioms outside Lean's and "
                                 f"the ledger's: {', '.join(outside)}"))
        elif list(pin.axioms) != order:
            found.append(Finding("gate", where, f"the axioms of {pin.name} are not in the order Lean "
                                 f"prints them: [{', '.join(order)}]"))
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


def _check_sources(root: Path, files: Sequence[LeanFile]) -> list[Finding]:
    """Every file under ``LeJEPAProofs/`` is imported, directly or not, by the root module."""
    by_path = {str(lean.path.relative_to(root)): lean for lean in files}
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
    pins, gate = _check_gate(root, files, decls, ledger)
    return pins, (_check_forbidden(root, files) + _check_meta(root, files) + _check_layout(root, files)
                  + _check_axioms(root, decls, ledger) + _check_registry(decls, pins, claims) + gate
                  + _check_sources(root, files) + _check_docs(root, decls) + _check_config(root)
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
