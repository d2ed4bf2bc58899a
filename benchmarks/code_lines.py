"""Code lines of the package at git revisions: how the size of ``lejepa_wm`` changes.

A code line is a line that holds at least one token other than a comment, a
docstring (the first statement of a module, class or function when it is a
string) or layout (newlines, indentation). Blank lines, comments and
docstrings therefore do not count, and a statement spread over three lines
counts three. Files are read from git (``git ls-tree`` and ``git show``), so
any revision can be measured without checking it out; ``worktree`` measures
the files as they are on disk.

    python benchmarks/code_lines.py f091bfe HEAD            # totals per revision
    python benchmarks/code_lines.py f091bfe HEAD --by-folder  # and per sub-package
"""

from __future__ import annotations

import argparse
import ast
import io
import subprocess
import tokenize
from collections import Counter
from pathlib import Path, PurePosixPath

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "lejepa_wm"
LAYOUT = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
WORKTREE = "worktree"


def docstring_lines(tree: ast.AST) -> set[int]:
    """Line numbers of every module, class and function docstring in ``tree``."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                lines.update(range(first.lineno, first.end_lineno + 1))
    return lines


def code_lines(source: str) -> int:
    """Number of lines of ``source`` that hold a token other than a comment, a docstring or layout."""
    docstrings = docstring_lines(ast.parse(source))
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in LAYOUT:
            lines.update(line for line in range(token.start[0], token.end[0] + 1) if line not in docstrings)
    return len(lines)


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, check=True, capture_output=True, text=True).stdout


def package_sources(revision: str) -> dict[str, str]:
    """Every ``.py`` file of the package at ``revision`` (``worktree``: on disk), by path."""
    if revision == WORKTREE:
        return {str(path.relative_to(REPO)): path.read_text(encoding="utf-8")
                for path in sorted((REPO / PACKAGE).rglob("*.py"))}
    paths = git("ls-tree", "-r", "--name-only", revision, PACKAGE).split()
    return {path: git("show", f"{revision}:{path}") for path in paths if path.endswith(".py")}


def folder_of(path: str) -> str:
    """The sub-package a file belongs to (``experiments/reacher``), or the file itself at the top level."""
    relative = PurePosixPath(path).relative_to(PACKAGE)
    return str(relative.parent) if relative.parent != PurePosixPath(".") else relative.name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revisions", nargs="*", default=["HEAD"], help=f"git revisions, or {WORKTREE!r}")
    parser.add_argument("--by-folder", action="store_true", help="also count per sub-package")
    args = parser.parse_args()
    counts = {rev: Counter({path: code_lines(text) for path, text in package_sources(rev).items()})
              for rev in args.revisions}
    if args.by_folder:
        folders = sorted({folder_of(path) for count in counts.values() for path in count})
        print(f"{'folder':<24}" + "".join(f"{rev:>12}" for rev in args.revisions))
        for folder in folders:
            row = [sum(n for path, n in count.items() if folder_of(path) == folder) for count in counts.values()]
            print(f"{folder:<24}" + "".join(f"{n:>12}" for n in row))
    print(f"{'total':<24}" + "".join(f"{sum(count.values()):>12}" for count in counts.values()))


if __name__ == "__main__":
    main()
