"""`make lint` (ruff, configured in pyproject.toml) as part of `make test`: code and notebooks
stay clean without anyone remembering to run it."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def ruff():
    beside = Path(sys.executable).with_name("ruff")
    return str(beside) if beside.exists() else shutil.which("ruff")


@pytest.mark.skipif(ruff() is None, reason="ruff is not installed (`make test` installs it)")
def test_ruff_finds_nothing():
    result = subprocess.run([ruff(), "check", "--no-cache", "."], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-1000:]


def test_no_module_defines_a_name_twice():
    """A second top-level ``def _fma`` (or class) in a module silently replaces the first for
    every caller, those written above it too (ruff's F811 says nothing once the first was
    used): float32_math's SLEEF steps once ran a later, different ``_fma``."""
    import ast

    twice = []
    for folder in ("engine", "exercises", "course_tools", "bench", "tests"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            seen = set()
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    if node.name in seen:
                        twice.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
                    seen.add(node.name)
    assert not twice, twice
