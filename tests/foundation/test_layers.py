"""The import contracts of ``pyproject.toml`` (``lint-imports``, run by ``make lint``) hold, and
they catch what they are for: each test plants one defect in a temporary copy of the code and
expects the linter to fail on it, naming the contract it breaks."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
PACKAGES = ("config", "core", "games", "leaderboards", "leagues")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")  # the dev extra's


def lint(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", str(root / "pyproject.toml")],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the code and its contracts, with nothing planted yet."""
    root = tmp_path_factory.mktemp("layers")
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def planted(copy: Path, tmp_path: Path, module: str, line: str) -> Path:
    """Return a fresh copy of ``copy`` where ``module`` (a path) starts with ``line``."""
    root = tmp_path / "planted"
    shutil.copytree(copy, root)
    path = root / module
    text = path.read_text()
    head, _, rest = text.partition("from __future__ import annotations\n")
    path.write_text(f"{head}from __future__ import annotations\n{line}\n{rest}")
    return root


def test_the_code_keeps_every_contract(copy: Path) -> None:
    result = lint(copy)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        # the engine reaching for Django
        ("games/engine/moves.py", "import django.conf", "The rules engine is pure Python"),
        # games reaching up into leaderboards
        ("games/services/games.py", "import leaderboards.ranking", "The apps above"),
        # a model reaching up into the services
        ("games/models.py", "import games.services", "games: adapters above services"),
        # a selector that writes through a service
        ("leaderboards/selectors.py", "import leaderboards.services", "leaderboards: adapters"),
        # a cycle between two services of one package
        ("games/services/deals.py", "import games.services.days", "No import cycle"),
    ],
    ids=["engine-django", "games-leaderboards", "model-service", "selector-service", "cycle"],
)
def test_a_planted_import_breaks_its_contract(
    copy: Path, tmp_path: Path, module: str, line: str, contract: str
) -> None:
    result = lint(planted(copy, tmp_path, module, line))

    assert result.returncode != 0
    broken = result.stdout.split("Broken contracts", 1)[-1]
    assert contract in broken, result.stdout
