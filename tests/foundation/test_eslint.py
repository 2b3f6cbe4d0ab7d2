"""ESLint (``eslint.config.js``, run by ``make lint``) passes the browser client and catches what it
is for: a temporary copy of the client with one planted undefined name fails it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
CLIENT = Path("frontend/static/frontend")

pytestmark = [
    pytest.mark.skipif(
        shutil.which("node") is None or shutil.which("npx") is None,
        reason="Node.js and npm are not installed (the CI script installs them)",
    ),
    pytest.mark.skipif(
        not (ROOT / "node_modules/.bin/eslint").exists(),
        reason="ESLint is not installed: `make lint` installs it (npm ci)",
    ),
]


def eslint(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["npx", "--no", "eslint", "."],  # --no: never download, use node_modules
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A copy of the client, its ESLint configuration and the installed ESLint."""
    root = tmp_path / "client"
    shutil.copytree(ROOT / CLIENT, root / CLIENT)
    for name in ("eslint.config.js", "package.json"):
        shutil.copy(ROOT / name, root / name)
    (root / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    return root


def test_the_client_passes_eslint(copy: Path) -> None:
    result = eslint(copy)

    assert result.returncode == 0, result.stdout + result.stderr


def test_a_planted_undefined_name_fails_eslint(copy: Path) -> None:
    module = copy / CLIENT / "dom.js"
    module.write_text(module.read_text() + "export const planted = plantedUndefinedName;\n")

    result = eslint(copy)

    assert result.returncode == 1, result.stdout + result.stderr
    assert "'plantedUndefinedName' is not defined" in result.stdout
    assert "no-undef" in result.stdout
    assert "dom.js" in result.stdout
