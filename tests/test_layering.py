"""The package's layers, as docs/ARCHITECTURE.md tables them, checked on the source with ``ast``.

Rules: every module sits in exactly one layer of the table; a module imports
modules of its own layer and of the layers above it in the table, never of a
later one (so nothing outside ``lejepa_wm/commands/`` imports the command
line); every import of a ``lejepa_wm`` module is at module level, never inside
a function or class; and modules are imported by name, with
``importlib.import_module`` or ``__import__`` only where :data:`DYNAMIC_IMPORTS`
says why.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "lejepa_wm"
ARCHITECTURE = REPO / "docs" / "ARCHITECTURE.md"
COMMANDS = "lejepa_wm/commands/"

DYNAMIC_IMPORTS = {
    "lejepa_wm/__init__.py": "the public names, each imported on first use so `import lejepa_wm` stays light",
    "lejepa_wm/experiments/__init__.py": "the experiment registry: experiments are named by module path (a user's "
                                         "own ones too, from entry points)",
    "lejepa_wm/sweep/worker.py": "a worker imports its run's experiment by the module path its task carries",
}
"""The only modules allowed to import a module named at run time, and why."""


def layer_table(text: str) -> list[tuple[str, list[str]]]:
    """The rows of the table under ``## Layers``: each layer's name and its module paths (files or folders)."""
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]  # past the header and its rule
    table = []
    for row in rows:
        name, modules = (cell.strip() for cell in row.strip("|").split("|")[:2])
        table.append((name, re.findall(r"`([^`]+)`", modules)))
    return table


def module_name(path: str) -> str:
    """``lejepa_wm/report/__init__.py`` -> ``lejepa_wm.report``; ``lejepa_wm/atomic.py`` -> ``lejepa_wm.atomic``."""
    parts = path.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(path: str, table: list[tuple[str, list[str]]]) -> int:
    """Index in ``table`` of the layer holding the module at ``path``: its file named, else the deepest folder."""
    matches = [(len(entry), index) for index, (_, entries) in enumerate(table) for entry in entries
               if entry == path or (entry.endswith("/") and path.startswith(entry))]
    if not matches:
        raise LookupError(f"{path} is in no layer of docs/ARCHITECTURE.md")
    return max(matches)[1]


def imported_modules(node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: set[str]) -> list[str]:
    """The ``lejepa_wm`` modules an import statement loads (``from lejepa_wm import x`` loads ``lejepa_wm.x``)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name.split(".")[0] == PACKAGE]
    base = node.module or ""
    if node.level:
        package = module.split(".")[: len(module.split(".")) - node.level + (1 if is_package else 0)]
        base = ".".join(package + ([base] if base else []))
    if base.split(".")[0] != PACKAGE:
        return []
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]


def violations(sources: dict[str, str], table: list[tuple[str, list[str]]],
               names: dict[str, str] | None = None) -> list[str]:
    """Every breach of the rules in ``sources`` (path relative to the repository -> its text); ``names`` maps every
    module of the package to its path (default: those of ``sources``)."""
    names = names if names is not None else {module_name(path): path for path in sources}
    found: list[str] = []
    for path, text in sorted(sources.items()):
        try:
            layer = layer_of(path, table)
        except LookupError as exc:
            found.append(str(exc))
            continue
        module, is_package = module_name(path), path.endswith("__init__.py")
        tree = ast.parse(text, path)
        top_level = {id(node) for node in ast.walk(tree)} - {
            id(inner) for outer in ast.walk(tree) if isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                        ast.ClassDef, ast.Lambda))
            for inner in ast.walk(outer) if inner is not outer}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and path not in DYNAMIC_IMPORTS and (
                    (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                    or (isinstance(node.func, ast.Name) and node.func.id in ("import_module", "__import__"))):
                found.append(f"{path}:{node.lineno} imports a module by name at run time; import it normally")
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in imported_modules(node, module, is_package, set(names)):
                where = f"{path}:{node.lineno} imports {target}"
                if id(node) not in top_level:
                    found.append(f"{where} inside a function or class; import it at module level")
                if target.startswith(f"{PACKAGE}.commands") and not path.startswith(COMMANDS):
                    found.append(f"{where}: only the command line imports lejepa_wm.commands")
                target_path = names.get(target)
                if target_path is not None and layer_of(target_path, table) > layer:
                    found.append(f"{where}, of layer {table[layer_of(target_path, table)][0]!r}, from layer "
                                 f"{table[layer][0]!r}: a layer imports only its own and earlier layers")
    return found


@pytest.fixture(scope="module")
def table() -> list[tuple[str, list[str]]]:
    return layer_table(ARCHITECTURE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def sources() -> dict[str, str]:
    return {path.relative_to(REPO).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted((REPO / PACKAGE).rglob("*.py"))}


def test_the_layer_table_names_the_documented_order_and_existing_modules(table: list[tuple[str, list[str]]]) -> None:
    assert [name for name, _ in table] == ["records", "numerics", "experiments", "sweep", "report", "commands"]
    for _, entries in table:
        for entry in entries:
            assert (REPO / entry).exists(), f"docs/ARCHITECTURE.md names {entry}, which does not exist"


def test_every_module_respects_the_layers(sources: dict[str, str], table: list[tuple[str, list[str]]]) -> None:
    assert violations(sources, table) == []


@pytest.mark.parametrize("path, line, breach", [
    ("lejepa_wm/records.py", "from lejepa_wm.commands import cli", "only the command line imports"),
    ("lejepa_wm/sweep/driver.py", "from lejepa_wm.commands.exits import OK", "only the command line imports"),
    ("lejepa_wm/numerics/hermite.py", "from lejepa_wm.experiments import base", "a layer imports only"),
    ("lejepa_wm/experiments/base.py", "import lejepa_wm.report.gather", "a layer imports only"),
    ("lejepa_wm/report/gather.py", "def f():\n    from lejepa_wm import records", "inside a function"),
    ("lejepa_wm/claims.py", "import importlib\nimportlib.import_module('lejepa_wm.numerics.verify_t1')", "at run time"),
    ("lejepa_wm/sweep/status.py", "from . import driver\nfrom .. import report", "a layer imports only"),
])
def test_an_injected_bad_import_is_caught(sources: dict[str, str], table: list[tuple[str, list[str]]], path: str,
                                          line: str, breach: str) -> None:
    found = violations({path: sources[path] + "\n" + line + "\n"}, table,
                       {module_name(module): module for module in sources})
    assert found and all(entry.startswith(path) for entry in found) and any(breach in entry for entry in found)
