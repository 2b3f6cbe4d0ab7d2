"""The lock files of requirements/ (``make lock``): every release pinned with its hashes, every
dependency of pyproject.toml in the lock of its extra at a version it allows, one version of a
package across the locks, and every installer (make, the image, CI) installing from them."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
LOCKS = {"main": [], "dev": ["dev"], "bench": ["bench"], "all": ["dev", "bench"]}
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+) \\$")


def pins(name: str) -> dict[str, tuple[str, int]]:
    """The lock ``name``: package → (version, number of hashes)."""
    found: dict[str, tuple[str, int]] = {}
    current = None
    for line in (ROOT / "requirements" / f"{name}.txt").read_text().splitlines():
        if match := PIN.match(line):
            current = canonicalize_name(match[1])
            found[current] = (match[2], 0)
        elif line.strip().startswith("--hash=sha256:") and current:
            version, hashes = found[current]
            found[current] = (version, hashes + 1)
        elif line and not line.startswith((" ", "#")):
            raise AssertionError(f"{name}.txt: not a pinned requirement: {line}")
    return found


def declared(extras: list[str]) -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [Requirement(text) for text in project["dependencies"]]
    for extra in extras:
        wanted += [Requirement(text) for text in project["optional-dependencies"][extra]]
    return wanted


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_each_lock_pins_every_declared_dependency_with_hashes(lock: str) -> None:
    locked = pins(lock)
    assert all(hashes for _, hashes in locked.values())  # --require-hashes needs them all
    for requirement in declared(LOCKS[lock]):
        version, _ = locked[canonicalize_name(requirement.name)]
        assert requirement.specifier.contains(version, prereleases=True), (requirement, version)
    assert "setuptools" in locked  # the build backend: the project installs without isolation


def test_the_locks_agree_on_every_version() -> None:
    everything = {name: version for name, (version, _) in pins("all").items()}
    for lock in ("main", "dev", "bench"):
        for name, (version, _) in pins(lock).items():
            assert everything[name] == version, (lock, name)


def test_make_the_image_and_ci_install_from_the_locks_only() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "pip install --require-hashes --no-deps -r" in makefile
    for marker in (".installed-run: requirements/main.txt", ".installed-dev: requirements/dev.txt"):
        assert marker in makefile
    assert not re.search(r"pip install (-e )?['\"]?\.\[", makefile)  # no resolving from ranges
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "pip install --require-hashes --no-deps -r requirements/main.txt" in dockerfile
    assert "pip install --no-deps --no-build-isolation ." in dockerfile
    assert "make test" in (ROOT / ".ci" / "run").read_text()  # whose venv is make's, above
    dependabot = (ROOT / ".github" / "dependabot.yml").read_text()
    assert {"pip", "npm", "docker"} <= set(re.findall(r"package-ecosystem: (\w+)", dependabot))
