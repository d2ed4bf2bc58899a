"""Each module of ``lejepa_wm`` says what it offers: an ``__all__`` that names only what exists and names every
public function and class the module defines; whatever else it defines is private by name (a leading underscore).

Names a module imports from elsewhere are not its own and need not be listed (a module may still re-export them).
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import lejepa_wm

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "lejepa_wm"


def module_name(path: str) -> str:
    """``lejepa_wm/report/__init__.py`` -> ``lejepa_wm.report``; ``lejepa_wm/atomic.py`` -> ``lejepa_wm.atomic``."""
    parts = path.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def public_definitions(source: str) -> list[str]:
    """The functions and classes ``source`` defines at its top level under a name without a leading underscore."""
    return [node.name for node in ast.parse(source).body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not node.name.startswith("_")]


def declares_all(source: str) -> bool:
    """Whether ``source`` assigns ``__all__`` at its top level."""
    return any(isinstance(target, ast.Name) and target.id == "__all__"
               for node in ast.parse(source).body if isinstance(node, (ast.Assign, ast.AnnAssign))
               for target in (node.targets if isinstance(node, ast.Assign) else [node.target]))


def violations(path: str, source: str, exported: list[str]) -> list[str]:
    """What is wrong with the module at ``path`` whose source is ``source`` and whose ``__all__`` is ``exported``."""
    found = [] if declares_all(source) else [f"{path}: defines no __all__"]
    found += [f"{path}: public {name} is missing from __all__" for name in public_definitions(source)
              if name not in exported]
    return found


@pytest.fixture(scope="module")
def sources() -> dict[str, str]:
    return {path.relative_to(REPO).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted(PACKAGE.rglob("*.py"))}


@pytest.fixture(scope="module")
def exported(sources: dict[str, str]) -> dict[str, list[str]]:
    return {path: list(getattr(importlib.import_module(module_name(path)), "__all__", [])) for path in sources}


def test_every_module_declares_all_and_lists_each_public_function_and_class(
        sources: dict[str, str], exported: dict[str, list[str]]) -> None:
    checked = [name for source in sources.values() for name in public_definitions(source)]
    assert len(sources) > 80 and len(checked) > 200  # the rule looked at the whole package
    assert [entry for path, source in sources.items() for entry in violations(path, source, exported[path])] == []


def test_every_name_in_all_exists(exported: dict[str, list[str]]) -> None:
    assert sum(map(len, exported.values())) > 300
    missing = [f"{path}: {name}" for path, names in exported.items() for name in names
               if not hasattr(importlib.import_module(module_name(path)), name)]
    assert missing == []
    assert [path for path, names in exported.items() if len(names) != len(set(names))] == []


@pytest.mark.parametrize("path, addition, breach", [
    ("lejepa_wm/atomic.py", "def helper() -> None:\n    return None", "public helper is missing"),
    ("lejepa_wm/experiments/training.py", "class Helper:\n    pass", "public Helper is missing"),
    ("lejepa_wm/report/gather.py", "async def fetch() -> None:\n    return None", "public fetch is missing"),
])
def test_an_injected_unlisted_definition_is_caught(sources: dict[str, str], exported: dict[str, list[str]], path: str,
                                                   addition: str, breach: str) -> None:
    assert violations(path, sources[path], exported[path]) == []
    found = violations(path, sources[path] + "\n\n" + addition + "\n", exported[path])
    assert len(found) == 1 and breach in found[0]
    assert violations(path, sources[path] + "\n\n" + addition.replace(" helper", " _helper").replace(" Helper", " _Helper")
                      .replace(" fetch", " _fetch") + "\n", exported[path]) == []


def test_a_module_without_all_is_caught(sources: dict[str, str], exported: dict[str, list[str]]) -> None:
    path = "lejepa_wm/seeds.py"
    without = "\n".join(line for line in sources[path].splitlines() if not line.startswith("__all__"))
    assert violations(path, without, exported[path]) == [f"{path}: defines no __all__"]


def test_the_package_exports_the_building_blocks_a_researcher_imports() -> None:
    blocks = {
        "worlds": {"GaussianWorld", "GeneralizedNormalWorld", "rates_to_rho"},
        "renderers": {"make_renderer", "RENDERERS"},
        "encoders": {"build_encoder", "MLPEncoder", "ENCODERS"},
        "objectives": {"SIGReg", "build_objective", "alignment_loss", "whitening_loss", "infonce_loss"},
        "training": {"train", "TrainSettings", "WorldPairs", "DatasetPairs"},
        "metrics": {"HeldOutSamples", "embed", "reported_metrics", "linear_probe_r2", "procrustes_error"},
        "verdict rule": {"Bound", "HeadlineEntry", "verdict_of"},
        "run parameters": {"SyntheticRunParams", "RendererParams", "EncoderParams", "ObjectiveParams"},
    }
    assert {group: sorted(names - set(lejepa_wm.__all__)) for group, names in blocks.items()} == {
        group: [] for group in blocks}
    assert all(not name.startswith("_") or name == "__version__" for name in lejepa_wm.__all__)
