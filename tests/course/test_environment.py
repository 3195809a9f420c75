"""The ways of installing the course agree with each other.

pyproject.toml (pip, `make lab`), environment.yml (conda, Binder), the Makefile and
.ci/run must name the same dependencies, and torch must only ever be the optional,
exactly pinned test oracle.
"""
import importlib
import os
import re
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: jupyterlab depends on tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
TORCH_PIN = "torch==2.15.0"

# conda-forge name -> PyPI name, where they differ.
CONDA_TO_PYPI = {"python-graphviz": "graphviz"}
# conda packages that are not Python packages from PyPI.
CONDA_ONLY = {"python", "pip", "graphviz"}  # conda's "graphviz" is the `dot` program


def norm(requirement):
    """'Foo_Bar>=1.0 ; extra' -> 'foo-bar' (the normalised project name)."""
    name = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement).group(1)
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_simple_yaml(text):
    """Enough YAML for environment.yml: top-level keys with scalars or lists of
    scalars, and list items that are one-key mappings holding a list (`- pip:`)."""
    data, key, sub = {}, None, None
    for raw in text.splitlines():
        line = re.sub(r"\s+#.*$", "", raw).rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        item = line.strip()
        if indent == 0:
            key, _, value = item.partition(":")
            data[key] = value.strip() if value.strip() else []
            sub = None
        elif item.startswith("- ") and sub is not None and indent > sub[0]:
            sub[1].append(item[2:].strip())
        elif item.startswith("- "):
            value = item[2:].strip()
            if value.endswith(":"):
                sub = (indent, [])
                data[key].append({value[:-1]: sub[1]})
            else:
                sub = None
                data[key].append(value)
        else:
            raise ValueError(f"parse_simple_yaml cannot read: {raw!r}")
    return data


@pytest.fixture(scope="module")
def pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


@pytest.fixture(scope="module")
def conda_env():
    text = (ROOT / "environment.yml").read_text()
    data = parse_simple_yaml(text)
    try:
        import yaml  # comes with jupyterlab (via jupyter-events); cross-check the small parser
    except ModuleNotFoundError:
        return data
    assert yaml.safe_load(text) == data
    return data


def conda_split(env):
    """(conda requirement strings, pip requirement strings) of environment.yml."""
    conda, pip = [], []
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            pip.extend(dep.get("pip", []))
        else:
            conda.append(dep)
    return conda, pip


def test_conda_channel_is_conda_forge_only(conda_env):
    assert conda_env["name"] == "autograd-step-by-step"
    assert [c for c in conda_env["channels"] if c != "nodefaults"] == ["conda-forge"]


def test_conda_runtime_dependencies_match_pyproject(pyproject, conda_env):
    conda, pip = conda_split(conda_env)
    conda_names = {norm(d) for d in conda}
    runtime = {norm(d) for d in pyproject["project"]["dependencies"]}
    test_extra = {norm(d) for d in pyproject["project"]["optional-dependencies"]["test"]}
    python_pkgs = {CONDA_TO_PYPI.get(n, n) for n in conda_names - CONDA_ONLY} | (
        {"graphviz"} if "python-graphviz" in conda_names else set()
    )
    assert runtime <= python_pkgs, f"missing from environment.yml: {runtime - python_pkgs}"
    extra = python_pkgs - runtime
    assert extra <= test_extra, f"in environment.yml but not in pyproject: {extra - test_extra}"
    assert {"graphviz", "python-graphviz"} <= conda_names, "conda needs both dot and the bindings"
    assert "pip" in conda_names
    assert [p.strip() for p in pip] == ["-e ."], "environment.yml should pip-install the course"


def test_python_versions_agree(pyproject, conda_env):
    conda, _ = conda_split(conda_env)
    (python,) = [d for d in conda if norm(d) == "python"]
    assert python.replace(" ", "") == "python" + pyproject["project"]["requires-python"]


def test_torch_is_only_the_pinned_optional_oracle(pyproject, conda_env):
    project = pyproject["project"]
    assert "torch" not in {norm(d) for d in project["dependencies"]}
    extras = project["optional-dependencies"]
    for name, reqs in extras.items():
        torch_reqs = [r for r in reqs if norm(r) == "torch"]
        if name == "oracle":
            assert torch_reqs == [TORCH_PIN]
        else:
            assert not torch_reqs, f"torch in the {name!r} extra"
    conda, pip = conda_split(conda_env)
    named = conda + [p for p in pip if not p.startswith("-")]
    assert not [d for d in named if norm(d) in {"torch", "pytorch"}]
    # Any torch requirement spelled out anywhere must carry the exact pin.
    for path in ["Makefile", ".ci/run", "pyproject.toml", "README.md"]:
        for spec in re.findall(r"\btorch\s*[=<>!~]=?\s*[\w.+*]+", (ROOT / path).read_text()):
            assert spec.replace(" ", "") == TORCH_PIN, f"{path}: {spec}"


# --- Makefile -----------------------------------------------------------------

def makefile():
    """(variables, rules): simple `NAME := value` variables and
    target -> (prerequisites, recipe lines), names kept as written, e.g. '$(STAMP_LAB)'."""
    variables, rules, current = {}, {}, None
    for line in (ROOT / "Makefile").read_text().splitlines():
        if line.startswith("\t") and current is not None:
            rules[current][1].append(line.strip())
            continue
        current = None
        code = line.split("#", 1)[0] if not line.startswith("\t") else line
        if m := re.match(r"^(\.?[A-Za-z_][A-Za-z0-9_]*)\s*[:?+]?=\s*(.*)$", code):
            variables[m[1]] = m[2].strip()
        elif m := re.match(r"^([^\s:=][^:=]*?)\s*:(?!=)(.*)$", code):
            prereqs = m[2].replace("|", " ").split()
            for target in m[1].split():
                rules.setdefault(target, ([], []))[0].extend(prereqs)
                current = target
    return variables, rules


def expand(text, variables, depth=5):
    for _ in range(depth):
        text = re.sub(r"\$\((\w+)\)", lambda m: variables.get(m[1], m[0]), text)
    return text


def reachable(target, rules):
    seen, todo = set(), [target]
    while todo:
        t = todo.pop()
        if t not in seen and t in rules:
            seen.add(t)
            todo.extend(rules[t][0])
    return seen


def test_makefile_has_the_targets():
    _, rules = makefile()
    wanted = {"help", "lab", "test", "oracle", "bench", "clean", "distclean"}
    assert wanted <= set(rules)
    assert wanted <= set(rules[".PHONY"][0])
    variables, _ = makefile()
    assert variables.get(".DEFAULT_GOAL") == "help"
    assert variables.get("PORT") == "8888"


@pytest.mark.parametrize("target", ["lab", "test", "bench"])
def test_make_lab_and_test_never_install_torch(target):
    variables, rules = makefile()
    for t in reachable(target, rules):
        recipe = expand("\n".join(rules[t][1]), variables).lower()
        assert "torch" not in recipe and "oracle" not in recipe, f"{target} -> {t}"


def test_make_oracle_installs_the_pinned_torch():
    variables, rules = makefile()
    recipes = "\n".join(expand("\n".join(rules[t][1]), variables)
                        for t in reachable("oracle", rules))
    assert TORCH_PIN in recipes


def test_make_test_runs_strict_nbval():
    variables, rules = makefile()
    recipe = expand("\n".join(rules["test"][1]), variables)
    for flag in ["--nbval ", "--nbval-current-env", "--nbval-sanitize-with"]:
        assert flag in recipe
    assert "notebooks" in recipe and "solutions" in recipe
    assert "-eq 5" in recipe, "pytest's 'no tests collected' (exit 5) must fail make test"


def test_nbval_sanitize_file_is_valid():
    text = (ROOT / "tests" / "nbval_sanitize.cfg").read_text()
    pairs = re.findall(r"^regex: (.*)$\n^replace: (.*)$", text, flags=re.MULTILINE)
    assert pairs, "nbval reads 'regex: ...' / 'replace: ...' line pairs"
    for regex, _ in pairs:
        re.compile(regex)


# --- CI, layout ---------------------------------------------------------------

def test_ci_runs_oracle_then_make_test():
    path = ROOT / ".ci" / "run"
    text = path.read_text()
    assert os.access(path, os.X_OK)
    assert "set -euo pipefail" in text
    commands = [line.strip() for line in text.splitlines() if line.strip().startswith("make ")]
    assert "make test" in commands
    assert commands.index("make oracle") < commands.index("make test")


def test_gitignore_covers_generated_files():
    ignored = (ROOT / ".gitignore").read_text().split()
    for entry in [".venv/", "__pycache__/", ".ipynb_checkpoints/", ".pytest_cache/",
                  "workspace/"]:
        assert entry in ignored


@pytest.mark.parametrize(
    "module", ["engine", "engine.nn", "engine.nn.functional", "engine.optim", "engine.autograd"]
)
def test_engine_packages_import(module):
    imported = importlib.import_module(module)
    assert getattr(imported, "__file__", None), f"{module} imported as a namespace package"
    assert Path(imported.__file__).resolve().is_relative_to(ROOT / "engine")
