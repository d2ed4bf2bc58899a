"""A small reader for Lean 4 sources: comments, doc comments, namespaces and declarations.

It understands exactly what the static audit needs and nothing more:
line comments ``--``, nested block comments ``/- -/``, doc comments ``/-- -/``
and module docs ``/-! -/``, ``namespace``/``section``/``end`` blocks, and
declaration headers (``theorem``, ``lemma``, ``def``, ``axiom``, ``structure``,
...) with their modifiers and attributes. It is not a Lean parser: it reads
the layout conventions Mathlib-style sources follow (one declaration keyword
at the start of a line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

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
