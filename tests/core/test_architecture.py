"""The engine's shape, enforced: a small core to read, layers that import one way, no cycles.

Like teenygrad's ``sz.py``, these are limits a change has to argue with: raise one only
when the reason is better than keeping ``engine/core/`` readable in one sitting.

    fidelity  ->  core  ->  ops  ->  package root  ->  autograd, nn, optim  ->  viz, widgets

A module may import from its own layer and the layers to its left, never to its right
(the package root's ``__init__`` also exposes the subpackages, as ``torch`` does).
"""
import ast
from pathlib import Path

import pytest

import engine

ENGINE = Path(engine.__file__).resolve().parent

# engine/core/: the spine, what lesson 09 invites learners to read, in this order; then the
# extras, torch's surface around it, each in its own file ("read after the spine", README.md)
SPINE = ("grad_mode.py", "node.py", "backward.py", "tensor.py")
EXTRAS = ("hooks.py", "saved.py", "capture.py", "cotangents.py", "history.py", "strided.py",
          "forward.py", "tangents.py")
SPINE_CODE_LINES_MAX = 900    # the budget for the spine
EXTRA_CODE_LINES_MAX = 150    # per extra: one topic, readable on its own
CORE_FUNCTION_LINES_MAX = 40  # one screen per function
LAYERS = {"fidelity": 0, "core": 1, "ops": 2, "": 3, "autograd": 4, "nn": 4, "optim": 4,
          "utils": 4, "func": 4, "distributions": 4, "serialization": 4, "backends": 3,
          "testing": 4,
          "viz": 5, "widgets": 5}


def _module_name(path):
    parts = list(path.relative_to(ENGINE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(ENGINE.rglob("*.py"))}


def _layer(module):
    parts = module.split(".")
    if len(parts) == 1:
        return LAYERS[""]
    top = parts[1]
    if top not in LAYERS and (ENGINE / top).is_dir():
        raise KeyError(f"engine/{top}/ has no layer: give it one in LAYERS")
    return LAYERS.get(top, LAYERS[""])  # a module file (engine.random, engine.cuda): the root


def _resolve(module, node):
    """The engine modules an import statement in ``module`` names (absolute names)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name.split(".")[0] == "engine"]
    package = module if MODULES[module].name == "__init__.py" else module.rsplit(".", 1)[0]
    if node.level:
        base = package.split(".")
        base = base[:len(base) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
    elif node.module and node.module.split(".")[0] == "engine":
        target = node.module
    else:
        return []
    found = []
    for alias in node.names:  # `from . import node` names a module; `from .node import Node` not
        candidate = f"{target}.{alias.name}"
        found.append(candidate if candidate in MODULES else target)
    return found


def _imports(module, top_level_only, tree=None):
    tree = tree or ast.parse(MODULES[module].read_text())
    statements = tree.body if top_level_only else ast.walk(tree)
    for node in statements:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for target in _resolve(module, node):
                yield node, target


def _graph():
    return {module: {t for _, t in _imports(module, True) if t in MODULES and t != module}
            for module in MODULES}


def test_every_engine_module_belongs_to_a_layer():
    for module in MODULES:
        _layer(module)  # raises KeyError for a folder the layering does not know


def test_imports_run_one_way():
    wrong = []
    for module, targets in _graph().items():
        for target in targets:
            if module == "engine" and target.count(".") == 1:
                continue  # the package root exposes engine.nn, engine.viz ... as torch does
            if _layer(target) > _layer(module):
                wrong.append(f"{module} imports {target}")
    assert not wrong, "imports against the layering:\n" + "\n".join(wrong)


def test_core_imports_nothing_from_ops():
    for module, targets in _graph().items():
        if module.startswith("engine.core"):
            assert not [t for t in targets if t.startswith("engine.ops")], module


def test_no_import_cycles():
    graph, state, cycle = _graph(), {}, []

    def visit(module, path):
        state[module] = "open"
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                cycle.extend(path[path.index(target):] + [target] if target in path else [target])
                return True
            if target not in state and visit(target, path + [target]):
                return True
        state[module] = "done"
        return False

    for module in sorted(graph):
        if module not in state and visit(module, [module]):
            break
    assert not cycle, "import cycle: " + " -> ".join(cycle)


def test_no_engine_module_imports_another_inside_a_function():
    local = []
    for module in MODULES:
        tree = ast.parse(MODULES[module].read_text())
        top = {id(node) for node, _ in _imports(module, True, tree)}
        for node, target in _imports(module, False, tree):
            if id(node) not in top:
                local.append(f"{module}:{node.lineno} imports {target}")
    assert not local, "\n".join(local)


def _code_lines(path):
    """Lines that are code: not blank, not comments, not docstrings."""
    source = path.read_text()
    docstrings = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and \
                    isinstance(first.value.value, str):
                docstrings.update(range(first.lineno, first.end_lineno + 1))
    return [line for number, line in enumerate(source.splitlines(), 1)
            if line.strip() and not line.strip().startswith("#") and number not in docstrings]


CORE_FILES = sorted((ENGINE / "core").glob("*.py"))


def test_every_core_file_is_spine_or_extra():
    named = {"__init__.py", *SPINE, *EXTRAS}
    assert {path.name for path in CORE_FILES} == named


def test_the_spine_is_small():
    sizes = {name: len(_code_lines(ENGINE / "core" / name)) for name in SPINE}
    assert sum(sizes.values()) <= SPINE_CODE_LINES_MAX, sizes


@pytest.mark.parametrize("name", EXTRAS)
def test_each_extra_is_small(name):
    assert len(_code_lines(ENGINE / "core" / name)) <= EXTRA_CODE_LINES_MAX


def test_the_readme_lists_the_spine_in_order_then_the_extras():
    readme = (ENGINE / "core" / "README.md").read_text()
    spine_part, _, extras_part = readme.partition("read after the spine")
    assert extras_part, "README.md has no 'read after the spine' part"
    found = [name for name in SPINE if f"`{name}`" in spine_part]
    assert found == sorted(SPINE, key=lambda name: spine_part.index(f"`{name}`")) == list(SPINE)
    assert all(f"`{name}`" in extras_part and f"`{name}`" not in spine_part
               for name in EXTRAS)


def _globals_set_in_other_modules(module, tree):
    """``other.name = ...`` (or ``+=``, ``del``) in ``module``, where ``other`` names an
    engine module it imported."""
    imported = set()
    for node, target in _imports(module, False, tree):
        for alias in node.names:
            if isinstance(node, ast.Import) or target.endswith("." + alias.name):
                imported.add(alias.asname or alias.name.split(".")[0])
    found = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for part in (part for target in targets for part in ast.walk(target)):
            if isinstance(part, ast.Attribute) and isinstance(part.value, ast.Name) and \
                    part.value.id in imported:
                found.append(f"{ast.unparse(part)} (line {node.lineno})")
    return found


def test_no_module_sets_a_global_in_another():
    wrong = [f"{module}: {found}" for module in MODULES for found in
             _globals_set_in_other_modules(module, ast.parse(MODULES[module].read_text()))]
    assert not wrong, "\n".join(wrong)


def test_the_global_check_sees_a_module_setting_one_in_another():
    tree = ast.parse("from . import node as _node\nfrom .node import Node\n"
                     "_node.tensor_type = object\nNode.x = 1\nvalue.y = 2\n")
    assert _globals_set_in_other_modules("engine.core.tensor", tree) == \
        ["_node.tensor_type (line 3)"]


@pytest.mark.parametrize("path", CORE_FILES, ids=lambda p: p.name)
def test_core_functions_fit_on_a_screen(path):
    tree = ast.parse(path.read_text())
    long = [f"{node.name}: {node.end_lineno - node.lineno + 1} lines"
            for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > CORE_FUNCTION_LINES_MAX]
    assert not long, long


def test_nodes_declare_their_state():
    """No attributes made up on the fly: not in __getattr__, not by __dict__.update."""
    for module, path in MODULES.items():
        if module.startswith(("engine.core", "engine.ops", "engine.nn.functional")):
            source = path.read_text()
            assert "__dict__.update" not in source, module
            assert "def __getattr__" not in source, module


def test_recording_an_undeclared_value_is_refused():
    from engine.core.node import Node, record

    class ScaleBackward0(Node):
        factor: float

        def backward(self, grad):
            return grad * self.factor

    x = engine.ones(2, requires_grad=True)
    y = record(ScaleBackward0, x.detach() * 3, (x,), factor=3.0)
    assert y.grad_fn._saved_factor == 3.0
    with pytest.raises(TypeError, match="ScaleBackward0 does not declare 'scale'"):
        record(ScaleBackward0, x.detach() * 3, (x,), scale=3.0)


def test_every_folder_says_what_it_holds():
    for folder in ("core", "ops", "fidelity", "utils", "distributions", "backends", "testing"):
        readme = ENGINE / folder / "README.md"
        assert readme.exists(), readme
        assert "import" in readme.read_text(), f"{readme} should say what the folder may import"


# ---------------------------------------------------------------- private names stay private
# A name another engine module uses is part of the engine's own API: it has no leading
# underscore, and a name with one is read only inside its module (issue 24). Where torch
# has a private name (torch.nn.init._calculate_fan_in_and_fan_out), the engine keeps it in
# the same module for code written against torch, and its own modules use a public alias.
def _is_private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _imported(module, tree):
    """``(node, name, source, local)`` for every name an import statement in ``module`` takes
    from an engine module: ``source`` is the module it comes from, ``local`` the name it is
    bound to; a name that is itself a module comes with ``source`` None."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "engine":
                    local = alias.asname or alias.name.split(".")[0]
                    yield node, alias.name if alias.asname else "engine", None, local
        elif isinstance(node, ast.ImportFrom):
            for alias, target in zip(node.names, _resolve(module, node)):
                local = alias.asname or alias.name
                if target.endswith(f".{alias.name}") and target in MODULES:
                    yield node, target, None, local
                elif target in MODULES:
                    yield node, alias.name, target, local


def _private_uses(module, source):
    """``module:line`` lines naming each underscore name ``module`` (its text: ``source``)
    takes from another engine module, by import (``from .common import _x``) or by attribute
    (``common._x``, ``_node._x``)."""
    tree = ast.parse(source)
    modules, found = {}, []
    for node, name, origin, local in _imported(module, tree):
        if origin is None:
            modules[local] = name
        elif _is_private(name):
            found.append(f"{module}:{node.lineno} imports {name} from {origin}")

    def module_of(expression):
        if isinstance(expression, ast.Name):
            return modules.get(expression.id)
        if isinstance(expression, ast.Attribute):
            outer = module_of(expression.value)
            inner = f"{outer}.{expression.attr}"
            return inner if outer is not None and inner in MODULES else None
        return None

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            owner = module_of(node.value)
            if owner is not None and owner != module:
                found.append(f"{module}:{node.lineno} reads {owner}.{node.attr}")
    return found


def test_no_engine_module_uses_another_ones_private_names():
    found = [line for module, path in MODULES.items()
             for line in _private_uses(module, path.read_text())]
    assert not found, "private names used across modules:\n" + "\n".join(found)


def test_private_names_used_across_modules_are_found():
    """The check above cannot pass by missing them: each way of reaching one is found."""
    source = ("from .common import _hidden, shown\n"
              "from ..core import node as _node\n"
              "from .. import ops\n"
              "import engine.ops.views as views\n"
              "x = _node._sequence + ops.common._other + views._third\n"
              "y = _node.__name__ + shown + _own  # a dunder, a public name, its own private\n")
    found = _private_uses("engine.ops.arithmetic", source)
    assert sorted(line.split(" ", 1)[1] for line in found) == [
        "imports _hidden from engine.ops.common", "reads engine.core.node._sequence",
        "reads engine.ops.common._other", "reads engine.ops.views._third"]


def test_ops_common_lists_exactly_what_the_families_import():
    from engine.ops import common

    imported = {name for module in MODULES
                for _, name, source, _ in _imported(module, ast.parse(MODULES[module].read_text()))
                if source == "engine.ops.common"}
    assert sorted(imported) == sorted(common.__all__)
