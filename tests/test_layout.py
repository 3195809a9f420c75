"""The repository's shape, enforced: who imports whom, no import cycles, and each folder holding
what its audience needs (issue 24).

    engine  <-  exercises  <-  course_tools  <-  tests, bench

- ``engine/`` is what the engine's reader reads; it imports none of the others (its own layers
  are in tests/core/test_architecture.py).
- ``exercises/`` is what a learner opens: the exercise notebooks and ``exercises.checks``, the
  one package they import. It never imports the course's tools, nor the engine or torch: a
  checker reads answers through what engine tensors and torch tensors share.
- ``course_tools/`` is what an author or instructor runs (and the learner's workspace tool).
- ``tests/`` and ``bench/`` may import anything.

Every import statement counts, wherever it stands (inside a function too), so no cycle can
hide in a late import; and engine/, exercises/, course_tools/ and bench/ import the
repository's modules at the top only. A module is known by every name it can be imported
under: from the root (``tests.parity``), and from the folders put on ``sys.path``
(``parity``: pytest's ``pythonpath = ["tests"]``; bench/'s scripts run from bench/).

The checks take the repository's root as a parameter: the last tests plant each kind of
mistake in a small made-up repository and see it reported.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Each top-level folder holding Python, and the folders it may import from (besides itself).
MAY_IMPORT = {
    "engine": set(),
    "exercises": set(),
    "course_tools": {"engine", "exercises"},
    "tests": {"engine", "exercises", "course_tools", "bench"},
    "bench": {"engine", "exercises", "course_tools", "tests"},
}
# Third-party packages a folder never imports, on top of the layers.
NEVER_IMPORTS = {"exercises": {"torch"}, "engine": {"torch"}}
NO_LATE_IMPORTS = ("engine", "exercises", "course_tools", "bench")
# Folders on sys.path besides the root, where their modules are imported by shorter names.
PATH_FOLDERS = ("tests", "bench")
# Not the repository's source: a learner's own copy (git-ignored), build outputs.
NOT_SOURCE = {"workspace", "build", "dist", "node_modules"}
IGNORED = {"__pycache__", ".ipynb_checkpoints"}


def _ignored(path: Path, root: Path) -> bool:
    return any(part in IGNORED for part in path.relative_to(root).parts)


def python_files(root: Path) -> list[Path]:
    """Every .py file of the layered folders."""
    return sorted(path for folder in MAY_IMPORT if (root / folder).is_dir()
                  for path in (root / folder).rglob("*.py") if not _ignored(path, root))


def module_names(root: Path, files) -> dict[str, list[Path]]:
    """Every name each file can be imported under -> the files of that name."""
    names: dict[str, list[Path]] = {}
    for path in files:
        bases = [root] + [root / folder for folder in PATH_FOLDERS
                          if path.is_relative_to(root / folder)]
        for base in bases:
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            if parts:
                names.setdefault(".".join(parts), []).append(path)
    return names


class _Imports(ast.NodeVisitor):
    """Every import statement of a module: (node, inside a function or class?)."""

    def __init__(self):
        self.found, self.depth = [], 0

    def _nested(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _nested

    def visit_Import(self, node):
        self.found.append((node, self.depth > 0))

    visit_ImportFrom = visit_Import


def _targets(node, own_name: str, is_package: bool, names) -> list[str]:
    """The absolute module names an import statement names (repository's or not)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        package = own_name if is_package else own_name.rpartition(".")[0]
        parts = package.split(".")[:len(package.split(".")) - node.level + 1]
        base = ".".join(parts + ([node.module] if node.module else []))
    else:
        base = node.module
    # `from engine import nn` names the module engine.nn; `from engine import tensor` engine
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in names else base
            for alias in node.names]


def _resolve(target: str, names) -> list[Path]:
    """The repository's files a module name means ([] for another package's module)."""
    parts = target.split(".")
    for end in range(len(parts), 0, -1):  # `import a.b.c` of a package a.b's attribute
        found = names.get(".".join(parts[:end]))
        if found:
            return found
    return []


@functools.cache  # the repository is read once for all the tests below
def imports(root: Path) -> tuple:
    """(file, line, imported name, the repository's file it means or None, late?) for every
    import statement of every layered file."""
    return tuple(_imports(root))


def _imports(root: Path):
    files = python_files(root)
    names = module_names(root, files)
    for path in files:
        own = path.relative_to(root).with_suffix("").parts
        own_name = ".".join(own[:-1] if own[-1] == "__init__" else own)
        collector = _Imports()
        collector.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        for node, late in collector.found:
            for target in _targets(node, own_name, path.name == "__init__.py", names):
                found = [f for f in _resolve(target, names) if f != path] or [None]
                for file in found:
                    yield path, node.lineno, target, file, late


def folder_of(path: Path, root: Path) -> str:
    return path.relative_to(root).parts[0]


def layer_violations(root: Path) -> list[str]:
    wrong = []
    for path, line, target, file, _late in imports(root):
        source = folder_of(path, root)
        where = f"{path.relative_to(root)}:{line} imports {target}"
        if file is not None:
            folder = folder_of(file, root)
            if folder != source and folder not in MAY_IMPORT[source]:
                wrong.append(where)
        elif target.split(".")[0] in NEVER_IMPORTS.get(source, ()):
            wrong.append(where)
    return wrong


def late_imports(root: Path) -> list[str]:
    return [f"{path.relative_to(root)}:{line} imports {target} inside a function"
            for path, line, target, file, late in imports(root)
            if late and file is not None and folder_of(path, root) in NO_LATE_IMPORTS]


def import_graph(root: Path) -> dict[Path, set[Path]]:
    graph = {path: set() for path in python_files(root)}
    for path, _line, _target, file, _late in imports(root):
        if file is not None:
            graph[path].add(file)
    return graph


def find_cycle(graph) -> list:
    """One import cycle (its modules, the first repeated at the end), or []."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = "done"
        return []

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return []


def unlayered_folders(root: Path) -> list[str]:
    """Top-level folders holding Python that belong to no layer (and .py files at the root)."""
    found = [path.name for path in root.glob("*.py")]
    for folder in sorted(root.iterdir()):
        if (not folder.is_dir() or folder.name.startswith(".") or folder.name in NOT_SOURCE
                or folder.name.endswith(".egg-info") or folder.name in MAY_IMPORT):
            continue
        if any(not _ignored(path, root) for path in folder.rglob("*.py")):
            found.append(f"{folder.name}/")
    return found


def _holds_files(path: Path) -> bool:
    """A file, or a folder with a file in it (not only caches: a folder git left behind)."""
    return path.is_file() or any(p.is_file() and not _ignored(p, path) for p in path.rglob("*"))


def stray_files(folder: Path, allowed) -> list[str]:
    """What ``folder`` holds beyond ``allowed(name, is_dir)``."""
    return sorted(path.name for path in folder.iterdir()
                  if path.name not in IGNORED and _holds_files(path)
                  and not allowed(path.name, path.is_dir()))


def ambiguous_names(root: Path) -> dict[str, list[str]]:
    """Module names that mean two files (a test folder named like a package of the root)."""
    return {name: [str(path.relative_to(root)) for path in paths]
            for name, paths in module_names(root, python_files(root)).items() if len(paths) > 1}


def _learner_facing(name: str, is_dir: bool) -> bool:
    """exercises/: the notebooks, their README, the package's __init__ and its one package;
    zh-CN/ holds the Chinese edition's notebooks, and only them."""
    if is_dir:
        return name == "checks" or (name == "zh-CN" and _notebooks_only(ROOT / "exercises" / name))
    return name in ("README.md", "__init__.py") or _numbered_notebook(name)


def _numbered_notebook(name: str) -> bool:
    return name.endswith(".ipynb") and name[:2].isdigit()


def _notebooks_only(folder: Path) -> bool:
    return not stray_files(folder, lambda name, is_dir: not is_dir and _numbered_notebook(name))


def _names(cycle, root):
    return " -> ".join(str(path.relative_to(root)) for path in cycle)


# --- the repository ------------------------------------------------------------------------

def test_every_folder_holding_python_belongs_to_a_layer():
    assert not unlayered_folders(ROOT), "give it a place in MAY_IMPORT, or move it"


def test_every_module_name_means_one_file():
    """tests/ is on sys.path: a test folder named like a package of the root (tests/course/
    and a course/ package) would make `import course...` find the wrong one."""
    assert not ambiguous_names(ROOT)


def test_imports_follow_the_layers():
    wrong = layer_violations(ROOT)
    assert not wrong, "imports against engine <- exercises <- course_tools:\n" + "\n".join(wrong)


def test_no_import_cycles_anywhere():
    cycle = find_cycle(import_graph(ROOT))
    assert not cycle, "import cycle: " + _names(cycle, ROOT)


def test_no_late_imports_of_the_repositorys_modules():
    late = late_imports(ROOT)
    assert not late, "import at the top (a late import hides a cycle):\n" + "\n".join(late)


def test_exercises_holds_only_what_a_learner_opens():
    assert stray_files(ROOT / "exercises", _learner_facing) == [], \
        "the course's tools go to course_tools/, checkers to exercises/checks/"


def test_ci_holds_only_the_ci_script():
    assert stray_files(ROOT / ".ci", lambda name, is_dir: name == "run" and not is_dir) == [], \
        "the browser edition's build is in course_tools/site/"


def test_the_graph_sees_the_course():
    """The checks above look at what they should: the checkers' imports are found."""
    graph = import_graph(ROOT)
    toolkit = ROOT / "exercises" / "checks" / "toolkit.py"
    assert ROOT / "exercises" / "checks" / "answer_cells.py" in graph[toolkit]
    assert toolkit in graph[ROOT / "exercises" / "checks" / "copying.py"]
    assert ROOT / "tests" / "parity.py" in graph[ROOT / "tests" / "core" / "test_misuse.py"]
    assert len(graph) > 200


# --- the checks themselves, on a made-up repository ----------------------------------------

def made_up(tmp_path, files: dict) -> Path:
    for name, source in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(source)
    return tmp_path


def test_a_cycle_through_a_late_import_is_found(tmp_path):
    root = made_up(tmp_path, {
        "course_tools/__init__.py": "",
        "course_tools/generate.py": "from course_tools import execute\n",
        "course_tools/execute.py": "def run():\n    from course_tools.generate import x\n",
    })
    cycle = [path.name for path in find_cycle(import_graph(root))]
    assert cycle in (["execute.py", "generate.py", "execute.py"],
                     ["generate.py", "execute.py", "generate.py"])
    assert late_imports(root) == ["course_tools/execute.py:2 imports course_tools.generate "
                                  "inside a function"]


def test_a_cycle_in_tests_and_relative_imports_are_found(tmp_path):
    root = made_up(tmp_path, {
        "tests/helpers.py": "import other\n",
        "tests/other.py": "def f():\n    from tests import helpers\n",  # late, but in tests
        "engine/__init__.py": "from . import core\n",
        "engine/core.py": "from .ops import add\n",
        "engine/ops.py": "def add():\n    pass\n",
    })
    graph = import_graph(root)
    assert root / "engine" / "ops.py" in graph[root / "engine" / "core.py"]
    assert root / "engine" / "core.py" in graph[root / "engine" / "__init__.py"]
    assert [p.name for p in find_cycle(graph)] == ["helpers.py", "other.py", "helpers.py"]
    assert late_imports(root) == []  # tests may import late; the cycle is still found


def test_imports_against_the_layers_are_found(tmp_path):
    root = made_up(tmp_path, {
        "engine/__init__.py": "import exercises\n",
        "exercises/__init__.py": "",
        "exercises/checks/__init__.py": "",
        "exercises/checks/copying.py": "import torch\nfrom course_tools import workspace\n",
        "course_tools/__init__.py": "",
        "course_tools/workspace.py": "import engine\nfrom exercises.checks import copying\n",
    })
    assert layer_violations(root) == [
        "engine/__init__.py:1 imports exercises",
        "exercises/checks/copying.py:1 imports torch",
        "exercises/checks/copying.py:2 imports course_tools.workspace",
    ]


def test_folders_out_of_place_are_found(tmp_path):
    root = made_up(tmp_path, {
        "scripts/tool.py": "",
        "notebooks/00_welcome.ipynb": "{}",
        "workspace/mine.py": "",  # a learner's own
        "exercises/README.md": "", "exercises/01_x.ipynb": "{}",
        "exercises/checks/__init__.py": "",
        "exercises/generate.py": "", "exercises/labextension/package.json": "{}",
        "exercises/__pycache__/x.pyc": "",
        ".ci/run": "", ".ci/site/build_site.py": "", ".ci/old/__pycache__/x.pyc": "",
        "engine/__init__.py": "", "tests/engine/__init__.py": "",
    })
    assert unlayered_folders(root) == ["scripts/"]
    assert stray_files(root / "exercises", _learner_facing) == ["generate.py", "labextension"]
    assert stray_files(root / ".ci", lambda name, is_dir: name == "run") == ["site"]
    assert ambiguous_names(root) == {"engine": ["engine/__init__.py",
                                                "tests/engine/__init__.py"]}
